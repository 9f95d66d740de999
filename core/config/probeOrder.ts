// The order and the bound of the start-up probe's head reads (extension/gate/probe.ts), pure so it
// can be tested here and carried by the extension's small first stage: no parser, no file system.
import { looksLikeConfig } from '../agentjet/rootLine';

/** Heads read in a folder with no AgentJet name in it: a Kubernetes or CI tree pays this many small reads at most. */
export const PROBE_HEADS_UNMARKED = 64;

/**
 * Which of the YAML files a search returned get their head read, in order: shallow paths first
 * (configs sit near a project's top more often than deep in data folders), then by name; all of
 * them in a folder that AgentJet's names mark, else the first PROBE_HEADS_UNMARKED.
 */
export function probeCandidates<T>(files: readonly T[], pathOf: (f: T) => string, marked: boolean): T[] {
  const depth = (f: T) => pathOf(f).split('/').length;
  const sorted = [...files].sort((a, b) => depth(a) - depth(b) || pathOf(a).localeCompare(pathOf(b)));
  return marked ? sorted : sorted.slice(0, PROBE_HEADS_UNMARKED);
}

/**
 * The first of `files` whose head looks like an AgentJet/ASTuner config, reading `parallel` heads
 * at a time and stopping at the first hit (so a workspace with configs pays a few reads; one
 * without pays one small read per candidate, never a parse).
 */
export async function firstConfig<T>(
  files: readonly T[],
  head: (f: T) => Promise<string | undefined>,
  isCancelled: () => boolean = () => false,
  parallel = 8,
): Promise<T | undefined> {
  let next = 0;
  const hits: { f: T; i: number }[] = [];
  const worker = async (): Promise<void> => {
    while (!hits.length && !isCancelled() && next < files.length) {
      const i = next++;
      const f = files[i]!;
      const text = await head(f);
      if (text !== undefined && looksLikeConfig(text)) hits.push({ f, i });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, files.length)) }, worker));
  // Several workers may hit at once: the earliest in the given order wins.
  return hits.sort((a, b) => a.i - b.i)[0]?.f;
}
