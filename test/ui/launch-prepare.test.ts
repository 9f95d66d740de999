// Issue 43 item 6: F5 takes seconds to prepare (interpreter, config check, preflight) before the
// debug session exists; a progress notification says so and its Cancel stops the preparation
// through the launch's owner: the probe in flight is ended and no session starts. The interpreter
// here is a gate: it waits for a file the test creates, so the preparation lasts exactly until the
// test has looked (no timing). Screenshot: test-output/launch-prepare-progress.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython } from '../harness/python';
import { listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';

test('F5 shows "preparing" with Cancel before the session exists; Cancel stops the preparation and nothing starts', async () => {
  const gateDir = mkdtempSync(join(tmpdir(), 'aj-ui-gate-'));
  const gate = join(gateDir, 'open');
  const python = join(gateDir, 'python');
  // Waits for the gate on every start (the probe, the lint's interpreter), then runs the real interpreter.
  writeFileSync(python, `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\nexec '${ensureTestPython().python}' "$@"\n`);
  chmodSync(python, 0o755);
  const wb = await openWorkbench({ settings: { 'agentjet.pythonPath': python } });
  const { page } = wb;
  const gated = async () => (await listProcesses()).filter((p) => p.args.includes(gateDir));
  try {
    await wb.openFile('math_agent.yaml');
    await wb.press('F5');
    const toast = page.locator('.notification-toast', { hasText: 'AgentJet: preparing math_agent.yaml' }).first();
    await toast.waitFor({ state: 'visible', timeout: 60_000 });
    // The preparation waits on the interpreter: no debug session yet, the notification is the only Stop.
    await waitFor(async () => (await gated()).length > 0, 'the preparation runs the (gated) interpreter', 30_000, 100);
    assert.equal(await page.locator('.debug-toolbar').first().isVisible(), false, 'no debug session while preparing');
    await wb.screenshot('launch-prepare-progress');
    await toast.locator('.monaco-button, a.action-label', { hasText: 'Cancel' }).first().click();
    await toast.waitFor({ state: 'hidden', timeout: 30_000 });
    // Cancel ended what the preparation had started, while the gate is still shut.
    let left: { args: string }[] = [];
    await waitFor(
      async () => (left = await gated()).length === 0,
      () => `the probe ended by Cancel; left: ${left.map((p) => p.args).join(' | ')}`,
      30_000,
      100,
    );
    // Opening the gate now starts nothing: the launch was given up.
    writeFileSync(gate, '');
    assert.equal(await page.locator('.debug-toolbar').first().isVisible(), false, 'no debug session after Cancel');
    const shot = await wb.screenshot('launch-prepare-cancelled');
    assert.ok(shot);
  } finally {
    writeFileSync(gate, '');
    await wb.close();
    rmSync(gateDir, { recursive: true, force: true });
  }
});
