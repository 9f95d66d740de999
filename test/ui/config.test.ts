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
    const squiggle = wb.page.locator('.editor-group-container.active .monaco-editor .squiggly-error').first();
    await squiggle.waitFor({ state: 'visible', timeout: 60_000 });
    // Move the mouse over the squiggle as a user would (the text layer above it takes the events).
    const box = await squiggle.boundingBox();
    assert.ok(box, 'squiggle has a box');
    await wb.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 4);
    await wb.page.mouse.move(box.x + box.width / 2 + 2, box.y + box.height / 2 - 5);
    const hoverBox = wb.page.locator('.monaco-hover:not(.hidden)', { hasText: 'MathWorkflo' }).first();
    await hoverBox.waitFor({ state: 'visible', timeout: 30_000 });
    const text = await hoverBox.innerText();
    assert.match(text, /is not defined in/);
    assert.match(text, /class-ref\/missing-class/);
    const shot = await wb.screenshot('config-squiggle-hover');
    assert.ok(existsSync(shot));
  } finally {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
