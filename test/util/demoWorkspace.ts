// A temporary copy of demo/ for UI tests: the workspace folder is <dir>/demo, so a test can
// remove the whole of <dir> afterwards.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths';

/** The demo's config mistake the tests look for: a workflow class that does not exist. */
export const WORKFLOW_TYPO = 'MathWorkflo';

export function demoWorkspace(tag: string, opts: { typo?: boolean } = {}): { dir: string; workspace: string } {
  const dir = mkdtempSync(join(tmpdir(), tag));
  const workspace = join(dir, 'demo');
  cpSync(join(repoRoot, 'demo'), workspace, { recursive: true });
  if (opts.typo) {
    const cfg = join(workspace, 'math_agent.yaml');
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8').replace(
        'user_workflow: math_demo.workflow->MathWorkflow',
        `user_workflow: math_demo.workflow->${WORKFLOW_TYPO}`,
      ),
    );
  }
  return { dir, workspace };
}
