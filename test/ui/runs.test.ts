import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LIVE_WRITER } from '../util/livewriter';
import { openWorkbench } from '../harness/workbench';
import { waitFor } from '../util/poll';
import { runRow } from '../util/runRow';

test('the Runs view lists the demo runs with statuses, and the dashboard draws their curves', async () => {
  const wb = await openWorkbench();
  try {
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const row = (name: string) => runRow(runsPane, name);
    await row('math_demo_2node_20260105_0900').waitFor({ state: 'visible', timeout: 60_000 });
    // Details arrive in the background: wait for the rendered descriptions.
    await runRow(runsPane, 'math_demo_lr_sweep_20260104_1530', 'failed').waitFor({ state: 'visible', timeout: 30_000 });
    await runRow(runsPane, 'math_demo_2node_20260105_0900', 'finished').waitFor({ state: 'visible', timeout: 30_000 });
    await row('astuner_math_20251220_1200').waitFor({ state: 'visible' });
    // Expand a run: snapshot, session, checkpoints.
    await row('math_demo_20260103_1010').click();
    await runsPane.locator('.monaco-list-row', { hasText: 'config snapshot' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await runsPane.locator('.monaco-list-row', { hasText: 'checkpoints' }).first().waitFor({ state: 'visible' });
    const tree = await wb.screenshot('runs-tree');
    assert.ok(existsSync(tree));
    // The failed run says why (issue 41): its cause in the row, cause and fix in the row's tooltip.
    const failed = runRow(runsPane, 'math_demo_lr_sweep_20260104_1530', 'failed');
    await failed.locator('.label-description', { hasText: 'workflow-exception' }).waitFor({ state: 'visible', timeout: 30_000 });
    const tip = await wb.hoverUntil(failed, 'workflow-exception');
    assert.match(await tip.innerText(), /IndexError: list index out of range[\s\S]*Fix: Open/);
    await wb.screenshot('runs-failed-cause');
    await page.mouse.move(0, 0);

    // Select two runs and open the dashboard for the selection (multi-select overlays them).
    await row('math_demo_20260103_1010').click();
    await row('math_demo_2node_20260105_0900').click({ modifiers: ['Control'] });
    await row('math_demo_lr_sweep_20260104_1530').click({ modifiers: ['Control'] });
    await wb.runCommand('AgentJet: Open Run Dashboard');
    const frame = await wb.webviewFrame('.uplot canvas', 60_000).catch(async (err: unknown) => {
      await wb.screenshot('runs-dashboard-failure');
      throw err;
    });
    const charts = await frame.locator('.uplot').count();
    assert.ok(charts >= 4, `expected reward, success, length and evaluation charts, got ${charts}`);
    const legend = await frame.locator('ul.runs li').allTextContents();
    assert.equal(legend.length, 3, legend.join(' | '));
    assert.ok(legend.some((l) => l.includes('math_demo_2node_20260105_0900')));
    assert.ok(
      legend.some((l) => /math_demo_lr_sweep_20260104_1530\s*failed/.test(l)),
      legend.join(' | '),
    );
    // Its cause and fix in the legend.
    assert.match((await frame.locator('ul.runs li .cause').first().textContent()) ?? '', /^workflow-exception IndexError[\s\S]*Fix: Open/);
    // The failed run's exception record is listed with its time.
    assert.match((await frame.locator('.exceptions h2', { hasText: 'Exceptions' }).textContent()) ?? '', /Exceptions \([1-9]\d*\)/);
    assert.ok((await frame.locator('.exceptions tbody tr').count()) >= 1);
    assert.equal(await frame.locator('select.metric').inputValue(), 'TGC@1');
    const shot = await wb.screenshot('runs-dashboard');
    assert.ok(existsSync(shot));
  } finally {
    await wb.close();
  }
});

test('a run that is being written shows as running, and its dashboard grows while it writes', async () => {
  // Dark theme here, so the screenshots show both themes.
  const wb = await openWorkbench({ settings: { 'workbench.colorTheme': 'Default Dark Modern' } });
  const exp = join(wb.workspace, 'saved_experiments', 'live_ui_20260201_1200');
  const writer = spawn(process.execPath, ['-e', LIVE_WRITER, exp, hostname()], { stdio: ['pipe', 'ignore', 'ignore'] });
  try {
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const row = runRow(runsPane, 'live_ui_20260201_1200', 'running');
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await wb.rowsLoaded(runsPane);
    await wb.contextAction(row, 'Open Run Dashboard');
    const frame = await wb.webviewFrame('ul.runs li', 60_000);
    const steps = async () => Number(/(\d+) steps/.exec((await frame.locator('ul.runs li').first().textContent()) ?? '')?.[1] ?? 0);
    const first = await steps();
    await waitFor(async () => (await steps()) > first, `the dashboard to pass ${first} steps while the run writes`, 30_000, 250);
    await frame.locator('.uplot canvas').first().waitFor({ state: 'visible' });
    await wb.screenshot('runs-dashboard-live');
    writer.stdin!.write('stop\n');
    // The writer removed its lock; nothing shows it completed: "ended" (core/agentjet/status.ts).
    await frame.locator('ul.runs li .status', { hasText: 'ended' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await runRow(runsPane, 'live_ui_20260201_1200', 'ended').waitFor({ state: 'visible', timeout: 30_000 });
  } finally {
    writer.kill('SIGKILL');
    await wb.close();
  }
});

test('a running run that stops writing reads stalled in the Runs view, with the sentence in its tooltip and Show Stacks offered', async () => {
  // Issue 41: the stall limit set low (3 s) and the liveness poll at its minimum, so the row turns
  // within seconds of the writer going quiet; its status stays "running".
  const wb = await openWorkbench({ settings: { 'agentjet.runs.stallMinutes': 0.05, 'agentjet.runs.pollIntervalSeconds': 2 } });
  const exp = join(wb.workspace, 'saved_experiments', 'stall_ui_20260201_1300');
  const writer = spawn(process.execPath, ['-e', LIVE_WRITER, exp, hostname()], { stdio: ['pipe', 'ignore', 'ignore'] });
  try {
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    await runRow(runsPane, 'stall_ui_20260201_1300', 'running').waitFor({ state: 'visible', timeout: 60_000 });
    await wb.rowsLoaded(runsPane);
    writer.stdin!.write('quiet\n');
    const row = runRow(runsPane, 'stall_ui_20260201_1300', 'running');
    await row.locator('.label-description', { hasText: /stalled since \d\d:\d\d/ }).waitFor({ state: 'visible', timeout: 60_000 });
    const tip = await wb.hoverUntil(row, 'stalled since');
    assert.match(await tip.innerText(), /stalled since \d\d:\d\d \(no step for/);
    await wb.screenshot('runs-stalled');
    await page.mouse.move(0, 0);
    // What to do next is one right-click away: where does it wait.
    await row.click({ button: 'right' });
    await page
      .locator('.context-view .monaco-menu .action-label', { hasText: 'Show Stacks' })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    // The menu fades in: shoot it once drawn whole.
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('.context-view, .context-view .monaco-menu-container')).every(
        (e) => getComputedStyle(e).opacity === '1',
      ),
    );
    await wb.screenshot('runs-stalled-menu');
    await page.keyboard.press('Escape');
  } finally {
    writer.stdin!.write('stop\n');
    writer.kill('SIGKILL');
    await wb.close();
  }
});

test('Stop on a live companion ends its process group after the confirmation', async () => {
  const wb = await openWorkbench();
  // A stand-in for the vLLM server the debug backbone leaves running: its own process group.
  const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  const pgid = helper.pid!;
  const groupAlive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    const dir = join(wb.workspace, 'saved_experiments', 'companion_logs', 'companion');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `external_vllm_server.abc123.${hostname()}.log`), 'INFO:     Uvicorn running on http://0.0.0.0:18000\n');
    writeFileSync(join(dir, `external_vllm_server.abc123.${hostname()}.pgid`), `${pgid}\n`);
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Companions' }) }).first();
    const live = pane.locator('.monaco-list-row', { hasText: /external_vllm_server.*running/ }).first();
    await live.waitFor({ state: 'visible', timeout: 60_000 });
    await wb.contextAction(live, 'Stop Companion');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', new RegExp(`process group ${pgid}`));
    await wb.screenshot('companions-stop-confirm');
    await dialog.locator('.monaco-button', { hasText: /^Stop$/ }).click();
    await pane
      .locator('.monaco-list-row', { hasText: /external_vllm_server.*stopped/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(groupAlive(), false);
  } finally {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* stopped by the test */
    }
    await wb.close();
  }
});

test('a dashboard comes back with its runs after the window reloads', async () => {
  const wb = await openWorkbench();
  try {
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const row = runRow(runsPane, 'math_demo_20260103_1010', 'finished');
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await wb.rowsLoaded(runsPane);
    await wb.contextAction(row, 'Open Run Dashboard');
    await wb.webviewFrame('.uplot canvas', 60_000);
    await wb.runCommand('Developer: Reload Window');
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 60_000 });
    await page
      .locator('.tabs-container .tab', { hasText: 'Run: math_demo_20260103_1010' })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    const frame = await wb.webviewFrame('.uplot canvas', 60_000);
    const legend = await frame.locator('ul.runs li').allTextContents();
    assert.equal(legend.length, 1);
    assert.match(legend[0]!, /math_demo_20260103_1010/);
    await wb.screenshot('runs-dashboard-restored');
  } finally {
    await wb.close();
  }
});

test('Delete Run asks first, then removes the run folder and its row', async (t) => {
  const wb = await openWorkbench();
  try {
    const { page } = wb;
    const exp = join(wb.workspace, 'saved_experiments', 'math_demo_lr_sweep_20260104_1530');
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    const row = runRow(runsPane, 'math_demo_lr_sweep_20260104_1530', 'failed');
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await wb.rowsLoaded(runsPane);
    await wb.contextAction(row, 'Delete Run');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', /Checkpoints under saved_checkpoints are kept/);
    await wb.screenshot('runs-delete-confirm');
    await dialog.locator('.monaco-button', { hasText: 'Move to Trash' }).click();
    // Where the file system has no trash (a server without one), a second question offers a permanent delete.
    let permanently = false;
    await waitFor(
      async () => {
        if (!existsSync(exp)) return true;
        const permanent = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Delete Permanently' });
        if (await permanent.count()) {
          await permanent.first().click();
          permanently = true;
        }
        return false;
      },
      'the run folder to be deleted',
      30_000,
      200,
    );
    t.diagnostic(permanently ? 'no trash on this server: deleted permanently after the second confirmation' : 'moved to the trash');
    await runRow(runsPane, 'math_demo_lr_sweep_20260104_1530').waitFor({ state: 'detached', timeout: 30_000 });
    assert.ok(existsSync(join(wb.workspace, 'saved_experiments', 'math_demo_20260103_1010')), 'other runs stay');
  } finally {
    await wb.close();
  }
});
