// Comparing runs: `agentjet compare` and the agents' agentjet_compare_runs over one core function
// (core/metrics/compare): config differences from the snapshots, the keys that matter with their
// final, best and common-step values, which run is ahead, the curves summarised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../util/cliRun';
import { writeCompareRuns } from '../gen/compare';
import { compareKey, flattenConfig, lowerIsBetter, type CompareRun } from '../../core/metrics/compare';
import { callTool } from '../../core/agents/tools';

function two() {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'aj-compare-')));
  const [a, b] = writeCompareRuns(ws, [
    { name: 'exp_a', lr: 1e-6, steps: 10, reward: (s) => s / 8, loss: (s) => (11 - s) / 4, valEvery: 5 },
    { name: 'exp_b', lr: 2e-6, steps: 6, reward: (s) => (s <= 3 ? s / 4 : 0.5), loss: () => 2, valEvery: 3 },
  ]);
  return { ws, a: a!, b: b!, done: () => rmSync(ws, { recursive: true, force: true }) };
}

interface CliOut {
  runs: { name: string; keys: number; sources: { kind: string }[] }[];
  config: { key: string; values: unknown[] }[];
  metrics: Record<
    string,
    {
      better: string;
      ahead?: { final: string; best: string };
      atStep?: number;
      valuesAtStep?: (number | null)[];
      runs: ({
        final: { step: number; value: number };
        best: { step: number; value: number };
        trend: string;
        curve: [number, number][];
      } | null)[];
    }
  >;
}

test('agentjet compare: config differences, the reward and val-core keys (and --key) with final, best, common step and who is ahead', async () => {
  const r = two();
  try {
    const out = await runCli('compare', [r.a, r.b, '--key', 'actor/pg_loss', '--format', 'json'], { TENSORBOARD_DIR: undefined });
    assert.equal(out.code, 0, out.err);
    const j = JSON.parse(out.out) as CliOut;
    assert.deepEqual(
      j.runs.map((x) => [x.name, x.keys, x.sources.map((s) => s.kind)]),
      [
        ['exp_a', 3, ['tensorboard']],
        ['exp_b', 3, ['tensorboard']],
      ],
    );
    assert.deepEqual(j.config, [
      { key: 'ajet.experiment_name', values: ['exp_a', 'exp_b'] },
      { key: 'ajet.trainer_common.optim.lr', values: [1e-6, 2e-6] },
    ]);
    assert.deepEqual(Object.keys(j.metrics), ['critic/rewards/mean', 'val-core/acc', 'actor/pg_loss']);
    const reward = j.metrics['critic/rewards/mean']!;
    assert.equal(reward.better, 'higher');
    assert.equal(reward.atStep, 6);
    assert.deepEqual(reward.valuesAtStep, [0.75, 0.5]);
    assert.deepEqual(reward.ahead, { final: 'exp_a', best: 'exp_a' });
    assert.deepEqual(reward.runs[0]!.final, { step: 10, value: 1.25 });
    assert.deepEqual(reward.runs[1]!.best, { step: 3, value: 0.75 });
    assert.equal(reward.runs[0]!.trend, 'rising');
    assert.ok(reward.runs[0]!.curve.length <= 8 && reward.runs[0]!.curve[0]![0] === 1);
    assert.deepEqual(j.metrics['val-core/acc']!.valuesAtStep, [0.3125, 0.25]);
    const loss = j.metrics['actor/pg_loss']!;
    assert.equal(loss.better, 'lower');
    assert.deepEqual(loss.ahead, { final: 'exp_a', best: 'exp_a' });
    assert.deepEqual(loss.runs[0]!.best, { step: 10, value: 0.25 });

    const txt = await runCli('compare', [r.a, r.b]);
    assert.equal(txt.code, 0, txt.err);
    assert.match(
      txt.out,
      /CONFIG: 2 keys differ\n {2}ajet\.experiment_name: exp_a \| exp_b\n {2}ajet\.trainer_common\.optim\.lr: 0\.000001 \| 0\.000002/,
    );
    assert.match(txt.out, /critic\/rewards\/mean {2}\(higher is better; at step 6: 0\.75 \| 0\.5; ahead: exp_a\)/);
    assert.match(txt.out, /exp_b {2}final 0\.5 @6 {2}best 0\.75 @3 {2}rising, 6 points/);

    assert.equal((await runCli('compare', [r.a])).code, 2);
    const nokey = await runCli('compare', [r.a, r.b, '--key', 'no/such']);
    assert.equal(nokey.code, 1);
    assert.match(nokey.err, /no run has the key: no\/such/);
    assert.match((await runCli('compare', [r.a, join(r.ws, 'nope')])).err, /no such file or folder/);
  } finally {
    r.done();
  }
});

test('agentjet_compare_runs: the same comparison for an agent, paths inside the roots, arguments checked', async () => {
  const r = two();
  try {
    const env = { roots: [r.ws], mayRunPython: false };
    const ans = await callTool(
      'agentjet_compare_runs',
      { paths: ['saved_experiments/exp_a', 'saved_experiments/exp_b'], keys: ['actor/pg_loss'] },
      env,
    );
    assert.equal(ans.isError, false, ans.text);
    const j = JSON.parse(ans.text) as {
      runs: { name: string; path: string; lastStep: number }[];
      config: { differing: number; differences: Record<string, unknown[]> };
      metrics: Record<
        string,
        { ahead?: { final: string }; atStep?: number; runs: ({ final: [number, number]; best: [number, number] } | null)[] }
      >;
    };
    assert.deepEqual(
      j.runs.map((x) => [x.name, x.path, x.lastStep]),
      [
        ['exp_a', 'saved_experiments/exp_a', 10],
        ['exp_b', 'saved_experiments/exp_b', 6],
      ],
    );
    assert.deepEqual(j.config.differences, { 'ajet.experiment_name': ['exp_a', 'exp_b'], 'ajet.trainer_common.optim.lr': [1e-6, 2e-6] });
    assert.deepEqual(j.metrics['critic/rewards/mean']!.runs[1], {
      ...j.metrics['critic/rewards/mean']!.runs[1],
      final: [6, 0.5],
      best: [3, 0.75],
    });
    assert.equal(j.metrics['actor/pg_loss']!.ahead?.final, 'exp_a');
    // The same run twice: names made distinct, nothing differs.
    const same = JSON.parse((await callTool('agentjet_compare_runs', { paths: ['saved_experiments/exp_a', r.a] }, env)).text) as typeof j;
    assert.deepEqual(
      same.runs.map((x) => x.name),
      ['exp_a#1', 'exp_a#2'],
    );
    assert.equal(same.config.differing, 0);
    // Checked arguments, refused paths.
    assert.match((await callTool('agentjet_compare_runs', { paths: ['saved_experiments/exp_a'] }, env)).text, /needs at least 2 items/);
    assert.match((await callTool('agentjet_compare_runs', { paths: 'saved_experiments/exp_a' }, env)).text, /must be a list of strings/);
    assert.match((await callTool('agentjet_compare_runs', { paths: ['/', r.a] }, env)).text, /outside the folder this server may read/);
    assert.match((await callTool('agentjet_compare_runs', { paths: [r.a, r.b], keys: ['nope'] }, env)).text, /no run has the key: nope/);
    // A run without a snapshot, another without metrics: said, not failed.
    mkdirSync(join(r.ws, 'bare'));
    writeFileSync(join(r.ws, 'bare', 'notes.txt'), 'nothing logged here');
    const bare = await callTool('agentjet_compare_runs', { paths: [r.a, 'bare'] }, env);
    assert.equal(bare.isError, false, bare.text);
    assert.match(bare.text, /no config snapshot \(yaml_backup\.yaml\)/);
  } finally {
    r.done();
  }
});

test('compareKey: best is the extreme in the better direction, the common step is the shortest run, values at it come from at or before it', () => {
  const series = fc.array(fc.record({ step: fc.integer({ min: 0, max: 50 }), value: fc.double({ min: -100, max: 100, noNaN: true }) }), {
    minLength: 1,
    maxLength: 40,
  });
  fc.assert(
    fc.property(fc.array(series, { minLength: 2, maxLength: 4 }), fc.boolean(), (runsPts, lower) => {
      const key = lower ? 'actor/pg_loss' : 'critic/rewards/mean';
      const runs: CompareRun[] = runsPts.map((p, i) => {
        const points = [...p].sort((a, b) => a.step - b.step).map((x) => ({ ...x, wallTime: NaN }));
        return {
          name: `r${i}`,
          path: `/r${i}`,
          sources: { tensorboard: [], console: [], swanlab: [], looked: [] },
          series: [{ tag: key, points }],
          issues: 0,
        };
      });
      const c = compareKey(runs, key);
      assert.equal(c.better, lower ? 'lower' : 'higher');
      const step = Math.min(...runs.map((r) => r.series[0]!.points.at(-1)!.step));
      assert.equal(c.atCommonStep?.step, step);
      runs.forEach((r, i) => {
        const vals = r.series[0]!.points.map((p) => p.value);
        assert.equal(c.runs[i]!.best.value, lower ? Math.min(...vals) : Math.max(...vals));
        const at = r.series[0]!.points.filter((p) => p.step <= step);
        assert.equal(c.atCommonStep!.values[i], at.length ? at.at(-1)!.value : null);
      });
    }),
  );
});

test('config flattening: nested keys, lists of values as one leaf, lists of objects by index; bounded depth', () => {
  const m = flattenConfig({ a: { b: 1, c: [1, 2] }, d: [{ e: 'x' }, { e: 'y' }], f: {}, g: null });
  assert.deepEqual(Object.fromEntries(m), { 'a.b': 1, 'a.c': '[1,2]', 'd[0].e': 'x', 'd[1].e': 'y', f: '{}', g: null });
  let deep: Record<string, unknown> = { v: 1 };
  for (let i = 0; i < 500; i++) deep = { n: deep };
  assert.equal(flattenConfig(deep).size, 1);
  assert.equal(lowerIsBetter('timing_s/gen'), true);
  assert.equal(lowerIsBetter('critic/kl'), true);
  assert.equal(lowerIsBetter('val-core/acc'), false);
  assert.equal(lowerIsBetter('actor/grad_norm'), true);
});
