// TensorBoard event files written by the real writers (tensorboardX's SummaryWriter and
// torch.utils.tensorboard's, the one verl's tracking uses) and read back by TensorBoard's own reader
// (plugin_event_accumulator.EventAccumulator, what `tensorboard --logdir` runs) in the same test:
// ours (core/metrics) must give the same tags, counts, steps, wall times and values, also for a run
// restarted into a second file, a last record cut short (still being written) and a damaged record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython, moduleVersion } from '../harness/python';
import { skipForEnvironment } from '../util/envSkip';
import { TensorBoardRun } from '../../core/metrics/tensorboard';
import { nodeFs } from '../../core/fs/seam';
import type { MetricSeries } from '../../core/protocol/metrics';

// write DIR WRITER RUN: one writer's file (RUN picks the steps, so a second run is a restart).
// read DIR: TensorBoard's scalar tags (plugin "scalars" or none, numeric one-element tensors) as
// {tag: [[step, wall_time, value], ...]} in the order TensorBoard holds them.
const SCRIPT = String.raw`
import json, sys
import numpy as np
cmd, d = sys.argv[1], sys.argv[2]
if cmd == 'write':
    writer, run = sys.argv[3], int(sys.argv[4])
    if writer == 'torch':
        from torch.utils.tensorboard import SummaryWriter
    else:
        from tensorboardX import SummaryWriter
    w = SummaryWriter(d, filename_suffix='.' + writer + str(run))
    steps = range(0, 40) if run == 0 else range(25, 60)
    for s in steps:
        w.add_scalar('actor/pg_loss', 1.0 / (s + 1) - 0.3, s)
        w.add_scalar('critic/score/mean', (s % 7) * 0.125 + run, s)
        w.add_scalar('timing_s/gen', 3.25 + s * 0.01, s)
        if s % 5 == 0:
            w.add_scalar('val-core/gsm8k/acc@1', s / 100.0, s)
            w.add_text('val/generations', 'step %d' % s, s)
            w.add_histogram('actor/logits', np.array([0.1, 0.2, 0.3 + s]), s)
        if writer == 'torch':
            # new_style: a scalar tensor with the scalars plugin's metadata instead of simple_value
            w.add_scalar('perf/throughput', 1000.0 + s, s, new_style=True)
            w.add_scalar('perf/max_memory_allocated_gb', 10.5 + s / 8, s, new_style=True, double_precision=True)
    if writer == 'tensorboardX':
        # scalar tensors of other dtypes, as tf.summary.scalar and friends write them
        from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
        from tensorboardX.proto.tensor_pb2 import TensorProto
        from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
        import struct
        md = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name='scalars'))
        for s in steps:
            vals = [
                Summary.Value(tag='tensor/double', metadata=md, tensor=TensorProto(dtype=2, double_val=[s * 1.1], tensor_shape=TensorShapeProto())),
                Summary.Value(tag='tensor/int64', metadata=md, tensor=TensorProto(dtype=9, int64_val=[s * 1000003], tensor_shape=TensorShapeProto())),
                Summary.Value(tag='tensor/int32', metadata=md, tensor=TensorProto(dtype=3, int_val=[-s], tensor_shape=TensorShapeProto())),
                Summary.Value(tag='tensor/content', metadata=md, tensor=TensorProto(dtype=1, tensor_content=struct.pack('<f', s / 3.0), tensor_shape=TensorShapeProto())),
                Summary.Value(tag='tensor/vector', metadata=md, tensor=TensorProto(dtype=1, float_val=[1.0, 2.0], tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=2)]))),
            ]
            w._get_file_writer().add_summary(Summary(value=vals), s)
    w.close()
else:
    from tensorboard.backend.event_processing import plugin_event_accumulator as pea
    from tensorboard.util import tensor_util
    acc = pea.EventAccumulator(d, size_guidance={pea.TENSORS: 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()['tensors']:
        try:
            plugin = acc.SummaryMetadata(tag).plugin_data.plugin_name
        except KeyError:
            plugin = ''
        if plugin not in ('', 'scalars'):
            continue
        pts = []
        for e in acc.Tensors(tag):
            a = tensor_util.make_ndarray(e.tensor_proto)
            if a.size == 1 and a.dtype.kind in 'fiub':
                pts.append([e.step, e.wall_time, float(a.item())])
        if pts:
            out[tag] = pts
    print(json.dumps(out))
`;

function python(t: { skip: (m?: string) => void }): string | undefined {
  const { python } = ensureTestPython();
  const missing = ['tensorboard', 'tensorboardX'].filter((m) => !moduleVersion(python, m));
  return skipForEnvironment(t, missing.length ? `the tests' Python lacks ${missing.join(', ')}` : undefined) ? undefined : python;
}

function py(exe: string, script: string, ...args: string[]): string {
  const r = spawnSync(exe, [script, ...args], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `python ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

type Ref = Record<string, [number, number, number][]>;

/** TensorBoard's points, stably sorted by step (the order our series promise). */
function reference(exe: string, script: string, dir: string): Ref {
  const ref = JSON.parse(py(exe, script, 'read', dir)) as Ref;
  for (const k of Object.keys(ref))
    ref[k] = ref[k]!.map((p, i) => [p, i] as const)
      .sort((a, b) => a[0][0] - b[0][0] || a[1] - b[1])
      .map(([p]) => p);
  return ref;
}

async function ours(dir: string): Promise<{ series: MetricSeries[]; run: TensorBoardRun }> {
  const run = new TensorBoardRun(dir, nodeFs());
  await run.update();
  return { series: run.series(), run };
}

function same(ref: Ref, series: MetricSeries[], what: string): void {
  assert.deepEqual(series.map((s) => s.tag).sort(), Object.keys(ref).sort(), `${what}: the same tags`);
  for (const s of series) {
    const r = ref[s.tag]!;
    assert.equal(s.points.length, r.length, `${what}: ${s.tag} count`);
    assert.deepEqual(
      s.points.map((p) => [p.step, p.wallTime, p.value]),
      r,
      `${what}: ${s.tag} steps, wall times and values`,
    );
  }
}

function setup(): { dir: string; script: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aj-tb-'));
  const script = join(dir, 'tb.py');
  writeFileSync(script, SCRIPT);
  return { dir, script, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('tensorboardX and torch.utils.tensorboard files, a restart into a second file: the same scalars as TensorBoard', async (t) => {
  const exe = python(t);
  if (!exe) return;
  const hasTorch = moduleVersion(exe, 'torch') !== undefined;
  const { dir, script, done } = setup();
  try {
    for (const writer of ['tensorboardX', ...(hasTorch ? ['torch'] : [])]) {
      const run = join(dir, writer);
      mkdirSync(run);
      py(exe, script, 'write', run, writer, '0');
      py(exe, script, 'write', run, writer, '1');
      assert.equal(readdirSync(run).filter((n) => n.includes('tfevents')).length, 2, 'two event files (a restart)');
      const ref = reference(exe, script, run);
      assert.ok(Object.keys(ref).length >= 4, `TensorBoard sees the scalars: ${Object.keys(ref).join(', ')}`);
      const { series, run: r } = await ours(run);
      same(ref, series, writer);
      assert.deepEqual(r.issues(), [], 'nothing to report');
      // Steps 25..39 were logged by both runs: TensorBoard keeps both (no SessionLog.START), so do we.
      assert.equal(series.find((s) => s.tag === 'actor/pg_loss')!.points.length, 40 + 35);
    }
    if (!hasTorch) t.diagnostic('torch not installed: torch.utils.tensorboard not checked');
  } finally {
    done();
  }
});

test('a last record cut short is waited for (not an error); once complete it is read like TensorBoard reads it', async (t) => {
  const exe = python(t);
  if (!exe) return;
  const { dir, script, done } = setup();
  try {
    const full = join(dir, 'full');
    mkdirSync(full);
    py(exe, script, 'write', full, 'tensorboardX', '0');
    const name = readdirSync(full).find((n) => n.includes('tfevents'))!;
    const live = join(dir, 'live');
    mkdirSync(live);
    const file = join(live, name);
    copyFileSync(join(full, name), file);
    const size = statSync(file).size;
    for (const cut of [1, 5, 13, 20]) {
      copyFileSync(join(full, name), file);
      truncateSync(file, size - cut);
      same(reference(exe, script, live), (await ours(live)).series, `cut ${cut} bytes`);
    }
    // Incremental: the reader that saw the cut file reads only the rest once it is written.
    copyFileSync(join(full, name), file);
    truncateSync(file, size - 20);
    const { run } = await ours(live);
    assert.deepEqual(run.issues(), [], 'a partial record is no issue');
    const before = run.series().find((s) => s.tag === 'tensor/double')!.points.length;
    const waitingAt = run.fileOffsets()[0]!.offset;
    assert.ok(waitingAt > 0 && waitingAt < size - 20, 'it waits at the start of the cut record');
    writeFileSync(file, readFileSync(join(full, name)));
    await run.update();
    assert.equal(run.bytesRead, size - waitingAt, 'only the bytes from the cut record on were read again');
    same(reference(exe, script, live), run.series(), 'completed');
    assert.equal(run.series().find((s) => s.tag === 'tensor/double')!.points.length, before + 1);
  } finally {
    done();
  }
});

test('a damaged record: TensorBoard stops reading the file there; so do we, and we say where', async (t) => {
  const exe = python(t);
  if (!exe) return;
  const { dir, script, done } = setup();
  try {
    const run = join(dir, 'run');
    mkdirSync(run);
    py(exe, script, 'write', run, 'tensorboardX', '0');
    const name = readdirSync(run).find((n) => n.includes('tfevents'))!;
    const file = join(run, name);
    const good = readFileSync(file);
    for (const [what, at] of [
      ['data byte', Math.floor(good.length / 2)],
      ['length byte', -1],
    ] as const) {
      const bad = Buffer.from(good);
      // -1: the header of the record that holds the middle byte (walk the framing to find it).
      let pos = 0;
      let target = at;
      while (pos < bad.length) {
        const len = bad.readUInt32LE(pos);
        if (pos + 16 + len > good.length / 2) {
          target = at === -1 ? pos + 1 : pos + 12 + Math.floor(len / 2);
          break;
        }
        pos += 16 + len;
      }
      bad[target] = bad[target]! ^ 0x40;
      writeFileSync(file, bad);
      const ref = reference(exe, script, run);
      const { series, run: r } = await ours(run);
      same(ref, series, what);
      const issues = r.issues();
      assert.equal(issues.length, 1, `${what}: one issue: ${JSON.stringify(issues)}`);
      assert.equal(issues[0]!.at, pos, `${what}: the damaged record's offset`);
      assert.match(issues[0]!.message, /damaged record/);
    }
  } finally {
    done();
  }
});
