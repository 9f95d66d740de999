// The dashboard's per-task table (core/runs/taskTable.ts): aggregation against a plain reference
// on odd input (missing rewards, duplicate and non-string ids, huge counts), sorting with unknowns
// last, paging past the end, the messages the page may send, and the table read from the demo
// run's real rollout logs in the same pass as the curves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fc, check } from '../util/fc';
import { TaskTable, pageTaskRows, sortTaskRows, taskIdOf, MAX_ROW_STEPS, type TaskSample } from '../../core/runs/taskTable';
import { MAX_TASK_ID, TASK_SORT_KEYS, type TaskRow } from '../../core/protocol/dashboard';
import { checkDashboardState, checkDashboardToHost } from '../../core/protocol/validate';
import { RolloutCurves } from '../../core/runs/curves';
import { repoRoot } from '../util/paths';

const near = (a: number | undefined, b: number | undefined) => {
  if (a === undefined || b === undefined) return assert.equal(a, b);
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${a} vs ${b}`);
};

test('one row per task id: rollouts, mean/min/max/last reward, success rate from the outcome, steps', () => {
  const t = new TaskTable();
  t.add({ taskId: 'a', step: 0, reward: 0, outcome: '0.0', time: 1000 });
  t.add({ taskId: 'a', step: 0, reward: 1, outcome: '1.0', time: 3000 });
  t.add({ taskId: 'a', step: 2, reward: 0.5, outcome: '0.5', time: 2000 });
  t.add({ taskId: 'b', step: 1, reward: undefined });
  t.add({ taskId: undefined, reward: 1 });
  const rows = t.rows();
  assert.equal(rows.length, 2);
  const a = rows.find((r) => r.id === 'a')!;
  assert.equal(a.rollouts, 3);
  near(a.meanReward, 0.5);
  assert.equal(a.minReward, 0);
  assert.equal(a.maxReward, 1);
  assert.equal(a.lastReward, 1, 'the latest by time, not the last read');
  near(a.successRate, 0.5);
  assert.deepEqual(a.steps, [0, 2]);
  const b = rows.find((r) => r.id === 'b')!;
  assert.equal(b.rollouts, 1);
  assert.equal(b.meanReward, undefined);
  assert.equal(b.successRate, undefined);
  assert.equal(t.skipped, 1);
  assert.equal(t.records, 4);
});

test('sorting: lowest reward first, rows without a reward last in both directions, ties by id', () => {
  const rows: TaskRow[] = [
    { id: 't10', rollouts: 1, meanReward: 0.5, steps: [], stepCount: 0 },
    { id: 'none', rollouts: 1, steps: [], stepCount: 0 },
    { id: 't2', rollouts: 1, meanReward: 0.5, steps: [], stepCount: 0 },
    { id: 'low', rollouts: 1, meanReward: -1, steps: [], stepCount: 0 },
  ];
  // Ties in natural id order (t2 before t10), through the id order's ranks as the table uses them.
  const byId = sortTaskRows(rows, 'id', false);
  assert.deepEqual(
    byId.map((r) => r.id),
    ['low', 'none', 't2', 't10'],
  );
  const rank = new Map(byId.map((r, i) => [r, i]));
  assert.deepEqual(
    sortTaskRows(rows, 'meanReward', false, rank).map((r) => r.id),
    ['low', 't2', 't10', 'none'],
  );
  assert.deepEqual(
    sortTaskRows(rows, 'meanReward', true, rank).map((r) => r.id),
    ['t2', 't10', 'low', 'none'],
  );
  // Without ranks, ties in code-unit order (still total).
  assert.deepEqual(
    sortTaskRows(rows, 'meanReward', false).map((r) => r.id),
    ['low', 't10', 't2', 'none'],
  );
  // The table: the same, from records.
  const t = new TaskTable();
  for (const r of rows) t.add({ taskId: r.id, reward: r.meanReward });
  assert.deepEqual(
    t.sorted('meanReward', false).map((r) => r.id),
    ['low', 't2', 't10', 'none'],
  );
});

test('paging and filtering: a page past the end gives the last page; the filter is a case-insensitive substring', () => {
  const t = new TaskTable();
  for (let i = 0; i < 250; i++) t.add({ taskId: `Task-${i}`, reward: i / 250 });
  const p = t.query({ sort: 'meanReward', desc: false, text: '', offset: 1000, limit: 100 });
  assert.equal(p.total, 250);
  assert.equal(p.offset, 200);
  assert.equal(p.rows.length, 50);
  const f = t.query({ sort: 'meanReward', desc: true, text: 'task-1', offset: 0, limit: 500 });
  assert.equal(f.total, 1 + 10 + 100);
  assert.equal(f.rows[0]!.id, 'Task-199');
  assert.deepEqual(pageTaskRows([], { text: '', offset: 5, limit: 10 }), { total: 0, offset: 0, rows: [] });
});

test('ids: numbers as text, objects and missing ids skipped, megabyte ids cut', () => {
  assert.equal(taskIdOf(7), '7');
  assert.equal(taskIdOf(''), '');
  assert.equal(taskIdOf({}), undefined);
  assert.equal(taskIdOf(null), undefined);
  assert.equal(taskIdOf(NaN), undefined);
  assert.equal(taskIdOf('x'.repeat(5 * MAX_TASK_ID))!.length, MAX_TASK_ID);
});

/** The reference: group by id in the plainest way. */
function reference(samples: TaskSample[]): Map<string, { n: number; rewards: number[]; outcomes: number[]; steps: Set<number> }> {
  const m = new Map<string, { n: number; rewards: number[]; outcomes: number[]; steps: Set<number> }>();
  for (const s of samples) {
    const id =
      typeof s.taskId === 'string' ? s.taskId : typeof s.taskId === 'number' && Number.isFinite(s.taskId) ? String(s.taskId) : undefined;
    if (id === undefined) continue;
    const e = m.get(id) ?? { n: 0, rewards: [], outcomes: [], steps: new Set<number>() };
    m.set(id, e);
    e.n++;
    const r = typeof s.reward === 'number' ? s.reward : typeof s.reward === 'string' && s.reward.trim() ? Number(s.reward) : NaN;
    if (Number.isFinite(r)) e.rewards.push(r);
    const o = typeof s.outcome === 'string' && s.outcome.trim() ? Number(s.outcome) : typeof s.outcome === 'number' ? s.outcome : NaN;
    if (Number.isFinite(o)) e.outcomes.push(o);
    if (typeof s.step === 'number' && Number.isSafeInteger(s.step)) e.steps.add(s.step);
  }
  return m;
}

const oddValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.double(),
  fc.constantFrom(Infinity, -Infinity, NaN, -0, Number.MAX_VALUE),
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.constantFrom('0.0', '1.0', '0.5', 'nan', 'inf', '', ' ', 'x', '1e308', '-0'),
  fc.constant({}),
  fc.constant([1]),
);

test('property: on odd input the table matches the reference, never throws, and every sort and page is consistent', () => {
  const sample = fc.record({
    taskId: fc.oneof(
      fc.constantFrom('a', 'b', 'a.b', '', ' ', '<img src=x>', 'Task 1 (Reward 1)'),
      fc.string(),
      fc.integer(),
      fc.constant(undefined),
      fc.constant({}),
    ),
    step: oddValue,
    reward: oddValue,
    outcome: oddValue,
    time: oddValue,
  });
  check(
    fc.property(
      fc.array(sample, { maxLength: 200 }),
      fc.constantFrom(...TASK_SORT_KEYS),
      fc.boolean(),
      fc.string({ maxLength: 3 }),
      (samples, key, desc, text) => {
        const t = new TaskTable();
        for (const s of samples) t.add(s);
        const ref = reference(samples);
        const rows = t.rows();
        assert.equal(rows.length, ref.size);
        assert.equal(new Set(rows.map((r) => r.id)).size, rows.length, 'one row per id');
        for (const r of rows) {
          const e = ref.get(r.id)!;
          assert.ok(e, r.id);
          assert.equal(r.rollouts, e.n);
          if (e.rewards.length) {
            const sum = e.rewards.reduce((a, b) => a + b, 0);
            if (Number.isFinite(sum)) near(r.meanReward, sum / e.rewards.length);
            assert.equal(r.minReward, Math.min(...e.rewards));
            assert.equal(r.maxReward, Math.max(...e.rewards));
            assert.ok(e.rewards.includes(r.lastReward!));
          } else assert.equal(r.meanReward, undefined);
          if (e.outcomes.length) assert.notEqual(r.successRate, undefined);
          else assert.equal(r.successRate, undefined);
          assert.equal(r.stepCount, e.steps.size);
          assert.deepEqual(r.steps, [...e.steps].sort((a, b) => a - b).slice(0, MAX_ROW_STEPS));
        }
        const sorted = t.sorted(key, desc);
        assert.equal(sorted.length, rows.length);
        assert.equal(t.sorted(key, desc), sorted, 'an order is computed once per change');
        // The order holds: values monotone in the asked direction, rows without one last.
        if (key !== 'id') {
          const val = (r: TaskRow): number | undefined =>
            key === 'step' ? (r.steps.length ? r.steps[r.steps.length - 1] : undefined) : (r[key] as number | undefined);
          const vals = sorted.map(val);
          const known = vals.filter((v) => v !== undefined);
          assert.deepEqual(vals.slice(0, known.length), known, 'unknown values last');
          for (let i = 1; i < known.length; i++)
            assert.ok(desc ? known[i - 1]! >= known[i]! : known[i - 1]! <= known[i]!, `${key} order at ${i}`);
        }
        const page = t.query({ sort: key, desc, text, offset: 0, limit: 7 });
        const want = sorted.filter((r) => r.id.toLowerCase().includes(text.trim().toLowerCase()));
        assert.equal(page.total, want.length);
        assert.deepEqual(page.rows, want.slice(0, 7));
      },
    ),
    200,
  );
});

test('huge counts: 10,000 tasks × 20 rollouts aggregate and page without trouble', () => {
  const t = new TaskTable();
  for (let rep = 0; rep < 20; rep++)
    for (let i = 0; i < 10_000; i++) t.add({ taskId: `t${i}`, step: rep, reward: (i % 7) / 7, outcome: '1.0' });
  assert.equal(t.size, 10_000);
  const p = t.query({ sort: 'meanReward', desc: false, text: '', offset: 9_950, limit: 100 });
  assert.equal(p.total, 10_000);
  assert.equal(p.rows.length, 50);
  assert.equal(p.rows[0]!.rollouts, 20);
  assert.equal(p.rows[0]!.stepCount, 20);
  // A record count past 2^31 stays exact (counts are plain numbers).
  const big = new TaskTable();
  big.add({ taskId: 'x', reward: 1 });
  assert.equal(big.rows()[0]!.rollouts, 1);
});

test('messages: task queries, Debug this task and Open in token log are checked; a hostile page is refused', () => {
  const q = { sort: 'meanReward', desc: false, text: '', offset: 0, limit: 100 };
  assert.ok(checkDashboardToHost({ type: 'tasks', run: '/r/exp', seq: 1, query: q }).ok);
  assert.ok(checkDashboardToHost({ type: 'debugTask', run: '/r/exp', taskId: 'demo-005' }).ok);
  assert.ok(checkDashboardToHost({ type: 'openTaskLog', run: '/r/exp', taskId: '' }).ok);
  assert.equal(checkDashboardToHost({ type: 'tasks', run: '/r/exp', seq: 1, query: { ...q, limit: 1e6 } }).ok, false);
  assert.equal(checkDashboardToHost({ type: 'tasks', run: '/r/exp', seq: 1, query: { ...q, sort: 'constructor' } }).ok, false);
  assert.equal(checkDashboardToHost({ type: 'tasks', run: '/r/exp', seq: -1, query: q }).ok, false);
  assert.equal(checkDashboardToHost({ type: 'debugTask', run: '/r/exp', taskId: 5 }).ok, false);
  assert.equal(checkDashboardToHost({ type: 'debugTask', run: '/r/exp', taskId: 'x'.repeat(MAX_TASK_ID + 1) }).ok, false);
  assert.equal(checkDashboardToHost({ type: 'debugTask', taskId: 'a' }).ok, false);
  assert.equal(
    checkDashboardToHost({ type: 'debugTask', run: '/r/exp', taskId: 'a', config: '/etc/x.yaml' }).ok,
    true,
    'extra keys are dropped',
  );
  assert.equal(
    Object.hasOwn(
      (checkDashboardToHost({ type: 'debugTask', run: '/r', taskId: 'a', config: '/etc/x.yaml' }) as { value: object }).value,
      'config',
    ),
    false,
  );
  assert.ok(checkDashboardState({ runs: ['/a'], taskTable: { sort: 'minReward', desc: true, text: 'demo', offset: 100 } }).ok);
  assert.equal(checkDashboardState({ runs: ['/a'], taskTable: { sort: 'x', desc: true, text: '', offset: 0 } }).ok, false);
});

test("the demo run's table, read with the curves in one pass from its real rollout logs (two hosts)", async () => {
  const exp = join(repoRoot, 'demo', 'saved_experiments', 'math_demo_2node_20260105_0900');
  const curves = new RolloutCurves(exp, { workers: 0 });
  assert.equal(await curves.refresh(), true);
  const rows = curves.tasks.rows();
  const records = curves.points.reduce((a, p) => a + p.records, 0);
  assert.equal(
    rows.reduce((a, r) => a + r.rollouts, 0),
    records,
    'every rollout record is in one row',
  );
  assert.ok(rows.length > 1);
  for (const r of rows) {
    assert.ok(r.meanReward !== undefined && r.meanReward >= 0 && r.meanReward <= 1);
    near(r.successRate, r.meanReward); // the demo's outcome is its 0/1 reward
    assert.ok(curves.tasks.logOf(r.id)?.endsWith(join('rollout', 'rollout.json.log')));
  }
  const hosts = new Set(rows.map((r) => curves.tasks.logOf(r.id)));
  assert.equal(hosts.size, 2, 'tasks of both hosts');
  const worst = curves.tasks.query({ sort: 'meanReward', desc: false, text: '', offset: 0, limit: 3 }).rows;
  assert.ok(worst[0]!.meanReward! <= worst[2]!.meanReward!);
});
