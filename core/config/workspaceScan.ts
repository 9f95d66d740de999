// One rule for "where AgentJet configs may be in a workspace", shared by the language server's
// background pass and the extension's start-up probe (which decides whether the server starts at
// all in a workspace nobody has opened a YAML file of yet).
import { open } from 'node:fs/promises';
import { looksLikeConfig } from '../agentjet/dialect';

/**
 * Folders never searched: tooling, environments, and the run folders (their `yaml_backup.yaml`
 * snapshots are records of past runs, not sources to fix).
 */
export const SKIP_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  '__pycache__',
  '.venv',
  'venv',
  'env',
  '.tox',
  'dist',
  'build',
  'saved_experiments',
  'launcher_record',
  'saved_checkpoints',
]);

/** The same folders as one glob for a file search (`vscode.workspace.findFiles`' exclude). */
export function skipGlob(): string {
  return `{${[...SKIP_DIRS].map((d) => `**/${d}/**`).join(',')},**/.*/**}`;
}

/** How much of a file the probe reads: a root key sits near the top (Hydra's `defaults:` list comes first). */
export const PROBE_HEAD_BYTES = 16 * 1024;

/** The first `PROBE_HEAD_BYTES` of a file, or undefined when it cannot be read. */
export async function readHead(path: string, bytes = PROBE_HEAD_BYTES): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * The first of `files` whose head looks like an AgentJet/ASTuner config, reading `parallel` heads
 * at a time and stopping at the first hit (so a workspace with configs pays a few reads; one
 * without pays one small read per YAML file, never a parse).
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
