import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { openWorkbench } from '../harness/workbench';

test('the installed .vsix shows the AgentJet view container with its Runs and Companions views', async () => {
  const wb = await openWorkbench();
  try {
    const item = wb.activityItem('AgentJet');
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    await item.click();
    const header = wb.page.locator('.pane-header', { hasText: 'Runs' }).first();
    await header.waitFor({ state: 'visible', timeout: 30_000 });
    await wb.page.locator('.pane-header', { hasText: 'Companions' }).first().waitFor({ state: 'visible' });
    await wb.openFile('math_agent.yaml');
    const shot = await wb.screenshot('foundation-view-container');
    assert.ok(existsSync(shot));
  } finally {
    await wb.close();
  }
});
