// The run dashboard's training metrics in the real workbench: a run whose trainer wrote TensorBoard
// event files (written here by tensorboardX from the tests' Python, where verl's tracking puts them:
// tensorboard_log/<project>/<experiment>/) shows its keys grouped by prefix, a chart of a training
// key, and the phase timeline of its `timing_s/*` keys with the slowest phase named. A restart
// writing a second event file while the dashboard is open reaches it without a reopen (the
// watcher on the TensorBoard folder, reading only what was appended), and a 100,000-point key in
// it draws a few points per pixel column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { ensureTestPython, moduleVersion } from '../harness/python';
import { demoWorkspace } from '../util/demoWorkspace';
import { runRow } from '../util/runRow';
import { skipForEnvironment } from '../util/envSkip';
import { waitFor } from '../util/poll';

const RUN = 'math_demo_20260103_1010';
/** A second run of the demo, overlaid through "Add runs…". */
const OTHER = 'math_demo_lr_sweep_20260104_1530';

// write DIR FIRST LAST LONG SLOW: steps FIRST..LAST-1 of a verl-like trainer (gen takes 70% of
// each step; with SLOW=1 its score rises more slowly), then LONG points of one more key.
const SCRIPT = String.raw`
import math, sys
from tensorboardX import SummaryWriter
d, first, last, long, slow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == '1'
w = SummaryWriter(d, filename_suffix='.run%d' % first)
for s in range(first, last):
    w.add_scalar('critic/score/mean', 0.2 + 0.6 * (1 - math.exp(-s / (60 if slow else 25))) + 0.05 * math.sin(s), s)
    w.add_scalar('actor/pg_loss', 0.3 * math.exp(-s / 30) * math.cos(s / 3), s)
    w.add_scalar('actor/entropy', 1.2 - s * 0.008, s)
    w.add_scalar('response_length/mean', 300 + 2 * s, s)
    # Steps of 80 to 120 s; every phase a fixed share of its step (gen 70%, 3% untimed).
    step = 100.0 + 20.0 * math.sin(s / 6)
    for phase, share in [('gen', 0.70), ('reward', 0.05), ('old_log_prob', 0.06), ('adv', 0.01), ('update_actor', 0.15)]:
        w.add_scalar('timing_s/' + phase, share * step, s)
    w.add_scalar('timing_s/step', step, s)
    w.add_scalar('perf/throughput', 1500.0 + s, s)
    w.add_scalar('perf/max_memory_allocated_gb', 38.5, s)
    if s % 10 == 0:
        w.add_scalar('val-core/math/acc@1', 0.3 + s / 200, s)
if long:
    # A long key after the last step (steps never go back, so TensorBoard purges nothing).
    for i in range(long):
        w.add_scalar('actor/grad_norm', 1000.0 if i == 61234 else math.sin(i / 700) + (i % 13) / 26, last + i)
w.close()
`;

/** A copy of the demo and a writer of its runs' TensorBoard files (where verl's tracking puts them). */
function eventsWorkspace(python: string) {
  const { dir, workspace } = demoWorkspace('agentjet-ui-metrics-');
  const script = join(dir, 'write_events.py');
  writeFileSync(script, SCRIPT);
  const write = (first: number, last: number, long = 0, run = RUN) => {
    const events = join(workspace, 'tensorboard_log', 'math_demo', run);
    const r = spawnSync(python, [script, events, String(first), String(last), String(long), run === RUN ? '0' : '1'], {
      encoding: 'utf8',
      timeout: 180_000,
    });
    assert.equal(r.status, 0, r.stderr);
  };
  return { dir, workspace, write };
}

test('a run with TensorBoard event files: its dashboard shows a training key and the phase timeline, and follows a restart, overlays a second run (screenshot)', async (t) => {
  const { python } = ensureTestPython();
  if (skipForEnvironment(t, moduleVersion(python, 'tensorboardX') ? undefined : "the tests' Python lacks tensorboardX")) return;
  const { dir, workspace, write } = eventsWorkspace(python);
  write(0, 60);
  write(0, 40, 0, OTHER);
  const wb = await openWorkbench({ workspace });
  try {
    const { page } = wb;
    await wb.activityItem('AgentJet').click();
    const runsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) }).first();
    await wb.rowsLoaded(runsPane);
    const row = runRow(runsPane, RUN);
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await wb.contextAction(row, 'Open Run Dashboard');
    const frame = await wb.webviewFrame('section.metrics .metric-card .uplot', 90_000);
    const metrics = frame.locator('section.metrics');
    // The keys, grouped by prefix, critic first; the chart of the first training key.
    assert.deepEqual(await metrics.locator('.keys details summary').allTextContents(), [
      'critic/ 1',
      'actor/ 2',
      'val-core/ 1',
      'response_length/ 1',
      'timing_s/ 6',
      'perf/ 2',
    ]);
    const card = metrics.locator('.metric-card', { hasText: 'critic/score/mean' });
    await card.locator('.uplot canvas').first().waitFor({ state: 'visible' });
    assert.equal(await card.locator('.metric-chart').getAttribute('data-points'), '60');
    // The phase timeline: 60 bars, gen named as the slowest phase with its share.
    const summary = metrics.locator('.phase-summary');
    assert.match((await summary.textContent()) ?? '', /^gen takes 70% of a step \(mean step \d+(\.\d)? s over 60 steps\)\.$/);
    assert.equal(await metrics.locator('.phase-bars g').count(), 60);
    assert.deepEqual(await metrics.locator('.phase-legend li').allTextContents(), [
      'gen 70%',
      'update_actor 15%',
      'old_log_prob 6.0%',
      'reward 5.0%',
      'adv 1.0%',
      'other (not timed) 3.0%',
    ]);
    assert.ok((await metrics.locator('table.perf').textContent())?.includes('perf/throughput'));
    // Search narrows the list; pinning a key adds its chart.
    await metrics.locator('input.metric-search').fill('entropy');
    await metrics.locator('.keys .key').first().waitFor({ state: 'visible' });
    assert.deepEqual(await metrics.locator('.keys .key button.name').allTextContents(), ['entropy']);
    await metrics.locator('.keys .key button.pin').first().click();
    await metrics.locator('.metric-card', { hasText: 'actor/entropy' }).locator('.uplot').waitFor({ state: 'visible', timeout: 30_000 });
    await metrics.locator('input.metric-search').fill('');
    // A restart writes a second event file: the open dashboard follows it.
    // It also holds a 100,000-point key: drawn with a few points per pixel column, not 100,000.
    write(60, 80, 100_000);
    await summary.filter({ hasText: 'over 80 steps' }).waitFor({ state: 'visible', timeout: 60_000 });
    await card.locator('.metric-chart[data-points="80"]').waitFor({ state: 'attached', timeout: 30_000 });
    await metrics.locator('.keys .key button.name', { hasText: 'grad_norm' }).click();
    const long = metrics.locator('.metric-card', { hasText: 'actor/grad_norm' }).locator('.metric-chart[data-points="100000"]');
    await long.locator('.uplot canvas').first().waitFor({ state: 'visible', timeout: 60_000 });
    const drawn = Number(await long.getAttribute('data-drawn'));
    const columns = await long.evaluate((e) => Math.round(e.clientWidth * devicePixelRatio));
    assert.ok(drawn > 0 && drawn <= 8 * columns + 2, `${drawn} points drawn for ${columns} pixel columns`);
    await long.evaluate((e) => e.scrollIntoView({ block: 'center' }));
    await wb.screenshot('dashboard-metrics-100k');
    await metrics.locator('.keys .key button.name', { hasText: 'score/mean' }).click();
    // Another run, picked with "Add runs…": overlaid on every key, in its own colour.
    await frame.locator('button.add').click();
    const input = page.locator('.quick-input-widget input').first();
    await input.waitFor({ state: 'visible' });
    await input.fill('lr_sweep');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: OTHER }).first().click();
    await page.keyboard.press('Enter');
    await card.locator('.metric-chart[data-points="120"]').waitFor({ state: 'attached', timeout: 60_000 });
    // The legend names the runs (the faint raw lines behind the smoothed ones are left out of it).
    assert.deepEqual((await card.locator('.u-legend .u-series:not(.raw) .u-label').allTextContents()).slice(1), [RUN, OTHER]);
    await metrics.locator('.phase-run').nth(1).waitFor({ state: 'visible' });
    await metrics.locator('h2').evaluate((h) => h.scrollIntoView({ block: 'start' }));
    await wb.screenshot('dashboard-metrics');
    await metrics.locator('.phases').evaluate((p) => p.scrollIntoView({ block: 'start' }));
    await wb.screenshot('dashboard-phases');
    // Export: CSV holds every point of both runs, PNG is a PNG (saved where the dialog proposes).
    for (const [button, file] of [
      ['csv', 'critic_score_mean.csv'],
      ['png', 'critic_score_mean.png'],
    ] as const) {
      await card.locator(`button.${button}`).click();
      const path = page.locator('.quick-input-widget input').first();
      await path.waitFor({ state: 'visible' });
      await waitFor(async () => (await path.inputValue()).endsWith(file), `the save dialog proposes ${file}`, 10_000);
      await page.keyboard.press('Enter');
      await waitFor(() => existsSync(join(wb.workspace, file)) && statSync(join(wb.workspace, file)).size > 0, `${file} is saved`, 30_000);
    }
    const csv = readFileSync(join(wb.workspace, 'critic_score_mean.csv'), 'utf8').trim().split('\n');
    assert.equal(csv[0], 'run,step,wall_time,value,smoothed');
    assert.equal(csv.length, 1 + 80 + 40);
    assert.deepEqual(
      readFileSync(join(wb.workspace, 'critic_score_mean.png')).subarray(0, 8),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]),
    );
  } catch (err) {
    await wb.screenshot('dashboard-metrics-failure');
    throw err;
  } finally {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('in zh-CN the training metrics and the phase timeline speak Chinese (screenshot)', async (t) => {
  const { python } = ensureTestPython();
  if (skipForEnvironment(t, moduleVersion(python, 'tensorboardX') ? undefined : "the tests' Python lacks tensorboardX")) return;
  const { dir, workspace, write } = eventsWorkspace(python);
  write(0, 30);
  const wb = await openWorkbench({ locale: 'zh-CN', workspace });
  try {
    const { page } = wb;
    // Open Run Dashboard from the command palette before any AgentJet view was opened (the Runs view
    // used to configure the roots on its first load: the picker then listed nothing), the run picked
    // in the list it offers. The run picker replaces the command palette: tick the run's row, accept.
    const picker = page.locator('.quick-input-widget', { hasText: '要在仪表板上显示的运行' }).first();
    const runRowInPicker = picker.locator('.quick-input-list .monaco-list-row', { hasText: RUN }).first();
    // Remote extensions are scanned after the workbench shows: the palette lists ours once its
    // activity bar entry is drawn (seen, not clicked: the Runs view stays unopened).
    await wb.activityItem('AgentJet').waitFor({ state: 'visible', timeout: 60_000 });
    await wb.runCommand('打开运行仪表板');
    await picker.waitFor({ state: 'visible', timeout: 60_000 });
    await runRowInPicker.waitFor({ state: 'visible', timeout: 30_000 });
    await runRowInPicker.click();
    await page.keyboard.press('Enter');
    const frame = await wb.webviewFrame('section.metrics .metric-card .uplot', 90_000);
    const metrics = frame.locator('section.metrics');
    assert.equal(await metrics.locator('h2').textContent(), '训练指标');
    assert.match(
      (await metrics.locator('.phase-summary').textContent()) ?? '',
      /^gen 占一步时间的 70%（共 30 步，平均每步 \d+(\.\d+)? 秒）。$/,
    );
    assert.equal(await metrics.locator('input.metric-search').getAttribute('placeholder'), '搜索指标');
    assert.equal(await metrics.locator('table.perf caption').textContent(), '吞吐量与内存（perf/*）');
    await metrics.locator('h2').evaluate((h) => h.scrollIntoView({ block: 'start' }));
    await wb.screenshot('dashboard-metrics-zh-cn');
  } catch (err) {
    await wb.screenshot('dashboard-metrics-zh-cn-failure');
    throw err;
  } finally {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
