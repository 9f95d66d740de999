import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { openWorkbench } from '../harness/workbench';

test('the Runs view lists the demo runs with statuses, and the dashboard draws their curves', async () => {
  const wb = await openWorkbench();
  try {
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const row = (name: string) => runsPane.locator('.monaco-list-row', { hasText: name }).first();
    await row('math_demo_2node_20260105_0900').waitFor({ state: 'visible', timeout: 60_000 });
    // Details arrive in the background: wait for the rendered descriptions.
    await runsPane.locator('.monaco-list-row', { hasText: /math_demo_lr_sweep_20260104_1530.*failed · step/ }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await runsPane.locator('.monaco-list-row', { hasText: /math_demo_2node_20260105_0900.*finished · step/ }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await row('astuner_math_20251220_1200').waitFor({ state: 'visible' });
    // Expand a run: snapshot, session, checkpoints.
    await row('math_demo_20260103_1010').click();
    await runsPane.locator('.monaco-list-row', { hasText: 'config snapshot' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await runsPane.locator('.monaco-list-row', { hasText: 'checkpoints' }).first().waitFor({ state: 'visible' });
    const tree = await wb.screenshot('runs-tree');
    assert.ok(existsSync(tree));

    // Select two runs and open the dashboard from the context menu (multi-select overlays them).
    await row('math_demo_20260103_1010').click();
    await row('math_demo_2node_20260105_0900').click({ modifiers: ['Control'] });
    await row('math_demo_2node_20260105_0900').click({ button: 'right', modifiers: [] });
    const item = page.locator('.context-view .action-item', { hasText: 'Open Run Dashboard' }).first();
    await item.waitFor({ state: 'visible', timeout: 15_000 });
    await item.click();
    const frame = await wb.webviewFrame('.uplot canvas', 60_000);
    const charts = await frame.locator('.uplot').count();
    assert.ok(charts >= 4, `expected reward, success, length and evaluation charts, got ${charts}`);
    const legend = await frame.locator('ul.runs li').allTextContents();
    assert.equal(legend.length, 2, legend.join(' | '));
    assert.ok(legend.some((l) => l.includes('math_demo_2node_20260105_0900')));
    assert.match(await frame.locator('.exceptions h2').textContent() ?? '', /Exceptions \(\d+\)/);
    const shot = await wb.screenshot('runs-dashboard');
    assert.ok(existsSync(shot));
  } finally {
    await wb.close();
  }
});
