// The metric charts' pure logic (core/metrics/plot.ts, keys.ts, phases.ts, view.ts): TensorBoard's
// smoothing, the per-pixel-column thinning that keeps extremes, several runs on one axis, the CSV,
// grouping and search of keys, the phase timeline of `timing_s/*`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { alignCurves, columnIndices, csvField, metricCsv, runCurve, smoothEma, startTime } from '../../core/metrics/plot';
import { defaultKey, groupKeys, keyMatches } from '../../core/metrics/keys';
import { phaseTimeline } from '../../core/metrics/phases';
import { runMetricsInfo } from '../../core/metrics/view';
import type { MetricPoint, MetricSeries } from '../../core/protocol/metrics';

const pts = (values: readonly number[], wall0 = 1_700_000_000): MetricPoint[] =>
  values.map((value, step) => ({ step, wallTime: wall0 + step * 10, value }));

/** TensorBoard's classic smoothing written out the long way (its data_transformer's definition). */
function reference(values: readonly number[], w: number): number[] {
  if (values.every((v) => v === values[0])) return [...values];
  const out: number[] = [];
  let last = 0;
  let n = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) {
      out.push(v);
      continue;
    }
    last = last * w + (1 - w) * v;
    n++;
    out.push(last / (w === 1 ? 1 : 1 - Math.pow(w, n)));
  }
  return out;
}

test("smoothing is TensorBoard's debiased EMA: first value kept, NaN passes through, constant series untouched", () => {
  assert.deepEqual(smoothEma([4, 4, 4], 0.9), [4, 4, 4]);
  assert.deepEqual(smoothEma([1, 2, 3], 0), [1, 2, 3]);
  const s = smoothEma([10, 0], 0.6);
  assert.equal(s[0], 10); // debiased: the first value is itself, not 0.4 * 10
  assert.ok(Math.abs(s[1]! - (0.6 * 0.4 * 10) / (1 - 0.36)) < 1e-12);
  const withNaN = smoothEma([1, NaN, 3, Infinity, 5], 0.5);
  assert.ok(Number.isNaN(withNaN[1]!));
  assert.equal(withNaN[3], Infinity);
  // NaN does not count: the value after it is smoothed as if it were the second.
  assert.deepEqual([withNaN[0], withNaN[2]], smoothEma([1, 3], 0.5));
  assert.deepEqual(smoothEma([1, 2], Number.NaN), [1, 2]);
});

test("property: smoothing equals the reference, stays within the finite values' range, and keeps the length", () => {
  const value = fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constant(NaN), fc.constant(Infinity));
  fc.assert(
    fc.property(fc.array(value, { maxLength: 200 }), fc.double({ min: 0, max: 0.999, noNaN: true }), (values, w) => {
      const got = smoothEma(values, w);
      const want = reference(values, w);
      assert.equal(got.length, values.length);
      const finite = values.filter(Number.isFinite);
      const lo = Math.min(...finite);
      const hi = Math.max(...finite);
      got.forEach((g, i) => {
        if (!Number.isFinite(want[i]!)) return assert.ok(Object.is(g, want[i]) || (Number.isNaN(g) && Number.isNaN(want[i]!)));
        assert.ok(Math.abs(g - want[i]!) <= 1e-9 * Math.max(1, Math.abs(want[i]!)), `${g} vs ${want[i]}`);
        assert.ok(g >= lo - 1e-6 * Math.max(1, Math.abs(lo)) && g <= hi + 1e-6 * Math.max(1, Math.abs(hi)), `${g} outside [${lo}, ${hi}]`);
      });
    }),
  );
});

test("property: thinning per pixel column keeps each column's first, last, lowest and highest point, in order, bounded", () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 1, maxLength: 3000 }),
      fc.integer({ min: 1, max: 200 }),
      (ys, columns) => {
        const xs = ys.map((_, i) => i);
        const idx = columnIndices(xs, [ys], columns, 0, xs.length - 1);
        assert.ok(
          idx.length <= Math.max(4 * columns, ys.length > 4 * columns ? 0 : ys.length) + 2,
          `${idx.length} points for ${columns} columns`,
        );
        for (let i = 1; i < idx.length; i++) assert.ok(idx[i]! > idx[i - 1]!, 'strictly increasing');
        assert.equal(idx[0], 0);
        assert.equal(idx[idx.length - 1], ys.length - 1);
        // The drawn line reaches the global extremes, and each column's extremes.
        const kept = idx.map((i) => ys[i]!);
        assert.equal(Math.min(...kept), Math.min(...ys));
        assert.equal(Math.max(...kept), Math.max(...ys));
        if (ys.length > 4 * columns) {
          const width = (xs.length - 1) / columns;
          const col = (x: number) => Math.max(0, Math.min(columns - 1, Math.floor(x / width)));
          for (let c = 0; c < columns; c++) {
            const inCol = ys.filter((_, i) => col(i) === c);
            if (!inCol.length) continue;
            const keptCol = idx.filter((i) => col(i) === c).map((i) => ys[i]!);
            assert.equal(Math.min(...keptCol), Math.min(...inCol));
            assert.equal(Math.max(...keptCol), Math.max(...inCol));
          }
        }
      },
    ),
  );
});

test('a 100,000-point series is drawn with at most 4 points per pixel column, its spike kept', () => {
  const values = Array.from({ length: 100_000 }, (_, i) => Math.sin(i / 500));
  values[61_234] = 50;
  values[7_777] = -50;
  const c = runCurve(pts(values), { axis: 'step', smoothing: 0.6, width: 800 });
  assert.equal(c.total, 100_000);
  assert.ok(c.x.length <= 4 * 800 * 2 + 2, `${c.x.length} points`); // raw and smoothed extremes
  assert.ok(c.x.includes(61_234) && c.x.includes(7_777));
  assert.equal(Math.max(...c.raw), 50);
  assert.equal(Math.min(...c.raw), -50);
  // Zoomed into [60000, 62000]: that range gets the columns, one point each side enters the plot.
  const z = runCurve(pts(values), { axis: 'step', smoothing: 0, width: 100, xMin: 60_000, xMax: 62_000 });
  assert.equal(z.x[0], 59_999);
  assert.equal(z.x[z.x.length - 1], 62_001);
  assert.ok(z.x.includes(61_234));
});

test('a NaN in a column is kept (shown as a gap), and the axes: step, wall time, hours since the start', () => {
  const values = Array.from({ length: 1000 }, (_, i) => i);
  values[500] = NaN;
  const idx = columnIndices(
    values.map((_, i) => i),
    [values],
    10,
    0,
    999,
  );
  assert.ok(idx.includes(500));
  const p = pts([1, 2, 3]);
  assert.equal(startTime(p), 1_700_000_000);
  assert.deepEqual(runCurve(p, { axis: 'wall', smoothing: 0, width: 100 }).x, [1_700_000_000, 1_700_000_010, 1_700_000_020]);
  assert.deepEqual(runCurve(p, { axis: 'relative', smoothing: 0, width: 100 }).x, [0, 10 / 3600, 20 / 3600]);
  // Console points have no wall time: none on a time axis, all on the step axis.
  const consolePts = [1, 2].map((value, step) => ({ step, value, wallTime: NaN }));
  assert.equal(runCurve(consolePts, { axis: 'wall', smoothing: 0, width: 10 }).x.length, 0);
  assert.equal(runCurve(consolePts, { axis: 'step', smoothing: 0, width: 10 }).x.length, 2);
});

test('several runs on one key: aligned on the union of steps, gaps are null, NaN counted and sent as null', () => {
  const a = pts([1, 2, 3]);
  const b = [
    { step: 1, wallTime: 5, value: 10 },
    { step: 3, wallTime: 6, value: NaN },
    { step: 4, wallTime: 7, value: 30 },
  ];
  const plot = alignCurves('actor/pg_loss', { axis: 'step', smoothing: 0, width: 100 }, [
    { run: '/r/a', label: 'a', points: a },
    { run: '/r/b', label: 'b', points: b },
  ]);
  assert.deepEqual(plot.x, [0, 1, 2, 3, 4]);
  assert.deepEqual(plot.series[0]!.raw, [1, 2, 3, null, null]);
  assert.deepEqual(plot.series[1]!.raw, [null, 10, null, null, 30]);
  assert.equal(plot.series[0]!.smooth, undefined);
  assert.equal(plot.nonFinite, 1);
  assert.doesNotThrow(() => JSON.stringify(plot));
  const smoothed = alignCurves('k', { axis: 'step', smoothing: 0.5, width: 100 }, [{ run: '/r/a', label: 'a', points: a }]);
  assert.deepEqual(smoothed.series[0]!.smooth, smoothEma([1, 2, 3], 0.5));
});

test('CSV: every point of every run, quoted where needed, formulas defused', () => {
  assert.equal(csvField('=cmd()'), "'=cmd()");
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField(NaN), '');
  assert.equal(csvField(-Infinity), '-inf');
  const csv = metricCsv([{ label: 'run,1', points: [{ step: 3, wallTime: 1.5, value: 0.25 }] }], 0);
  assert.equal(csv, 'run,step,wall_time,value,smoothed\n"run,1",3,1.5,0.25,0.25\n');
});

test("keys are grouped by prefix in verl's order and searched by words", () => {
  const tags = [
    'zeta',
    'perf/throughput',
    'actor/pg_loss',
    'timing_s/gen',
    'actor/entropy',
    'critic/score/mean',
    'custom/x',
    'val-core/gsm8k/acc@1',
  ];
  assert.deepEqual(groupKeys(tags), [
    { name: 'critic', keys: ['critic/score/mean'] },
    { name: 'actor', keys: ['actor/entropy', 'actor/pg_loss'] },
    { name: 'val-core', keys: ['val-core/gsm8k/acc@1'] },
    { name: 'timing_s', keys: ['timing_s/gen'] },
    { name: 'perf', keys: ['perf/throughput'] },
    { name: 'custom', keys: ['custom/x'] },
    { name: '', keys: ['zeta'] },
  ]);
  assert.ok(keyMatches('actor/pg_loss', 'PG actor'));
  assert.ok(!keyMatches('actor/pg_loss', 'actor kl'));
  assert.ok(keyMatches('anything', '  '));
  assert.equal(defaultKey(tags), 'critic/score/mean');
  assert.equal(defaultKey(['timing_s/gen', 'b/x']), 'b/x');
  assert.equal(defaultKey([]), undefined);
});

const series = (tag: string, values: readonly number[]): MetricSeries => ({ tag, points: pts(values) });

test('phase timeline: shares of each step, the slowest phase named, untimed rest, perf beside it', () => {
  const tl = phaseTimeline([
    series('timing_s/gen', [7, 7, 7, 7]),
    series('timing_s/update_actor', [2, 2, 2, 2]),
    series('timing_s/step', [10, 10, 10, 10]),
    series('timing_s/generate_sequences', [6, 6, 6, 6]), // inside gen: not stacked
    series('timing_s/agent_loop/slowest/generate_sequences', [1, 1, 1, 1]), // nested: not stacked
    series('perf/throughput', [100, 200, 300, NaN]),
    series('actor/pg_loss', [1, 2, 3, 4]),
  ]);
  assert.ok(tl);
  assert.deepEqual(tl.phases, ['gen', 'update_actor']);
  assert.deepEqual(tl.shares, [0.7, 0.2]);
  assert.ok(Math.abs(tl.otherShare - 0.1) < 1e-12);
  assert.deepEqual(tl.slowest, { phase: 'gen', share: 0.7 });
  assert.equal(tl.steps, 4);
  assert.equal(tl.meanStep, 10);
  assert.equal(tl.hasStepKey, true);
  assert.equal(tl.columns.length, 4);
  assert.deepEqual(tl.columns[0], { stepFrom: 0, stepTo: 0, parts: [7, 2], total: 10, other: 1 });
  assert.deepEqual(tl.perf, [{ tag: 'perf/throughput', last: 300, mean: 200, max: 300 }]);
  assert.equal(phaseTimeline([series('actor/pg_loss', [1])]), undefined);
});

test('phase timeline: no step key sums the phases; phases longer than the step stretch it; many steps share columns', () => {
  const tl = phaseTimeline([series('timing_s/reward', [1, 1]), series('timing_s/gen', [3, 3]), series('timing_s/custom_phase', [0, 0])]);
  assert.ok(tl);
  assert.deepEqual(tl.phases, ['gen', 'reward', 'custom_phase']);
  assert.equal(tl.hasStepKey, false);
  assert.deepEqual(tl.shares, [0.75, 0.25, 0]);
  assert.equal(tl.otherShare, 0);
  const over = phaseTimeline([series('timing_s/gen', [5]), series('timing_s/step', [4])]);
  assert.equal(over?.columns[0]?.total, 5);
  const many = phaseTimeline(
    [
      series(
        'timing_s/gen',
        Array.from({ length: 1000 }, (_, i) => i % 2),
      ),
    ],
    10,
  );
  assert.equal(many?.columns.length, 10);
  assert.deepEqual(many?.columns[0], { stepFrom: 0, stepTo: 99, parts: [0.5], total: 0.5, other: 0 });
});

test('property: phase shares and the untimed rest add up to 1 whenever a step has time', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.double({ min: 0, max: 100, noNaN: true }),
          fc.double({ min: 0, max: 100, noNaN: true }),
          fc.double({ min: 0, max: 300, noNaN: true }),
        ),
        {
          minLength: 1,
          maxLength: 50,
        },
      ),
      (rows) => {
        const tl = phaseTimeline([
          series(
            'timing_s/gen',
            rows.map((r) => r[0]),
          ),
          series(
            'timing_s/adv',
            rows.map((r) => r[1]),
          ),
          series(
            'timing_s/step',
            rows.map((r) => r[2]),
          ),
        ]);
        assert.ok(tl);
        const sum = tl.shares.reduce((a, b) => a + b, 0) + tl.otherShare;
        if (tl.meanStep > 0) assert.ok(Math.abs(sum - 1) < 1e-9, String(sum));
        for (const c of tl.columns) assert.ok(c.other >= -1e-9 && c.total + 1e-9 >= c.parts.reduce((a, b) => a + b, 0));
      },
    ),
  );
});

test("a run's metrics as the dashboard gets them: keys summarised (NaN as null), sources, issues bounded", () => {
  const info = runMetricsInfo('/r/a', {
    sources: [{ kind: 'tensorboard', path: '/t' }],
    series: [series('actor/pg_loss', [1, 3, NaN]), series('timing_s/gen', [2])],
    issues: Array.from({ length: 9 }, (_, i) => ({ file: `/t/f${i}`, at: i, message: 'damaged record' })),
    looked: ['/x'],
  });
  assert.deepEqual(info.keys[0], { tag: 'actor/pg_loss', points: 3, last: { step: 2, value: null }, min: 1, max: 3 });
  assert.equal(info.issues.length, 5);
  assert.equal(info.issues[0], '/t/f0 @0: damaged record');
  assert.ok(info.phases);
  assert.doesNotThrow(() => JSON.stringify(info));
});

test('the metric messages a dashboard page sends are checked: key, width, smoothing, axis, PNG data', async () => {
  const { checkDashboardToHost, checkDashboardState } = await import('../../core/protocol/validate');
  const query = { key: 'actor/pg_loss', axis: 'step', smoothing: 0.6, width: 800 };
  assert.ok(checkDashboardToHost({ type: 'plot', seq: 1, query }).ok);
  assert.ok(checkDashboardToHost({ type: 'plot', seq: 1, query: { ...query, xMin: 3, xMax: 9 } }).ok);
  for (const bad of [
    { ...query, key: '' },
    { ...query, width: 0 },
    { ...query, width: 1e9 },
    { ...query, smoothing: 1 },
    { ...query, smoothing: NaN },
    { ...query, axis: 'log' },
    { ...query, xMin: Infinity },
  ])
    assert.ok(!checkDashboardToHost({ type: 'plot', seq: 1, query: bad }).ok, JSON.stringify(bad));
  assert.ok(checkDashboardToHost({ type: 'exportCsv', key: 'k', smoothing: 0 }).ok);
  assert.ok(checkDashboardToHost({ type: 'exportPng', key: 'k', dataUrl: 'data:image/png;base64,iVBORw0KGgo=' }).ok);
  for (const dataUrl of ['data:text/html;base64,PGI+', 'data:image/png;base64,<script>', 'https://example.com/x.png'])
    assert.ok(!checkDashboardToHost({ type: 'exportPng', key: 'k', dataUrl }).ok, dataUrl);
  assert.ok(checkDashboardState({ runs: [], metrics: { pinned: ['a'], query: '', smoothing: 0.6, axis: 'relative' } }).ok);
  assert.ok(!checkDashboardState({ runs: [], metrics: { pinned: [''], query: '', smoothing: 0.6, axis: 'step' } }).ok);
});
