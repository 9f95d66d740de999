// Words and numbers of the Runs tree, its tooltips and the CLI (issue 15 items 7, 9, 10).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRun, formatReward, mdCode, plural, runTooltip } from '../../core/runs/format';
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
  entry: { name: 'math_agent_20260105_0900', path: '/ws-runs/saved_experiments/math_agent_20260105_0900', root: '/ws-runs/saved_experiments', sessions: ['2026_01_05_09_00'], timeMs: 0 },
  status: 'ended', evidence: [{ kind: 'files', text: 'no lock: the process exited' }, { kind: 'notes', text: '1 harmless note', file: '/ws-runs/saved_experiments/x/exception/exception.json.log' }],
  sessions: [{ name: '2026_01_05_09_00', path: '/p', hosts: [], status: 'ended' }], hosts: ['gpu-node-0'], checkpoints: [], exceptionCount: 1, noteCount: 1, latestStep: 3, latestReward: 0.375, ...over,
});

test('status first in the description, the same reward format as the tooltip and the CLI', () => {
  assert.equal(describeRun(info()), 'ended · step 3 · reward 0.375');
});

test('tooltip: status and its evidence first, singular words, plain paths, size labelled when estimated', () => {
  const md = runTooltip(info(), { bytes: 4096, complete: false }, 0);
  const lines = md.split('\n');
  assert.match(lines[0]!, /^\*\*math\\_agent\\_20260105\\_0900\*\*: ended$/);
  assert.equal(lines[2], 'Evidence:');
  assert.match(lines[3]!, /no lock/);
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
