// A launch's own check of its config judges it by the AgentJet the launch will run (the folder's
// checkout, else the package in the launch's interpreter), as Problems does, so that F5 never
// refuses what Problems accepts nor starts what it flags. Bundled facts answer while that AgentJet
// is read (bounded wait); its facts are cached on disk by content, shared with `agentjet lint`.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AgentJetFactsService, defaultCacheDir } from '../config/agentjetFacts';
import { lintFile, type LintDiagnostic } from '../config/lint';
import { MAX_SEMANTIC_BYTES, parseConfig } from '../config/parse';
import type { JudgingFacts } from '../config/releases';
import { WorkspaceTrust } from '../trust/policy';

/** How long a launch waits for the user's AgentJet to be read (the first read, uncached, takes ~2 s). */
export const JUDGE_WAIT_MS = 5000;

let service: AgentJetFactsService | undefined;

/** The facts that judge `text` for a launch from `folder` with `python`; bundled ones after `waitMs`. */
export async function launchFacts(folder: string, python: string | undefined, text: string, waitMs = JUDGE_WAIT_MS): Promise<JudgingFacts> {
  // The launch's own interpreter is handed in by the one who starts the launch (already allowed to run it).
  service ??= new AgentJetFactsService({
    cacheDir: process.env.AGENTJET_FACTS_CACHE ?? defaultCacheDir(),
    trust: new WorkspaceTrust(true),
  });
  // Read again for every launch: the user may have installed another AgentJet since the last one
  // (the disk cache keeps that cheap when nothing changed).
  service.removeFolder(folder);
  service.setFolder(folder, python);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    service.ready(folder),
    new Promise<void>((r) => {
      timer = setTimeout(r, waitMs);
      timer.unref?.();
    }),
  ]);
  clearTimeout(timer);
  return service.factsFor(folder, parseConfig(text));
}

/** Lints the config a launch runs, judged as `launchFacts` says. */
export async function lintForLaunch(config: string, cwd: string | undefined, python: string | undefined): Promise<LintDiagnostic[]> {
  const root = cwd ?? dirname(config);
  let facts: JudgingFacts | undefined;
  try {
    const text = await readFile(config, 'utf8');
    if (text.length <= MAX_SEMANTIC_BYTES) facts = await launchFacts(root, python, text);
  } catch {
    /* lintFile reports a file it cannot read */
  }
  return lintFile(config, { root, ...(facts ? { facts } : {}) });
}
