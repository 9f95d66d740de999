// A temporary copy of demo/ wired to the stand-in backbone, for the debug protocol tests and bench.
import { cpSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths';
import { freePort } from './net';

export { freePort };
import { companionFolder, readCompanions, stopCompanions } from '../../core/launch/companions';

export const standInBackbone = join(repoRoot, 'test', 'fixtures', 'backbone');
export const adapterJs = join(repoRoot, 'dist', 'adapter.js');
/**
 * Debian's python (python3-debugpy 1.6.3, python3-yaml when installed). Tests use ensureTestPython()
 * (test/harness/python.ts, a pip venv with debugpy >= 1.8); this one only where an OLD debugpy is the
 * point (the version-warning test) and as ensureTestPython's fallback.
 */
export { debianPython } from '../harness/python';

export interface DemoCopy {
  dir: string;
  config: string;
  workflow: string;
  port: number;
  /** Stops the companions this copy started and removes it. */
  dispose(): Promise<void>;
}

/** Copies demo/ to a temp dir and gives its config a free vLLM port (so parallel runs never clash). */
export async function demoCopy(tag = 'aj-debug-'): Promise<DemoCopy> {
  const dir = mkdtempSync(join(tmpdir(), tag));
  cpSync(join(repoRoot, 'demo'), dir, { recursive: true });
  const port = await freePort();
  const config = join(dir, 'math_agent.yaml');
  const text = readFileSync(config, 'utf8').replace(/debug_first_n_tasks: \d+/, `debug_first_n_tasks: 2\n    debug_vllm_port: ${port}`);
  writeFileSync(config, text);
  return {
    dir,
    config,
    port,
    workflow: join(dir, 'math_demo', 'workflow.py'),
    async dispose() {
      for (const expDir of ['saved_experiments', 'launcher_record']) await stopCompanions(readCompanions(companionFolder(dir, expDir)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The 1-based line of the first line containing `needle`. */
export function lineOf(file: string, needle: string): number {
  const idx = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle));
  if (idx < 0) throw new Error(`"${needle}" not in ${file}`);
  return idx + 1;
}
