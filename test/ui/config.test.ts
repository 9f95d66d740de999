import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { repoRoot } from '../util/paths';

test('a config mistake shows a squiggle whose hover explains it (screenshot)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-ui-config-'));
  const workspace = join(dir, 'demo');
  cpSync(join(repoRoot, 'demo'), workspace, { recursive: true });
  const cfg = join(workspace, 'math_agent.yaml');
  writeFileSync(
    cfg,
    readFileSync(cfg, 'utf8').replace('user_workflow: math_demo.workflow->MathWorkflow', 'user_workflow: math_demo.workflow->MathWorkflo'),
  );
  const wb = await openWorkbench({ workspace });
  try {
    await wb.openFile('math_agent.yaml');
    const text = await wb.hoverFirstError('MathWorkflo');
    assert.match(text, /is not defined in/);
    assert.match(text, /class-ref\/missing-class/);
    const shot = await wb.screenshot('config-squiggle-hover');
    assert.ok(existsSync(shot));
  } finally {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
