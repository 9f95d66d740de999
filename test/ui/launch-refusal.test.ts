// Issue 43 item 7, as a user sees it: F5 with an interpreter that has neither AgentJet nor debugpy
// (the tests' venv's base Python) is refused with a dialog whose causes read as a list, one per
// line, as the config-error refusal does; no debug session starts. Screenshot:
// test-output/launch-refusal-environment.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { skipForEnvironment } from '../util/envSkip';

test('F5 refused for the environment: a dialog listing each missing piece on its own line', async (t) => {
  const venv = ensureTestPython().python;
  const base = execFileSync(venv, ['-c', 'import sys; print(getattr(sys, "_base_executable", sys.executable))']).toString().trim();
  const has = (mod: string) => {
    try {
      execFileSync(base, ['-c', `import ${mod}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (skipForEnvironment(t, has('debugpy') || has('ajet') ? `${base} has debugpy or ajet: no bare interpreter here` : undefined)) return;
  const wb = await openWorkbench({ settings: { 'agentjet.pythonPath': base } });
  try {
    await wb.openFile('math_agent.yaml');
    await wb.press('F5');
    const dialog = wb.page.locator('.monaco-dialog-box', { hasText: 'debugpy' }).first();
    await dialog.waitFor({ state: 'visible', timeout: 90_000 });
    const detail = (await dialog.locator('.dialog-message-detail').innerText()).split('\n').filter((l) => l.trim());
    // Each cause on a line of its own: the launcher/framework and debugpy are not run together.
    assert.ok(detail.length >= 2, `causes listed one per line: ${JSON.stringify(detail)}`);
    assert.ok(
      detail.some((l) => /debugpy/.test(l)) && detail.some((l) => /AgentJet|ajet|launcher/.test(l) && !/debugpy/.test(l)),
      detail.join(' | '),
    );
    await wb.screenshot('launch-refusal-environment');
    await wb.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal(await wb.page.locator('.debug-toolbar').first().isVisible(), false, 'no debug session starts');
    // The preparation's notification (item 6) is over too.
    await wb.page.locator('.notification-toast', { hasText: 'AgentJet: preparing' }).first().waitFor({ state: 'hidden', timeout: 10_000 });
  } finally {
    await wb.close();
  }
});
