// SwanLab's local run files (SWANLAB_LOG_DIR/run-*/backup.swanlab, run-<id>.swanlab) read as SwanLab
// writes them. There is no SwanLab writer on these machines: the files are built by test/gen/swanlab.ts
// per SwanHubX/SwanLab's code (v0.7.11 swanlab/data/porter/datastore.py and swanlab/proto/v0.py, the
// version AgentJet 0.0.4 pins; v0.9.7 swanlab/sdk/internal/core_python/store and
// protos/swanlab/record/v1/record.proto), and one file by a Python writer (zlib, struct, json) in the
// tests' venv, written from the same code's description.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../util/cliRun';
import { scanSwl, SWL_HEADER_LEN, SWL_BLOCK } from '../../core/metrics/swanlabStore';
import { SwanLabRun, findSwanLabRuns, MAX_SWANLAB_RUNS } from '../../core/metrics/swanlab';
import { findMetricSources } from '../../core/metrics/find';
import { nodeFs } from '../../core/fs/seam';
import { callTool } from '../../core/agents/tools';
import { writeSwl, writeSwanLabRun, v1Records, type SwanPoint } from '../gen/swanlab';
import { decodeSwanLabJson } from '../../core/metrics/swanlabRecords';
import { ensureTestPython } from '../harness/python';

const tmp = () => mkdtempSync(join(tmpdir(), 'aj-swan-'));
const pts = (key: string, n: number, f: (s: number) => number, from = 0): SwanPoint[] =>
  Array.from({ length: n }, (_, i) => ({ key, step: from + i, value: f(from + i), wallTime: 1.7e9 + from + i + 0.25 }));

async function readAll(path: string) {
  const r = new SwanLabRun(path, nodeFs());
  await r.update();
  return r;
}

for (const version of [1, 2] as const)
  test(`version ${version} run file: every scalar with its step, wall time and value (NaN, inf), the project and experiment`, async () => {
    const d = tmp();
    try {
      const points = [
        ...pts('critic/rewards/mean', 5, (s) => s / 4),
        ...pts('timing_s/gen', 5, (s) => 30 + s),
        { key: 'actor/kl', step: 0, value: NaN, wallTime: 1.7e9 },
        { key: 'actor/kl', step: 1, value: Infinity, wallTime: 1.7e9 + 1 },
        { key: 'actor/kl', step: 2, value: 1e-7, wallTime: 1.7e9 + 2 },
      ];
      const { dir } = writeSwanLabRun(d, { version, project: 'proj', experiment: 'exp_a', points });
      const r = await readAll(dir);
      assert.equal(r.version, version);
      assert.equal(r.project, 'proj');
      assert.equal(r.experiment, 'exp_a');
      assert.deepEqual(r.issues(), []);
      const s = Object.fromEntries(r.series().map((x) => [x.tag, x.points]));
      assert.deepEqual(Object.keys(s), ['actor/kl', 'critic/rewards/mean', 'timing_s/gen']);
      assert.deepEqual(
        s['critic/rewards/mean']!.map((p) => [p.step, p.value]),
        [0, 1, 2, 3, 4].map((k) => [k, k / 4]),
      );
      assert.equal(s['timing_s/gen']![2]!.wallTime, 1.7e9 + 2.25);
      assert.deepEqual(
        s['actor/kl']!.map((p) => p.value),
        [NaN, Infinity, 1e-7],
      );
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

test('framing: any record sizes (chunks across 32 KB blocks, padding) come back whole; any prefix gives whole records, then a wait', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 80_000 }), { minLength: 1, maxLength: 12 }), fc.nat(), (sizes, cut) => {
      const recs = sizes.map((n, i) => new Uint8Array(n).fill(i + 1));
      const file = writeSwl(1, recs);
      const whole = scanSwl(file.subarray(SWL_HEADER_LEN), SWL_HEADER_LEN);
      assert.equal(whole.stop, undefined);
      assert.deepEqual(
        whole.records.map((r) => Buffer.from(r.data)),
        recs.map((r) => Buffer.from(r)),
      );
      const end = SWL_HEADER_LEN + (cut % (file.length - SWL_HEADER_LEN + 1));
      const part = scanSwl(file.subarray(SWL_HEADER_LEN, end), SWL_HEADER_LEN);
      assert.ok(part.records.length <= recs.length);
      part.records.forEach((r, i) => assert.deepEqual(Buffer.from(r.data), Buffer.from(recs[i]!)));
      // Stopped on a record boundary, or told to wait for the rest: never an error.
      if (part.stop) assert.deepEqual(part.stop, { kind: 'partial' });
      else assert.equal(part.next, end);
      // Reading on from where it stopped gives the rest.
      const rest = scanSwl(file.subarray(part.next), part.next);
      assert.equal(part.records.length + rest.records.length, recs.length);
    }),
    { numRuns: 150 },
  );
});

test('framing: any flipped bit stops the reading at or before the damaged chunk, never returning altered data', () => {
  const recs = [400, 33_000, 10, 70_000, 5].map((n, i) => new Uint8Array(n).fill(i + 7));
  const file = writeSwl(2, recs);
  fc.assert(
    fc.property(fc.integer({ min: SWL_HEADER_LEN, max: file.length - 1 }), fc.integer({ min: 0, max: 7 }), (at, bit) => {
      const bad = Buffer.from(file);
      bad[at]! ^= 1 << bit;
      const s = scanSwl(bad.subarray(SWL_HEADER_LEN), SWL_HEADER_LEN);
      s.records.forEach((r, i) => assert.deepEqual(Buffer.from(r.data), Buffer.from(recs[i]!)));
      assert.ok(s.records.length < recs.length, 'the damaged record is not returned');
      assert.ok(s.stop && s.stop.kind !== undefined);
    }),
    { numRuns: 300 },
  );
});

test('bounded: not a SwanLab file, an unknown version, a damaged record, a FIFO, a live file read as it grows', async (t) => {
  const d = tmp();
  try {
    const notSwl = join(d, 'backup.swanlab');
    writeFileSync(notSwl, 'hello, this is not SwanLab\n');
    assert.match((await readAll(notSwl)).issues()[0]!.message, /not a SwanLab run file/);
    const v3 = join(d, 'run-v3.swanlab');
    const f3 = writeSwl(3, [Buffer.from('x')]);
    writeFileSync(v3, f3);
    assert.match((await readAll(v3)).issues()[0]!.message, /version 3 is not one this reader knows/);
    // A CRC failure in the third scalar: the first two are kept, the rest reported with its size.
    const recs = v1Records(
      'p',
      'e',
      pts('a', 10, (s) => s),
    );
    const file = writeSwl(1, recs);
    const third = file.indexOf(Buffer.from('"step": 2,'));
    file[third]! ^= 0x20;
    const dmg = join(d, 'dmg.swanlab');
    writeFileSync(dmg, file);
    const r = await readAll(dmg);
    assert.deepEqual(
      r.series()[0]!.points.map((p) => p.step),
      [0, 1],
    );
    assert.match(
      r.issues()[0]!.message,
      /damaged record \(CRC-32 check failed\): SwanLab stops reading this file here too; \d+ bytes after it/,
    );
    // A live file: appended in pieces, each update reads only what is new; a cut record waits.
    const full = writeSwl(
      1,
      v1Records(
        'p',
        'e',
        pts('b', 400, (s) => s),
      ),
    );
    const live = join(d, 'live', 'backup.swanlab');
    mkdirSync(join(d, 'live'));
    writeFileSync(live, full.subarray(0, 3));
    const lr = new SwanLabRun(live, nodeFs());
    assert.equal(await lr.update(), false);
    let at = 3;
    for (const step of [5, 777, 4096, SWL_BLOCK + 11, full.length]) {
      const to = Math.min(step, full.length);
      if (to > at) appendFileSync(live, full.subarray(at, to));
      at = Math.max(at, to);
      await lr.update();
      assert.deepEqual(lr.issues(), []);
    }
    assert.equal(lr.series()[0]!.points.length, 400);
    const mk = spawnSync('mkfifo', [join(d, 'fifo.swanlab')]);
    if (mk.status !== 0) t.diagnostic('no mkfifo: the FIFO case is not checked');
    else {
      const fr = await readAll(join(d, 'fifo.swanlab'));
      assert.match(fr.issues()[0]!.message, /not a regular file/);
    }
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

/** An AgentJet workspace whose run logs to SwanLab: the snapshot, and SWANLAB_LOG_DIR with other runs of the project. */
function workspace(version: 1 | 2) {
  const ws = tmp();
  const exp = join(ws, 'saved_experiments', 'exp_a');
  mkdirSync(exp, { recursive: true });
  writeFileSync(
    join(exp, 'yaml_backup.yaml'),
    'ajet:\n  project_name: proj\n  experiment_name: exp_a\n  trainer_common:\n    logger: swanlab\n',
  );
  const log = join(ws, 'saved_experiments', 'swanlog');
  // exp_a ran, was resumed into a second folder; exp_b is another run of the project; one folder has no run file.
  writeSwanLabRun(log, {
    version,
    project: 'proj',
    experiment: 'exp_a',
    points: pts('critic/rewards/mean', 3, (s) => s / 10),
    stamp: '20260526_090705',
    id: 'a1',
  });
  writeSwanLabRun(log, {
    version,
    project: 'proj',
    experiment: 'exp_a',
    points: pts('critic/rewards/mean', 3, (s) => s / 10, 3),
    stamp: '20260526_100000',
    id: 'a2',
  });
  writeSwanLabRun(log, {
    version,
    project: 'proj',
    experiment: 'exp_b',
    points: pts('critic/rewards/mean', 9, () => 5),
    stamp: '20260526_110000',
    id: 'b1',
  });
  mkdirSync(join(log, 'run-20260526_120000-empty'));
  return { ws, exp, log, done: () => rmSync(ws, { recursive: true, force: true }) };
}

test("agentjet metrics EXP_DIR: trainer_common.logger swanlab finds this experiment's SwanLab runs in saved_experiments/swanlog", async () => {
  const w = workspace(1);
  try {
    const s = await findMetricSources(nodeFs(), w.exp, {});
    assert.deepEqual(s.swanlab, [join(w.log, 'run-20260526_090705-a1'), join(w.log, 'run-20260526_100000-a2')]);
    const r = await runCli('metrics', [w.exp, '--format', 'json'], { SWANLAB_LOG_DIR: undefined, TENSORBOARD_DIR: undefined });
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as {
      sources: { kind: string }[];
      keys: Record<string, { points: number; last: { step: number; value: number } }>;
    };
    assert.deepEqual(
      j.sources.map((x) => x.kind),
      ['swanlab', 'swanlab'],
    );
    assert.deepEqual(j.keys['critic/rewards/mean'], { ...j.keys['critic/rewards/mean'], points: 6, last: { step: 5, value: 0.5 } });
    // One run folder given directly.
    const one = await runCli('metrics', [join(w.log, 'run-20260526_110000-b1'), '--key', 'critic/rewards/mean', '--format', 'csv']);
    assert.equal(one.code, 0, one.err);
    assert.equal(one.out.split('\n')[1], '0,1700000000.25,5');
    // SWANLAB_LOG_DIR, relative to the launch folder, wins; nothing there says where it looked.
    const none = await runCli('metrics', [w.exp], { SWANLAB_LOG_DIR: 'elsewhere' });
    assert.equal(none.code, 1);
    assert.ok(none.err.includes(join(w.ws, 'elsewhere')), none.err);
  } finally {
    w.done();
  }
});

test('agentjet_metrics reads SwanLab runs inside the roots and names a SWANLAB_LOG_DIR outside them without reading it', async () => {
  const w = workspace(2);
  try {
    const inside = await callTool('agentjet_metrics', { path: 'saved_experiments/exp_a' }, { roots: [w.ws], mayRunPython: false });
    assert.equal(inside.isError, false, inside.text);
    const j = JSON.parse(inside.text) as { keys: Record<string, { points: number }>; sources: { kind: string; path: string }[] };
    assert.equal(j.keys['critic/rewards/mean']!.points, 6);
    assert.deepEqual(j.sources[0], { kind: 'swanlab', path: 'saved_experiments/swanlog/run-20260526_090705-a1' });
    const narrow = await callTool(
      'agentjet_metrics',
      { path: '.' },
      { roots: [join(w.ws, 'saved_experiments', 'exp_a')], mayRunPython: false },
    );
    assert.equal(narrow.isError, false, narrow.text);
    const n = JSON.parse(narrow.text) as { keys: Record<string, unknown>; notRead?: string[] };
    assert.deepEqual(n.keys, {});
    assert.match(n.notRead?.[0] ?? '', /swanlog is outside the folders/);
  } finally {
    w.done();
  }
});

test(`bounded: a SWANLAB_LOG_DIR of 2,501 run folders is searched up to the newest ${MAX_SWANLAB_RUNS}`, async () => {
  const d = tmp();
  try {
    for (let i = 0; i < 2_500; i++) mkdirSync(join(d, `run-20260101_${String(i).padStart(6, '0')}-x${i}`));
    writeSwanLabRun(d, { version: 1, project: 'p', experiment: 'e', points: pts('k', 2, (s) => s), stamp: '20260102_000000', id: 'new' });
    const r = await findSwanLabRuns(nodeFs(), d, { experiment: 'e' });
    assert.deepEqual(r.runs, [join(d, 'run-20260102_000000-new')]);
    assert.equal(r.skipped, 2_501 - MAX_SWANLAB_RUNS);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("a file written by a Python writer (zlib.crc32, struct, json.dumps) per SwanLab 0.7.11's DataStore reads back", async () => {
  const py = ensureTestPython().python;
  const d = tmp();
  const script = String.raw`
import json, struct, sys, zlib
BLOCK, HL = 32768, 7
out = open(sys.argv[1], 'wb')
idx = 0
def put(b):
    global idx
    out.write(b); idx += len(b)
put(struct.pack('<4sHB', b':SWL', 0xE1D6, 1))
def chunk(data, typ):
    put(struct.pack('<IHB', zlib.crc32(data, zlib.crc32(bytes([typ]))) & 0xFFFFFFFF, len(data), typ) + data)
def write(s):
    data = s.encode('utf-8')
    left = BLOCK - idx % BLOCK
    if left < HL:
        put(b'\x00' * left); left = BLOCK
    if len(data) + HL <= left:
        chunk(data, 1); return
    used = left - HL
    chunk(data[:used], 2)
    while len(data) - used > BLOCK - HL:
        chunk(data[used:used + BLOCK - HL], 3); used += BLOCK - HL
    chunk(data[used:], 4)
rec = lambda t, d: json.dumps({'model_type': t, 'data': d}, ensure_ascii=False) + '\n'
write(rec('Header', {'backup_type': 'DEFAULT', 'create_time': '2026-05-26T09:07:05.123456+00:00'}))
write(rec('Project', {'name': 'проект', 'workspace': None, 'public': None}))
write(rec('Experiment', {'id': 'z', 'name': '实验', 'colors': ['#1', '#2'], 'description': 'd' * 70000, 'tags': []}))
for s in range(3000):
    v = 'NaN' if s == 7 else s * 0.5
    write(rec('Scalar', {'metric': {'index': s, 'data': v, 'create_time': '2026-05-26T09:07:05.500000+00:00'}, 'key': 'train/loss', 'step': s, 'epoch': s + 1}))
out.close()
`;
  try {
    const file = join(d, 'backup.swanlab');
    const r = spawnSync(py, ['-c', script, file], { encoding: 'utf8' });
    // The script is ours and needs only the standard library: its failure is this test's failure.
    assert.equal(r.status, 0, `python: ${r.stderr.slice(-300)}`);
    const run = await readAll(file);
    assert.deepEqual(run.issues(), []);
    assert.equal(run.project, 'проект');
    assert.equal(run.experiment, '实验');
    const p = run.series()[0]!.points;
    assert.equal(p.length, 3000);
    assert.ok(Number.isNaN(p[7]!.value));
    assert.equal(p[2999]!.value, 1499.5);
    assert.equal(p[0]!.wallTime, Date.parse('2026-05-26T09:07:05.500Z') / 1000);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("version 1: a value json.dumps wrote bare (NaN, Infinity, -Infinity: SwanLab's converters pass floats through) is read too", () => {
  const line = (v: string) =>
    Buffer.from(
      `{"model_type": "Scalar", "data": {"metric": {"index": 3, "data": ${v}, "create_time": "2026-05-26T09:07:05+00:00"}, "key": "k", "step": 3, "epoch": 1}}\n`,
    );
  assert.deepEqual(
    ['NaN', 'Infinity', '-Infinity', '0.5'].map((v) => {
      const r = decodeSwanLabJson(line(v));
      return r.kind === 'scalar' ? r.value : undefined;
    }),
    [NaN, Infinity, -Infinity, 0.5],
  );
  assert.throws(() => decodeSwanLabJson(Buffer.from('{"model_type": "Scalar", "data": {"key": "k"}}\n')), /not a SwanLab scalar/);
  assert.throws(() => decodeSwanLabJson(Buffer.from('not json')));
});
