// As a user: open the demo config, set a breakpoint in the workflow, click the "Debug rollout"
// CodeLens, see the debugger stop there, stop it. Real workbench, packaged .vsix, the tests' pip-made Python (debugpy >= 1.8),
// the stand-in backbone on PYTHONPATH (the extension host inherits the server's environment).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { openWorkbench } from '../harness/workbench';
import { demoCopy, lineOf, standInBackbone } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { listProcesses } from '../../core/launch/processes';

test('Debug rollout from the CodeLens stops at a breakpoint in the workflow', async () => {
  const w = await demoCopy('aj-ui-debug-');
  const wb = await openWorkbench({
    workspace: w.dir,
    env: { PYTHONPATH: standInBackbone },
    settings: { 'agentjet.pythonPath': ensureTestPython().python, 'debug.openDebug': 'openOnDebugBreak' },
  });
  try {
    const line = lineOf(w.workflow, 'answer = reply.choices');
    await wb.openFile('math_demo/workflow.py');
    await wb.press('Control+G');
    await wb.page.keyboard.type(String(line));
    await wb.press('Enter');
    await wb.press('F9');
    await wb.page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });

    await wb.openFile('math_agent.yaml');
    const lens = wb.page.locator('.codelens-decoration a', { hasText: 'Debug rollout' }).first();
    await lens.waitFor({ state: 'visible', timeout: 30_000 });
    for (const title of ['Run rollout', 'Train (verl)', 'Train (trinity)']) {
      assert.ok(await wb.page.locator('.codelens-decoration a', { hasText: title }).first().isVisible(), `${title} lens`);
    }
    await wb.screenshot('debug-codelens');
    await lens.click();

    // Paused: the workflow editor shows the top stack frame at the breakpoint line.
    await wb.page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 90_000 });
    await wb.page.locator('.debug-toolbar').first().waitFor({ state: 'visible', timeout: 30_000 });
    const current = wb.page.locator('.monaco-editor .line-numbers.active-line-number').first();
    assert.equal((await current.textContent())?.trim(), String(line), 'the stopped line is the breakpoint line');
    // The Variables view shows the workflow's locals (scopes/variables relayed to debugpy).
    await wb.page.locator('.monaco-list-row', { hasText: 'question' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    const shot = await wb.screenshot('debug-stopped-at-breakpoint');
    assert.ok(existsSync(shot));

    assert.ok((await listProcesses()).some((p) => p.args.includes(w.config)), 'the launcher runs while paused');
    await wb.press('Shift+F5');
    await wb.page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 30_000 });
    // Stop left no launcher or debugpy process behind (the companion's command line does not name the config).
    const deadline = Date.now() + 20_000;
    let left = (await listProcesses()).filter((p) => p.args.includes(w.config));
    while (left.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      left = (await listProcesses()).filter((p) => p.args.includes(w.config));
    }
    assert.deepEqual(left, [], 'processes left after Stop');
  } finally {
    await wb.close();
    await w.dispose();
  }
});
