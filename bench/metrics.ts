// npm run bench:metrics — reading a TensorBoard event file: ours (core/metrics, framing + CRC +
// protobufjs) beside a raw read of the same file (the floor) and TensorBoard's own EventAccumulator
// (the tests' venv, when it has tensorboard), each in a process of its own so its peak memory is
// its own. Prints figures; asserts nothing.
//   node --import tsx bench/metrics.ts [--points 100000] [--keys 20] [--mb N (overrides --points)] [--no-python] [--keep]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { frameRecord } from '../core/metrics/framing';
import { encodeScalarEvent } from '../core/metrics/eventProto';
import { TensorBoardRun } from '../core/metrics/tensorboard';
import { nodeFs } from '../core/fs/seam';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};

const PY = String.raw`
import json, resource, sys, time
from tensorboard.backend.event_processing import plugin_event_accumulator as pea
t0 = time.perf_counter()
acc = pea.EventAccumulator(sys.argv[1], size_guidance={pea.TENSORS: 0})
acc.Reload()
n = sum(len(acc.Tensors(tag)) for tag in acc.Tags()['tensors'])
ms = (time.perf_counter() - t0) * 1000
print(json.dumps({'ms': ms, 'points': n, 'maxRssMb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

async function child(mode: string, file: string): Promise<void> {
  const t0 = performance.now();
  let points = 0;
  if (mode === 'raw') points = readFileSync(file).length;
  else {
    const run = new TensorBoardRun(dirname(file), nodeFs());
    await run.update();
    for (const s of run.series()) points += s.points.length;
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, points, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
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

function run(cmd: string, args: string[]): { ms: number; points: number; maxRssMb: number } | string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 3_600_000 });
  if (r.status !== 0) return (r.stderr || r.stdout || String(r.error)).trim().split('\n').slice(-2).join(' ');
  return JSON.parse(r.stdout) as { ms: number; points: number; maxRssMb: number };
}

async function main(): Promise<void> {
  const ci = process.argv.indexOf('--child');
  if (ci >= 0) return child(process.argv[ci + 1]!, process.argv[ci + 2]!);
  const keys = arg('keys', 20);
  const mb = arg('mb', 0);
  // About 50 bytes a point (header, CRCs, an Event with one simple_value).
  const points = mb ? Math.round((mb * 1024 * 1024) / 52) : arg('points', 100_000);
  const steps = Math.max(1, Math.round(points / keys));
  const dir = mkdtempSync(join(tmpdir(), 'aj-bench-metrics-'));
  try {
    const t0 = performance.now();
    const file = generate(dir, keys, steps);
    const size = statSync(file).size;
    console.log(
      `event file: ${(size / 1024 / 1024).toFixed(1)} MB, ${keys} keys x ${steps} steps = ${keys * steps} points (written in ${(performance.now() - t0).toFixed(0)} ms)`,
    );
    const self = [process.execPath, '--import', 'tsx', __filename, '--child'];
    const rows: [string, ReturnType<typeof run>][] = [
      ['raw read (readFileSync)', run(self[0]!, [...self.slice(1), 'raw', file])],
      ['ours (core/metrics)', run(self[0]!, [...self.slice(1), 'ours', file])],
    ];
    if (!process.argv.includes('--no-python')) {
      const { ensureTestPython } = await import('../test/harness/python');
      const py = ensureTestPython().python;
      rows.push(["TensorBoard's EventAccumulator", run(py, ['-c', PY, dir])]);
    }
    for (const [name, r] of rows)
      console.log(
        typeof r === 'string'
          ? `${name.padEnd(32)} failed: ${r}`
          : `${name.padEnd(32)} ${r.ms.toFixed(0).padStart(8)} ms   peak RSS ${r.maxRssMb.toFixed(0).padStart(5)} MB   ${name.startsWith('raw') ? `${r.points} bytes` : `${r.points} points`}`,
      );
    const ours = rows[1]![1];
    const tb = rows[2]?.[1];
    if (typeof ours !== 'string' && tb && typeof tb !== 'string')
      console.log(`ours is ${(tb.ms / ours.ms).toFixed(1)}x faster than EventAccumulator`);
    if (process.argv.includes('--keep')) console.log(`kept ${dir}`);
  } finally {
    if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  }
}

void main();
