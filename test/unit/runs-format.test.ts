// Words and numbers of the Runs tree, its tooltips and the CLI (issue 15 items 7, 9, 10).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describeRun, formatReward, runRowLabel, mdCode, plural, runSummary, runTooltip, STATUSES } from '../../core/runs/format';
import { setLocale } from '../../core/l10n';
import type { ExperimentInfo } from '../../core/runs/discover';

test('one reward format: three decimals, decimal rounding (0.375, 0.275 twice, 0 and 1 alike)', () => {
  assert.equal(formatReward(0.375), '0.375');
  assert.equal(formatReward(0.275), '0.275');
  assert.equal(formatReward(0.2755), '0.276', 'half rounds away from zero on the written decimal');
  assert.equal(formatReward(1.0005), '1.001');
  assert.equal(formatReward(0.9995), '1.000');
  assert.equal(formatReward(0), '0.000');
  assert.equal(formatReward(1), '1.000');
  assert.equal(formatReward(-0.5), '-0.500');
  assert.equal(formatReward(-0.0001), '0.000', 'no negative zero');
  assert.equal(formatReward(1e-9), '0.000');
  assert.equal(formatReward(Number.NaN), 'NaN');
});

test('plurals', () => {
  assert.equal(plural(1, 'exception'), '1 exception');
  assert.equal(plural(2, 'exception'), '2 exceptions');
  assert.equal(plural(0, 'process', 'processes'), '0 processes');
});

test('paths in tooltips are code spans without Markdown escapes; backticks in a path get a longer fence', () => {
  assert.equal(mdCode('/ws-runs/saved_experiments/a_b'), '`/ws-runs/saved_experiments/a_b`');
  assert.equal(mdCode('/a`b'), '``/a`b``');
  assert.equal(mdCode('`x'), '`` `x ``');
});

const info = (over: Partial<ExperimentInfo> = {}): ExperimentInfo => ({
  entry: {
    name: 'math_agent_20260105_0900',
    path: '/ws-runs/saved_experiments/math_agent_20260105_0900',
    root: '/ws-runs/saved_experiments',
    sessions: ['2026_01_05_09_00'],
    timeMs: 0,
  },
  status: 'ended',
  evidence: [
    { kind: 'files', text: 'no lock: the process exited' },
    { kind: 'notes', text: '1 harmless note', file: '/ws-runs/saved_experiments/x/exception/exception.json.log' },
  ],
  sessions: [{ name: '2026_01_05_09_00', path: '/p', hosts: [], status: 'ended' }],
  hosts: ['gpu-node-0'],
  checkpoints: [],
  exceptionCount: 1,
  noteCount: 1,
  latestStep: 3,
  latestReward: 0.375,
  ...over,
});

test('the description is the status word alone (issue 23: "run…" at the default sidebar width); step and reward lead the tooltip', () => {
  assert.equal(describeRun(info()), 'ended');
  assert.equal(runSummary(info()), 'ended · step 3 · reward 0.375');
  assert.ok(runTooltip(info(), undefined, 0).includes('ended · step 3 · reward 0.375 · '));
  // Every status word is short in both languages: a long experiment name still leaves room for it.
  for (const lang of ['en', 'zh-cn'] as const) {
    setLocale(lang);
    try {
      for (const s of STATUSES) {
        const w = describeRun(info({ status: s }));
        const cells = [...w].reduce((n, ch) => n + (/[\u2e80-\u9fff]/.test(ch) ? 2 : 1), 0);
        assert.ok(cells <= 11, `${lang} ${s}: "${w}" is ${cells} cells`);
      }
    } finally {
      setLocale('en');
    }
  }
});

test('tooltip: status and its evidence first, singular words, plain paths, size labelled when estimated', () => {
  const md = runTooltip(info(), { bytes: 4096, complete: false }, 0);
  const lines = md.split('\n');
  assert.match(lines[0]!, /^\*\*math\\_agent\\_20260105\\_0900\*\*: ended$/);
  assert.match(lines[2]!, /^ended · step 3 · reward 0\.375 · /);
  assert.equal(lines[4], 'Evidence:');
  assert.match(lines[5]!, /no lock/);
  assert.ok(md.includes('(`/ws-runs/saved_experiments/x/exception/exception.json.log`)'), 'evidence file as a plain code span');
  assert.ok(md.includes('- 1 exception\n'), md);
  assert.ok(md.includes('- 1 harmless note'));
  assert.ok(md.includes('- 1 session on gpu-node-0'));
  assert.ok(md.includes('mean reward 0.375'));
  assert.ok(md.includes('at least 4.0 KB on disk (estimate: counting stopped early)'));
  assert.ok(md.endsWith('`/ws-runs/saved_experiments/math_agent_20260105_0900`'));
  assert.ok(!md.includes('\\-runs'), 'no escapes inside code spans');
  assert.ok(runTooltip(info(), { bytes: 4096, complete: true }, 0).includes('- 4.0 KB on disk\n'));
  assert.ok(runTooltip(info({ layout: 'astuner-2025-11', hosts: [] })).includes('this layout has no host folder'));
});

test('success-rate axis: 0..100 % even when every value is 0, with plain percentage ticks', async () => {
  const { yRange, fmtPct } = await import('../../media/dashboard/scale');
  assert.deepEqual(yRange('rate', 0, 0), [0, 1]);
  assert.deepEqual(yRange('rate', 1, 1), [0, 1]);
  assert.deepEqual([0, 0.25, 0.5, 0.75, 1].map(fmtPct), ['0%', '25%', '50%', '75%', '100%']);
  assert.deepEqual(yRange('number', 0, 0), [-1, 1], 'all-zero rewards get a range around zero');
  assert.deepEqual(yRange('number', 2, 2), [1, 3]);
  assert.deepEqual(yRange('number', null, null), [0, 1]);
});

test('number-axis ticks: one precision for all ticks, as fine as their spacing', async () => {
  const { tickLabels } = await import('../../media/dashboard/scale');
  assert.deepEqual(tickLabels([0.35, 0.375, 0.4]), ['0.350', '0.375', '0.400']);
  assert.deepEqual(tickLabels([0.3, 0.35, 0.4, null]), ['0.30', '0.35', '0.40', '']);
  assert.deepEqual(tickLabels([40, 45, 50]), ['40', '45', '50']);
  assert.deepEqual(tickLabels([37.5, 40, 42.5]), ['37.5', '40.0', '42.5']);
  assert.deepEqual(tickLabels([0.5]), ['0.5']);
  assert.deepEqual(tickLabels([1 / 3, 2 / 3]), ['0.333333', '0.666667'], 'at most six decimals');
});

test("size: re-measured when missing, forgotten (files changed, Refresh) or a running run's is old; labelled when a lower bound", async () => {
  const { sizeIsStale } = await import('../../core/runs/artefacts');
  const { formatSize } = await import('../../core/runs/format');
  assert.equal(sizeIsStale(undefined, false, 0), true);
  assert.equal(sizeIsStale({ at: 0 }, false, 10), true, 'forgotten');
  assert.equal(sizeIsStale({ at: 5 }, false, 1e9), false, 'an ended run keeps its size until its files change');
  assert.equal(sizeIsStale({ at: 5 }, true, 5 + 30_000), true);
  assert.equal(sizeIsStale({ at: 5 }, true, 5 + 29_999), false);
  assert.equal(formatSize({ bytes: 4096, complete: true }), '4.0 KB');
  assert.equal(formatSize({ bytes: 4096, complete: false }), '≥ 4.0 KB');
});

test('dashboard words: singular counts; "yet" only for runs that may still write', async () => {
  const { countsText, emptyPanelText, noEvaluationsText } = await import('../../media/dashboard/text');
  assert.equal(countsText(1, 1, 1), '1 step · 1 evaluation · 1 exception');
  assert.equal(countsText(2, 0, 3), '2 steps · 0 evaluations · 3 exceptions');
  assert.equal(emptyPanelText('Success rate per step', ['finished']), 'Success rate per step: nothing recorded.');
  assert.equal(emptyPanelText('Success rate per step', ['ended', 'running']), 'Success rate per step: nothing recorded yet.');
  assert.equal(emptyPanelText('Success rate per step', ['ended']), 'Success rate per step: nothing recorded.');
  assert.equal(noEvaluationsText(['ended']), 'No evaluation tables (evaluation/evaluation.json.log).');
  assert.equal(noEvaluationsText(['running']), 'No evaluation tables yet (evaluation/evaluation.json.log).');
});

test('issue 23 item 3: a Runs row label starts with the status word, then the name', () => {
  assert.equal(runRowLabel(describeRun(info({ status: 'stopped' })), 'math_agent_20261125_0130'), 'stopped · math_agent_20261125_0130');
  assert.ok(runRowLabel('已停止', 'math_agent_20261125_0130').startsWith('已停止 · '));
});

test('run names: AgentJet time stamps go to the description; anything else is kept whole', async () => {
  const { splitRunName } = await import('../../core/runs/format');
  // What AgentJet writes (config_utils.py: %Y%m%d_%H%M%S_%f trimmed to ms; copilot: %Y%m%d-%H%M%S) and older names.
  assert.deepEqual(splitRunName('math_agent_20260528_143012_123'), { base: 'math_agent', stamp: '05-28 14:30:12' });
  assert.deepEqual(splitRunName('job_20260528-143012'), { base: 'job', stamp: '05-28 14:30:12' });
  assert.deepEqual(splitRunName('math_demo_lr_sweep_20260104_1530'), { base: 'math_demo_lr_sweep', stamp: '01-04 15:30' });
  for (const kept of ['math_demo', '20260104_1530', 'exp_20261304_1530', 'exp_20260104_2561', 'exp_v2', 'a_2026010_1530', ''])
    assert.deepEqual(splitRunName(kept), { base: kept }, kept);
  // Property: the base is a prefix of the name, and a stamped name is the base plus a separator and 8+4 digits or more.
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (name) => {
      const { base, stamp } = splitRunName(name);
      assert.ok(name.startsWith(base));
      if (stamp === undefined) assert.equal(base, name);
      else {
        assert.match(name.slice(base.length), /^[_-]\d{8}[_-]\d{4}/);
        assert.ok(base.length > 0);
      }
    }),
  );
});
