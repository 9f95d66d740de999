// As a user: "Debug This Task…" on the demo, task demo-005, with the current config: the real
// AgentJet launcher (agentjet-d20cce0, stubs as in test/conformance) runs the debug backbone on that
// one task and the editor stops at the workflow's breakpoint; the Debug Console shows that
// workflow_task holds demo-005. Real workbench, packaged .vsix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { withUpstream } from '../util/upstream';
import { lineOf } from '../util/debugWorkspace';
import { repoRoot } from '../util/paths';
import { listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';
import { realAgentJetMissing, realWorkspace } from '../conformance/realAgentJet';
import { skipForEnvironment } from '../util/envSkip';

test(
  'Debug This Task: the launch runs only the chosen task and stops in the workflow with it',
  withUpstream('agentjet-d20cce0', async (_dir, t) => {
    if (skipForEnvironment(t, realAgentJetMissing())) return;
    const w = await realWorkspace('agentjet-d20cce0', 'aj-ui-dtask-');
    for (const p of ['math_demo', 'data', 'math_agent.yaml']) cpSync(join(repoRoot, 'demo', p), join(w.dir, p), { recursive: true });
    writeFileSync(
      join(w.dir, 'math_agent.yaml'),
      readFileSync(join(w.dir, 'math_agent.yaml'), 'utf8')
        .replace('path: Qwen/Qwen2.5-1.5B-Instruct', 'path: stub-model')
        .replace('  debug:\n', `  debug:\n    debug_vllm_port: ${w.port}\n`),
    );
    const wb = await openWorkbench({
      workspace: w.dir,
      env: { PYTHONPATH: w.pythonPath },
      settings: { 'agentjet.pythonPath': w.python, 'debug.openDebug': 'openOnDebugBreak' },
    });
    try {
      const workflow = join(w.dir, 'math_demo', 'workflow.py');
      const line = lineOf(workflow, 'question = workflow_task.task.main_query');
      await wb.openFile('math_agent.yaml');
      await wb.openFile('math_demo/workflow.py');
      await wb.press('Control+G');
      await wb.page.keyboard.type(String(line));
      await wb.press('Enter');
      await wb.press('F9');
      await wb.page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });

      // Asked from the config's editor: that config is offered first.
      await wb.openFile('math_agent.yaml');
      await wb.runCommand('Debug This Task');
      const input = wb.page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await input.fill('demo-005');
      await wb.press('Enter');
      // Which config: the one in the active editor, first although conformance.yaml sorts before it.
      const rows = wb.page.locator('.quick-input-list .monaco-list-row');
      await rows.filter({ hasText: 'conformance.yaml' }).first().waitFor({ state: 'visible', timeout: 30_000 });
      const firstText = (await rows.and(wb.page.locator('[data-index="0"]')).first().textContent()) ?? '';
      assert.match(firstText, /^math_agent\.yaml.*in the active editor/, `first row: ${firstText}`);
      await wb.page.locator('.quick-input-widget input:focus').waitFor({ state: 'attached', timeout: 10_000 });
      await wb.press('Enter');
      // num_repeat: 1 (the default).
      await wb.page.locator('.quick-input-widget', { hasText: 'num_repeat' }).waitFor({ state: 'visible', timeout: 30_000 });
      // Enter once the box has the focus (a key before it would go to the page behind).
      await wb.page.locator('.quick-input-widget input:focus').waitFor({ state: 'attached', timeout: 10_000 });
      await wb.press('Enter');

      await wb.page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 240_000 });
      const current = wb.page.locator('.monaco-editor .line-numbers.active-line-number').first();
      assert.equal((await current.textContent())?.trim(), String(line), 'stopped at the workflow breakpoint');
      // Ask the paused frame which task it holds, in the Debug Console.
      await wb.page.locator('.repl-input-wrapper').first().click();
      await wb.page.keyboard.type('workflow_task.task.task_id, workflow_task.task.main_query');
      await wb.press('Enter');
      await wb.page
        .locator('.repl .monaco-list-row', { hasText: "('demo-005', 'What is 9 * 66 + 9?')" })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      const shot = await wb.screenshot('debug-this-task-stopped');
      assert.ok(existsSync(shot));
      assert.ok(
        existsSync(join(w.dir, '.agentjet-vscode', 'debug-tasks', 'math_agent_task_demo-005.yaml')),
        'the derived config (no run picked: under .agentjet-vscode)',
      );

      const ours = async () => (await listProcesses()).filter((p) => p.args.includes(w.dir) && !/vllm\.entrypoints/.test(p.args));
      await wb.press('Shift+F5');
      let left = await ours();
      await waitFor(
        async () => (left = await ours()).length === 0,
        () => `no process left after Stop; left: ${left.map((p) => p.args).join(' | ')}`,
        30_000,
        200,
      );
    } finally {
      await wb.close();
      await w.dispose();
    }
  }),
);
