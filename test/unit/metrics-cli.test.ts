// `agentjet metrics` over a run laid out as AgentJet + verl leave it: the experiment folder with its
// config snapshot, verl's tensorboard_log/<project>/<experiment>/ under the launch's folder (or
// TENSORBOARD_DIR), and verl's console lines in a launch output; plus the console line format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../util/cliRun';
import { frameRecord } from '../../core/metrics/framing';
import { encodeScalarEvent } from '../../core/metrics/eventProto';
import { parseConsoleLine } from '../../core/metrics/console';
import { findMetricSources, type MetricSources } from '../../core/metrics/find';
import { MetricsThread, OffThreadMetricsReader } from '../../core/metrics/offThread';
import { downsample, summarize } from '../../core/metrics/summary';
import { nodeFs } from '../../core/fs/seam';
import { callTool } from '../../core/agents/tools';

const run = (args: string[], env: Record<string, string | undefined> = {}) => runCli('metrics', args, env);

/** verl's concat_dict_to_str: `step:{step}` then `{k}:{v:.3f}` for numbers, joined by " - ". */
const verlLine = (step: number, kv: [string, number][]) => [`step:${step}`, ...kv.map(([k, v]) => `${k}:${v.toFixed(3)}`)].join(' - ');

function layout(): { ws: string; exp: string; tb: string; done: () => void } {
  const ws = mkdtempSync(join(tmpdir(), 'aj-metrics-'));
  const exp = join(ws, 'saved_experiments', 'exp_a');
  mkdirSync(exp, { recursive: true });
  writeFileSync(
    join(exp, 'yaml_backup.yaml'),
    'ajet:\n  project_name: proj\n  experiment_name: exp_a\n  trainer_common:\n    logger:\n    - console\n    - tensorboard\n',
  );
  const tb = join(ws, 'tensorboard_log', 'proj', 'exp_a');
  mkdirSync(tb, { recursive: true });
  const recs = [frameRecord(encodeScalarEvent({ step: 0, wallTime: 100, fileVersion: 'brain.Event:2' }))];
  for (let s = 1; s <= 5; s++)
    recs.push(
      frameRecord(
        encodeScalarEvent({
          step: s,
          wallTime: 100 + s,
          values: [
            ['actor/entropy', 2 - s / 10],
            ['timing_s/gen', 30 + s],
            ['critic/score/mean', s / 8],
          ],
        }),
      ),
    );
  writeFileSync(join(tb, 'events.out.tfevents.1700000000.host.1.0'), Buffer.concat(recs));
  // A launch VS Code recorded, whose output holds verl's console lines (with Ray's prefix).
  const launches = join(exp, '.agentjet-vscode', 'launches');
  mkdirSync(launches, { recursive: true });
  writeFileSync(join(launches, 'l1.json'), JSON.stringify({ format: 1, id: 'l1', command: ['ajet'], cwd: ws, startMs: 1 }));
  writeFileSync(
    join(launches, 'l1.output.txt'),
    [
      'booting',
      `(TaskRunner pid=42) ${verlLine(1, [
        ['actor/entropy', 1.9],
        ['perf/throughput', 1234.5678],
      ])}`,
      verlLine(2, [['perf/throughput', 1300]]),
      '',
    ].join('\n'),
  );
  return { ws, exp, tb, done: () => rmSync(ws, { recursive: true, force: true }) };
}

test('an experiment folder: its TensorBoard folder from the snapshot, console-only keys from the launch output', async () => {
  const l = layout();
  try {
    const r = await run([l.exp, '--format', 'json'], { TENSORBOARD_DIR: undefined });
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as {
      keys: Record<string, { points: number; last: { step: number; value: number }; min: number; max: number }>;
      sources: { kind: string; path: string }[];
    };
    assert.deepEqual(Object.keys(j.keys), ['actor/entropy', 'critic/score/mean', 'perf/throughput', 'timing_s/gen']);
    assert.deepEqual(j.keys['timing_s/gen'], { ...j.keys['timing_s/gen'], points: 5, last: { step: 5, value: 35 }, min: 31, max: 35 });
    // actor/entropy comes from TensorBoard (full precision), not from the console's 3 decimals.
    assert.equal(j.keys['actor/entropy']!.points, 5);
    assert.deepEqual(j.keys['perf/throughput']!.last, { step: 2, value: 1300 });
    assert.equal(j.keys['perf/throughput']!.max, 1300);
    assert.deepEqual(
      j.sources.map((s) => s.kind),
      ['tensorboard', 'console'],
    );
    const csv = await run([l.exp, '--key', 'timing_s/gen', '--format=csv']);
    assert.equal(csv.out, 'step,wall_time,value\n1,101,31\n2,102,32\n3,103,33\n4,104,34\n5,105,35\n');
    const tab = await run([l.tb]);
    assert.match(tab.out, /^KEY +POINTS +LAST STEP/);
    assert.match(tab.out, /timing_s\/gen +5 +5 +35 +31 +35/);
    const bad = await run([l.exp, '--key', 'no/such']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /no such key: no\/such/);
  } finally {
    l.done();
  }
});

test('TENSORBOARD_DIR (relative to the launch folder) wins over the default; nothing found says where it looked', async () => {
  const l = layout();
  try {
    const other = join(l.ws, 'tb_elsewhere');
    mkdirSync(other);
    writeFileSync(
      join(other, 'events.out.tfevents.2'),
      frameRecord(encodeScalarEvent({ step: 7, wallTime: 1, values: [['only/here', 1]] })),
    );
    const s = await findMetricSources(nodeFs(), l.exp, { TENSORBOARD_DIR: 'tb_elsewhere' });
    assert.deepEqual(s.tensorboard, [other]);
    rmSync(join(l.ws, 'tensorboard_log'), { recursive: true });
    rmSync(join(l.exp, '.agentjet-vscode'), { recursive: true });
    const r = await run([l.exp], { TENSORBOARD_DIR: undefined });
    assert.equal(r.code, 1);
    assert.match(r.err, /no TensorBoard event files, SwanLab runs or console metrics found/);
    assert.ok(r.err.includes(join(l.ws, 'tensorboard_log', 'proj', 'exp_a')), r.err);
    assert.equal((await run([join(l.ws, 'nope')])).code, 1);
    assert.equal((await run([])).code, 2);
  } finally {
    l.done();
  }
});

test("TENSORBOARD_DIR set only in the launch folder's .env is the launch's (load_dotenv, override=False)", async () => {
  const l = layout();
  try {
    const other = join(l.ws, 'tb_dotenv');
    mkdirSync(other);
    writeFileSync(
      join(other, 'events.out.tfevents.3'),
      frameRecord(encodeScalarEvent({ step: 1, wallTime: 1, values: [['from/dotenv', 1]] })),
    );
    writeFileSync(join(l.ws, '.env'), '# the launch folder\nexport TENSORBOARD_DIR="tb_dotenv"\n');
    // Not in the environment the launcher inherited: the .env's value is the one it logged with.
    assert.deepEqual((await findMetricSources(nodeFs(), l.exp, {})).tensorboard, [other]);
    // Set in the inherited environment: that one wins, as load_dotenv(override=False) leaves it.
    assert.deepEqual((await findMetricSources(nodeFs(), l.exp, { TENSORBOARD_DIR: 'tensorboard_log/proj/exp_a' })).tensorboard, [
      join(l.ws, 'tensorboard_log', 'proj', 'exp_a'),
    ]);
  } finally {
    l.done();
  }
});

test("console lines: verl's format round-trips for any keys and values; other lines are not taken", () => {
  const key = fc.stringMatching(/^[A-Za-z_][\w/@.:-]{0,30}$/).filter((k) => !k.includes(' - '));
  fc.assert(
    fc.property(
      fc.nat({ max: 1e6 }),
      fc.array(fc.tuple(key, fc.double({ min: -1e6, max: 1e6, noNaN: true })), { minLength: 1, maxLength: 20 }),
      (step, kv) => {
        const r = parseConsoleLine(verlLine(step, kv));
        assert.deepEqual(r, { step, values: kv.map(([k, v]) => [k, Number(v.toFixed(3))]) });
      },
    ),
  );
  assert.deepEqual(
    parseConsoleLine('\x1b[36m(TaskRunner pid=9)\x1b[0m step:3 - a/b:nan - c:inf - d:-inf')?.values.map(([, v]) => v),
    [NaN, Infinity, -Infinity],
  );
  for (const line of ['step:3', 'mystep:3 - a:1.000', 'step:3 - a:one', 'step:x - a:1.000', 'Epoch step:3 - done', ''])
    assert.equal(parseConsoleLine(line), undefined, line);
});

test('summaries and downsampling: bounded, extremes kept', () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 1, maxLength: 3000 }),
      fc.integer({ min: 4, max: 500 }),
      (vals, max) => {
        const pts = vals.map((value, step) => ({ step, wallTime: step, value }));
        const d = downsample(pts, max);
        assert.ok(d.length <= Math.max(max, 2) || d.length === pts.length);
        const lo = Math.min(...vals);
        const hi = Math.max(...vals);
        assert.ok(d.some((p) => p.value === lo) && d.some((p) => p.value === hi), 'the minimum and maximum survive');
        for (let i = 1; i < d.length; i++) assert.ok(d[i]!.step > d[i - 1]!.step, 'in order, no repeats');
        const s = summarize({ tag: 'x', points: pts });
        // === and not Object.is: 0 and -0 are the same minimum.
        assert.ok(s.min === lo, `min ${s.min} is ${lo}`);
        assert.ok(s.max === hi, `max ${s.max} is ${hi}`);
        assert.equal(s.points, vals.length);
      },
    ),
  );
  // The case a random run met: 0 then -0.
  const zeros = summarize({ tag: 'z', points: [0, -0].map((value, step) => ({ step, wallTime: step, value })) });
  assert.ok(zeros.min === 0 && zeros.max === 0);
  const rising = Array.from({ length: 50 }, (_, i) => ({ step: i, wallTime: i, value: i }));
  assert.equal(summarize({ tag: 'r', points: rising }).trend, 'rising');
  assert.equal(summarize({ tag: 'f', points: rising.map((p) => ({ ...p, value: -p.value })) }).trend, 'falling');
});

test('agentjet_metrics: every key summarised, one key thinned, nothing read outside the allowed folders', async () => {
  const l = layout();
  try {
    const env = { roots: [realpathSync(l.ws)], mayRunPython: false };
    const all = await callTool('agentjet_metrics', { path: 'saved_experiments/exp_a' }, env);
    assert.equal(all.isError, false, all.text);
    const j = JSON.parse(all.text) as {
      keys: Record<string, { points: number; last: [number, number]; trend: string }>;
      sources: { path: string }[];
    };
    assert.deepEqual(j.keys['timing_s/gen'], { points: 5, first: [1, 31], last: [5, 35], min: 31, max: 35, trend: 'rising' });
    assert.equal(j.sources[0]!.path, 'tensorboard_log/proj/exp_a');
    const one = await callTool('agentjet_metrics', { path: 'tensorboard_log/proj/exp_a', key: 'actor/entropy', points: 4 }, env);
    const k = JSON.parse(one.text) as { points: [number, number][]; shown?: string };
    assert.ok(k.points.length <= 4 && k.shown, one.text);
    assert.deepEqual(k.points[0], [1, 1.9]);
    assert.match((await callTool('agentjet_metrics', { path: l.exp, key: 'nope' }, env)).text, /no such key: nope/);
    // The TensorBoard folder lies outside the one root this server may read: it is named, not read.
    const narrow = { roots: [realpathSync(join(l.ws, 'saved_experiments'))], mayRunPython: false };
    const r = await callTool('agentjet_metrics', { path: 'exp_a' }, narrow);
    assert.equal(r.isError, false, r.text);
    const n = JSON.parse(r.text) as { keys: Record<string, unknown>; notRead: string[] };
    assert.deepEqual(Object.keys(n.keys), ['actor/entropy', 'perf/throughput'], 'only the console lines inside the root');
    assert.match(n.notRead[0]!, /tensorboard_log.*outside the folders/);
    assert.equal((await callTool('agentjet_metrics', { path: '/' }, narrow)).isError, true);
    // VS Code's tools read on a worker thread: the same answers.
    const thread = new MetricsThread();
    try {
      const off = { ...env, metricsReader: (s: MetricSources) => new OffThreadMetricsReader(s, thread) };
      assert.equal((await callTool('agentjet_metrics', { path: 'saved_experiments/exp_a' }, off)).text, all.text);
      const offNarrow = { ...narrow, metricsReader: off.metricsReader };
      assert.equal((await callTool('agentjet_metrics', { path: 'exp_a' }, offNarrow)).text, r.text);
      const pair = { paths: ['saved_experiments/exp_a', 'saved_experiments/exp_a'] };
      const cmp = await callTool('agentjet_compare_runs', pair, env);
      assert.equal((await callTool('agentjet_compare_runs', pair, off)).text, cmp.text);
    } finally {
      thread.dispose();
    }
  } finally {
    l.done();
  }
});
