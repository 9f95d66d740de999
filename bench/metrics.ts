// npm run bench:metrics — summarising a TensorBoard event file: ours (core/metrics, framing + CRC +
// protobufjs, then every key's count, last, min, max) beside a raw read of the same file (the
// floor) and TensorBoard's own EventAccumulator (the tests' venv), each in a process of its own so
// its peak memory is its own. Prints figures; asserts nothing.
// By default the file is the issue's: 200 keys, written by tensorboardX (one add_scalar per key and
// step, as verl's tracking logs) until it holds about 200 MB (5,000 steps x 200 keys make about
// 56 MB at tensorboardX's ~56 bytes a point, so the steps are raised to reach the size).
//   node --import tsx bench/metrics.ts [--mb 200] [--keys 200] [--steps N (instead of --mb)]
//        [--synthetic (our own encoder writes it, no Python)] [--file EVENTS_FILE (reuse one)] [--no-python] [--keep]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { frameRecord } from '../core/metrics/framing';
import { encodeScalarEvent } from '../core/metrics/eventProto';
import { TensorBoardRun } from '../core/metrics/tensorboard';
import { nodeFs } from '../core/fs/seam';
import { summarize } from '../core/metrics/summary';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};

// TensorBoard's loader keeping every point (size_guidance 0), then the same summary ours prints.
const PY = String.raw`
import json, resource, sys, time
from tensorboard.backend.event_processing import plugin_event_accumulator as pea
from tensorboard.util import tensor_util
t0 = time.perf_counter()
r0 = resource.getrusage(resource.RUSAGE_SELF)
acc = pea.EventAccumulator(sys.argv[1], size_guidance={pea.TENSORS: 0})
acc.Reload()
n = 0
for tag in acc.Tags()['tensors']:
    vals = [float(tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]
    n += len(vals)
    summary = (len(vals), vals[-1], min(vals), max(vals))
ms = (time.perf_counter() - t0) * 1000
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
print(json.dumps({'ms': ms, 'cpuMs': cpu, 'points': n, 'maxRssMb': r1.ru_maxrss / 1024}))
`;

// tensorboardX's SummaryWriter, one add_scalar per key and step.
const PY_WRITE = String.raw`
import math, sys
from tensorboardX import SummaryWriter
d, keys, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
groups = ['actor/pg_loss', 'critic/rewards/mean', 'timing_s/gen', 'perf/throughput', 'val-core/acc', 'response_length/mean']
tags = ['%s_%d' % (groups[k % len(groups)], k) for k in range(keys)]
w = SummaryWriter(d, flush_secs=3600, max_queue=100000)
for s in range(steps):
    for k, tag in enumerate(tags):
        w.add_scalar(tag, math.sin(s / 50 + k), s)
w.close()
`;

async function child(mode: string, file: string): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let points = 0;
  if (mode === 'raw') points = readFileSync(file).length;
  else {
    const run = new TensorBoardRun(dirname(file), nodeFs());
    await run.update();
    for (const s of run.series()) {
      points += s.points.length;
      summarize(s);
    }
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000, points, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
}

function generate(dir: string, keys: number, steps: number): string {
  const file = join(dir, 'events.out.tfevents.1700000000.bench.1.0');
  const fd = openSync(file, 'w');
  writeSync(fd, frameRecord(encodeScalarEvent({ step: 0, wallTime: 1.7e9, fileVersion: 'brain.Event:2' })));
  const tags = Array.from(
    { length: keys },
    (_, k) => ['actor/pg_loss', 'critic/score/mean', 'timing_s/gen', 'perf/throughput'][k % 4] + `_${k}`,
  );
  const parts: Uint8Array[] = [];
  // One event per scalar, as torch.utils.tensorboard's add_scalar (verl's tracking) writes them.
  for (let s = 0; s < steps; s++) {
    for (let k = 0; k < keys; k++)
      parts.push(
        frameRecord(encodeScalarEvent({ step: s, wallTime: 1.7e9 + s * 10 + k / 1000, values: [[tags[k]!, Math.sin(s / 50 + k)]] })),
      );
    if (parts.length > 20000) writeSync(fd, Buffer.concat(parts.splice(0)));
  }
  writeSync(fd, Buffer.concat(parts));
  closeSync(fd);
  return file;
}

interface Timing {
  ms: number;
  cpuMs: number;
  points: number;
  maxRssMb: number;
}

function run(cmd: string, args: string[]): Timing | string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 3_600_000 });
  if (r.status !== 0) return (r.stderr || r.stdout || String(r.error)).trim().split('\n').slice(-2).join(' ');
  return JSON.parse(r.stdout) as Timing;
}

/** Bytes a point takes in a file tensorboardX writes with these tags (measured on its output: ~56). */
const TBX_BYTES_PER_POINT = 56;

async function main(): Promise<void> {
  const ci = process.argv.indexOf('--child');
  if (ci >= 0) return child(process.argv[ci + 1]!, process.argv[ci + 2]!);
  const keys = arg('keys', 200);
  const mb = arg('mb', 200);
  const synthetic = process.argv.includes('--synthetic');
  const fi = process.argv.indexOf('--file');
  const steps = arg('steps', 0) || Math.max(1, Math.round((mb * 1e6) / (synthetic ? 52 : TBX_BYTES_PER_POINT) / keys));
  const dir = mkdtempSync(join(tmpdir(), 'aj-bench-metrics-'));
  const python = process.argv.includes('--no-python') ? undefined : (await import('../test/harness/python')).ensureTestPython().python;
  try {
    const t0 = performance.now();
    let file: string;
    if (fi >= 0) file = process.argv[fi + 1]!;
    else if (synthetic || !python) file = generate(dir, keys, steps);
    else {
      const w = spawnSync(python, ['-c', PY_WRITE, dir, String(keys), String(steps)], { encoding: 'utf8', timeout: 7_200_000 });
      if (w.status !== 0) throw new Error(`tensorboardX could not write the file: ${(w.stderr || String(w.error)).trim().slice(-400)}`);
      file = join(
        dir,
        readdirSync(dir).find((n) => n.includes('tfevents'))!,
      );
    }
    const size = statSync(file).size;
    const writer = fi >= 0 ? 'given' : synthetic || !python ? 'our encoder' : 'tensorboardX';
    console.log(
      `event file: ${(size / 1e6).toFixed(1)} MB (${writer}), ${fi >= 0 ? '' : `${keys} keys x ${steps} steps = ${keys * steps} points, ${(size / (keys * steps)).toFixed(1)} bytes a point, `}written in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    const self = [process.execPath, '--import', 'tsx', __filename, '--child'];
    const rows: [string, ReturnType<typeof run>][] = [
      ['raw read (readFileSync)', run(self[0]!, [...self.slice(1), 'raw', file])],
      ['ours (core/metrics)', run(self[0]!, [...self.slice(1), 'ours', file])],
    ];
    if (python) rows.push(["TensorBoard's EventAccumulator", run(python, ['-c', PY, dirname(file)])]);
    for (const [name, r] of rows)
      console.log(
        typeof r === 'string'
          ? `${name.padEnd(32)} failed: ${r}`
          : `${name.padEnd(32)} ${r.ms.toFixed(0).padStart(8)} ms wall ${r.cpuMs.toFixed(0).padStart(8)} ms CPU   peak RSS ${r.maxRssMb.toFixed(0).padStart(5)} MB   ${name.startsWith('raw') ? `${r.points} bytes` : `${r.points} points`}`,
      );
    const ours = rows[1]![1];
    const tb = rows[2]?.[1];
    if (typeof ours !== 'string' && tb && typeof tb !== 'string')
      console.log(
        `ours is ${(tb.ms / ours.ms).toFixed(1)}x faster than EventAccumulator in wall time, ${(tb.cpuMs / ours.cpuMs).toFixed(1)}x in CPU time (the figure a loaded machine moves least), with ${(tb.maxRssMb / ours.maxRssMb).toFixed(1)}x less peak memory`,
      );
    if (process.argv.includes('--keep')) console.log(`kept ${dir}`);
  } finally {
    if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  }
}

void main();
