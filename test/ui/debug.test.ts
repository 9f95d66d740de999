// As a user: open an AgentJet config, set a breakpoint in the workflow, click the "Debug rollout"
// CodeLens, see the debugger stop there, stop it. Real workbench, packaged .vsix, debugpy 1.8 from
// the tests' venv, and the REAL AgentJet launcher (agentjet-d20cce0): the workflow runs in the
// launcher's child process (`python -m ajet.backbone.main_vllm`), in a rollout thread, so the stop
// happens in the child session VS Code starts when debugpy reports that process
// (test/conformance/realAgentJet.ts; stubs in test/conformance/stubs/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { openWorkbench } from '../harness/workbench';
import { lineOf } from '../util/debugWorkspace';
import { withUpstream } from '../util/upstream';
import { listProcesses } from '../../core/launch/processes';
import { companionsOf } from '../../core/launch/companions';
import { realAgentJetMissing, realWorkspace } from '../conformance/realAgentJet';
import { waitFor } from '../util/poll';
import { skipForEnvironment } from '../util/envSkip';

test(
  "Debug rollout from the CodeLens stops at a breakpoint in the workflow, in the real launcher's child process",
  withUpstream('agentjet-d20cce0', async (_dir, t) => {
    if (skipForEnvironment(t, realAgentJetMissing())) return;
    const w = await realWorkspace('agentjet-d20cce0', 'aj-ui-debug-');
    const wb = await openWorkbench({
      workspace: w.dir,
      env: { PYTHONPATH: w.pythonPath },
      settings: { 'agentjet.pythonPath': w.python, 'debug.openDebug': 'openOnDebugBreak' },
    });
    try {
      const line = lineOf(w.workflow, '# BREAK HERE');
      await wb.openFile('workflow.py');
      await wb.press('Control+G');
      await wb.page.keyboard.type(String(line));
      await wb.press('Enter');
      await wb.press('F9');
      await wb.page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });

      await wb.openFile('conformance.yaml');
      const lens = wb.page.locator('.codelens-decoration a', { hasText: 'Debug rollout' }).first();
      await lens.waitFor({ state: 'visible', timeout: 30_000 });
      // The lenses of a line may be drawn one after another: wait for each.
      for (const title of ['Run rollout', 'Train (verl)', 'Train (trinity)']) {
        await wb.page.locator('.codelens-decoration a', { hasText: title }).first().waitFor({ state: 'visible', timeout: 30_000 });
      }
      await lens.click();

      // Paused: the workflow editor shows the top stack frame at the breakpoint line.
      await wb.page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 180_000 });
      await wb.page.locator('.debug-toolbar').first().waitFor({ state: 'visible', timeout: 30_000 });
      const current = wb.page.locator('.monaco-editor .line-numbers.active-line-number').first();
      assert.equal((await current.textContent())?.trim(), String(line), 'the stopped line is the breakpoint line');
      // The Call Stack holds the child session debugpy reported ("Subprocess <pid>") under the launcher's.
      await wb.page
        .locator('.debug-call-stack .monaco-list-row', { hasText: /Subprocess \d+/ })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      // The Variables view shows the workflow's arguments.
      await wb.showVariable('workflow_task').catch(async (err: unknown) => {
        await wb.screenshot('debug-variables-missing');
        throw err;
      });
      const shot = await wb.screenshot('debug-stopped-at-breakpoint');
      assert.ok(existsSync(shot));
      // Showing the new run in the Runs view raised no error (it was a TreeError toast: the row was not drawn yet).
      const toasts = await wb.page.locator('.notification-toast').allInnerTexts();
      assert.deepEqual(
        toasts.filter((t) => /failed|TreeError/.test(t)),
        [],
        toasts.join(' | '),
      );

      const ours = async () => (await listProcesses()).filter((p) => p.args.includes(w.dir) && !/vllm\.entrypoints/.test(p.args));
      assert.ok(
        (await ours()).some((p) => /ajet\.backbone\.main_vllm/.test(p.args)),
        'the backbone child runs while paused',
      );
      // One Stop, with the child session focused (it stopped at the breakpoint): the extension
      // forwards it to the AgentJet session, which ends the launcher and its tree.
      const toolbar = wb.page.locator('.debug-toolbar').first();
      await wb.press('Shift+F5');
      await toolbar.waitFor({ state: 'hidden', timeout: 60_000 });
      assert.equal(await toolbar.isVisible(), false, 'the debug toolbar is gone after Stop');
      // Stop left no launcher, backbone or debugpy process behind; the vLLM companion stays for the next launch.
      let left = await ours();
      await waitFor(
        async () => (left = await ours()).length === 0,
        () => `no process left after Stop; left: ${left.map((p) => p.args).join(' | ')}`,
        20_000,
        200,
      );
      assert.equal(companionsOf(w.dir).filter((c) => c.alive).length, 1, 'the vLLM companion is spared');
    } finally {
      await wb.close();
      await w.dispose();
    }
  }),
);
