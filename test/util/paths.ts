import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The project root (this file is test/util/paths.ts). */
export const repoRoot = resolve(__dirname, '..', '..');

/** `../shared` beside the project: reference material tests may read (present in CI). */
export const sharedDir = process.env.AGENTJET_SHARED_DIR ?? resolve(repoRoot, '..', 'shared');

export function shared(...parts: string[]): string {
  const p = join(sharedDir, ...parts);
  if (!existsSync(p)) throw new Error(`missing reference material: ${p} (set AGENTJET_SHARED_DIR)`);
  return p;
}

/** Where tests write screenshots and other artefacts a person may want to look at. */
export const testOutputDir = join(repoRoot, 'test-output');
