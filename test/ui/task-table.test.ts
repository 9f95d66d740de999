// As a user: a run of the demo project on its dashboard, the per-task table sorted by reward
// (lowest first), and "Debug this task" on the worst task. The real AgentJet launcher
// (agentjet-d20cce0, stubs as in test/conformance) runs the debug backbone from the run's config
// snapshot on that one task, and the editor stops at the workflow's breakpoint with
// workflow_task holding that task's id. Real workbench, packaged .vsix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { withUpstream } from '../util/upstream';
import { lineOf } from '../util/debugWorkspace';
import { repoRoot } from '../util/paths';
import { listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';
import { runRow } from '../util/runRow';
import { realAgentJetMissing, realWorkspace } from '../conformance/realAgentJet';
import { frame } from '../gen/rollout';
import { payload } from '../util/smalllogs';
import { skipForEnvironment } from '../util/envSkip';

const RUN = 'math_agent_20260110_1200';
/** Rewards per task and step, as the run's rollout records say (ids from the demo's data files). */
const ROLLOUTS: [task: string, step: number, rewards: number[]][] = [
  ['demo-003', 0, [1, 1, 1, 1]],
  ['demo-005', 0, [0, 0, 0, 0]],
  ['demo-007', 1, [1, 0, 1, 0]],
  ['demo-010', 1, [1, 1, 0, 1]],
  ['demo-003', 2, [1, 1, 0, 1]],
];

test(
  'Run dashboard: the per-task table sorts by reward, and Debug this task on its worst row stops in the workflow on that task',
  withUpstream('agentjet-d20cce0', async (_dir, t) => {
    if (skipForEnvironment(t, realAgentJetMissing())) return;
    const w = await realWorkspace('agentjet-d20cce0', 'aj-ui-ttable-');
    for (const p of ['math_demo', 'data', 'math_agent.yaml']) cpSync(join(repoRoot, 'demo', p), join(w.dir, p), { recursive: true });
    const yaml = readFileSync(join(w.dir, 'math_agent.yaml'), 'utf8')
      .replace('path: Qwen/Qwen2.5-1.5B-Instruct', 'path: stub-model')
      .replace('  debug:\n', `  debug:\n    debug_vllm_port: ${w.port}\n`);
    writeFileSync(join(w.dir, 'math_agent.yaml'), yaml);
    // A run of this config as AgentJet leaves it: the snapshot, and the rollout log of one host.
    const run = join(w.dir, 'saved_experiments', RUN);
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'yaml_backup.yaml'), yaml);
    const rollout = join(run, '2026_01_10_12_00', 'gpu-node-0', 'rollout', 'rollout.json.log');
    mkdirSync(join(rollout, '..'), { recursive: true });
    let at = Date.UTC(2026, 0, 10, 12, 0, 0);
    writeFileSync(
      rollout,
      ROLLOUTS.flatMap(([task, step, rewards]) =>
        rewards.map((r) => frame(new Date((at += 7000)), payload(step, task, r, [{ text: ['<|im_start|>', 'What', ' is', ' it', '?'] }]))),
      ).join(''),
    );

    const wb = await openWorkbench({
      workspace: w.dir,
      env: { PYTHONPATH: w.pythonPath },
      settings: { 'agentjet.pythonPath': w.python, 'debug.openDebug': 'openOnDebugBreak' },
    });
    try {
      const { page } = wb;
      const workflow = join(w.dir, 'math_demo', 'workflow.py');
      const line = lineOf(workflow, 'question = workflow_task.task.main_query');
      await wb.openFile('math_demo/workflow.py');
      await wb.press('Control+G');
      await page.keyboard.type(String(line));
      await wb.press('Enter');
      await wb.press('F9');
      await page.locator('.codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 20_000 });

      // The run's dashboard, from the Runs view.
      await wb.activityItem('AgentJet').click();
      const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
      const row = runRow(runsPane, RUN);
      await row.waitFor({ state: 'visible', timeout: 60_000 });
      await wb.rowsLoaded(runsPane);
      await wb.contextAction(row, 'Open Run Dashboard');
      const dash = await wb.webviewFrame('.tasks tbody tr', 60_000);
      let seen: string[] = [];
      const ids = async () => (seen = await dash.locator('.tasks tbody tr td.task-id').allTextContents());
      /** Waits until the table's task ids (in order) are `want`. */
      const rowsAre = (want: string[], timeoutMs = 15_000) =>
        waitFor(
          async () => (await ids()).join('\n') === want.join('\n'),
          () => `rows ${JSON.stringify(want)}, seen ${JSON.stringify(seen)}`,
          timeoutMs,
        );
      // Lowest mean reward first as it opens; a click on the column sorts highest first, another lowest first again.
      const lowestFirst = ['demo-005', 'demo-007', 'demo-010', 'demo-003'];
      await rowsAre(lowestFirst, 60_000);
      const meanHeader = dash.locator('.tasks th button.sort', { hasText: 'mean reward' });
      await meanHeader.click();
      await rowsAre([...lowestFirst].reverse());
      await meanHeader.click();
      await rowsAre(lowestFirst);
      const first = dash.locator('.tasks tbody tr').first();
      assert.deepEqual(
        (await first.locator('td').allTextContents()).slice(0, 8),
        ['demo-005', '4', '0.000', '0.000', '0.000', '0.000', '0%', '0'],
        'rollouts, mean/min/max/last reward, success rate, step',
      );
      assert.deepEqual((await dash.locator('.tasks tbody tr', { hasText: 'demo-003' }).locator('td').allTextContents()).slice(0, 8), [
        'demo-003',
        '8',
        '0.875',
        '0.000',
        '1.000',
        '1.000',
        '88%',
        '0, 2',
      ]);
      // The filter narrows the table; cleared, all four come back.
      const filter = dash.locator('.task-filter');
      await filter.fill('010');
      await rowsAre(['demo-010']);
      await filter.fill('');
      await rowsAre(lowestFirst);
      // The table in view for the picture (docs/images/dashboard-task-table.png).
      await dash.locator('.tasks h2').evaluate((h) => h.scrollIntoView({ block: 'start' }));
      await wb.screenshot('dashboard-task-table');

      // Open in token log: the rollout log opens filtered by the task's id.
      await meanHeader.click();
      await rowsAre([...lowestFirst].reverse());
      await dash.locator('.tasks tbody tr', { hasText: 'demo-007' }).locator('button.open-task-log').click();
      await page.locator('.tabs-container .tab', { hasText: 'rollout.json.log' }).first().waitFor({ state: 'visible', timeout: 30_000 });
      const search = 'input[aria-label="search token text"]';
      const tokenLog = await wb.webviewFrame(search, 30_000);
      let searched = '';
      await waitFor(
        async () => (searched = await tokenLog.locator(search).inputValue()) === 'demo-007',
        () => `the token log's filter holds demo-007, has ${JSON.stringify(searched)}`,
        30_000,
      );
      // Back on the dashboard (its page was unloaded while hidden): the sort is restored.
      await page
        .locator('.tabs-container .tab', { hasText: `Run: ${RUN}` })
        .first()
        .click();
      const dash2 = await wb.webviewFrame('.tasks tbody tr', 60_000);
      const ids2 = async () => (seen = await dash2.locator('.tasks tbody tr td.task-id').allTextContents());
      await waitFor(
        async () => (await ids2()).join() === [...lowestFirst].reverse().join(),
        () => `highest first after the reload, seen ${JSON.stringify(seen)}`,
        30_000,
      );
      await dash2.locator('.tasks th button.sort', { hasText: 'mean reward' }).click();
      await waitFor(
        async () => (await ids2()).join() === lowestFirst.join(),
        () => `lowest first again, seen ${JSON.stringify(seen)}`,
      );

      // Debug this task on the worst row: the run's config snapshot, num_repeat 1.
      await dash2.locator('.tasks tbody tr').first().locator('button.debug-task').click();
      const snapshot = page.locator('.quick-input-list .monaco-list-row', { hasText: "The run's config snapshot" }).first();
      await snapshot.waitFor({ state: 'visible', timeout: 30_000 });
      await snapshot.click();
      await page.locator('.quick-input-widget', { hasText: 'num_repeat' }).waitFor({ state: 'visible', timeout: 30_000 });
      // Enter once the box has the focus (a key before it would go to the page behind).
      await page.locator('.quick-input-widget input:focus').waitFor({ state: 'attached', timeout: 10_000 });
      await wb.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'num_repeat' }).waitFor({ state: 'hidden', timeout: 10_000 });

      await page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 240_000 });
      const current = page.locator('.monaco-editor .line-numbers.active-line-number').first();
      assert.equal((await current.textContent())?.trim(), String(line), 'stopped at the workflow breakpoint');
      await page.locator('.repl-input-wrapper').first().click();
      await page.keyboard.type('workflow_task.task.task_id, workflow_task.task.main_query');
      await wb.press('Enter');
      await page
        .locator('.repl .monaco-list-row', { hasText: "('demo-005', 'What is 9 * 66 + 9?')" })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await wb.screenshot('dashboard-debug-this-task-stopped');
      const derived = join(run, 'debug-tasks', `${RUN}_task_demo-005.yaml`);
      assert.ok(existsSync(derived), 'the derived config is beside the run, made from its snapshot');
      assert.match(readFileSync(derived, 'utf8'), /yaml_backup\.yaml, task demo-005 only/);
      assert.equal(JSON.parse(readFileSync(join(run, 'debug-tasks', `${RUN}_task_demo-005.link.json`), 'utf8')).sourceRun, run);

      const ours = async () => (await listProcesses()).filter((p) => p.args.includes(w.dir) && !/vllm\.entrypoints/.test(p.args));
      await wb.press('Shift+F5');
      let left = await ours();
      await waitFor(
        async () => (left = await ours()).length === 0,
        () => `no process left after Stop; left: ${left.map((p) => p.args).join(' | ')}`,
        30_000,
        200,
      );
    } catch (err) {
      await wb.screenshot('dashboard-task-table-failure').catch(() => undefined);
      throw err;
    } finally {
      await wb.close();
      await w.dispose();
    }
  }),
);
