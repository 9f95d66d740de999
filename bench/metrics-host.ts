// npm run bench:metrics-host — how long the calling thread (the extension host's event loop) is
// held while the dashboard reads a large TensorBoard event file: the in-process reader
// (core/metrics/read.ts, what the dashboard used before) against the worker-thread reader
// (core/metrics/offThread.ts, what it uses now). Each in a process of its own: the longest event-loop
// delay (perf_hooks.monitorEventLoopDelay) and the longest gap between 5 ms timer ticks while the
// file is read, summarised and one key's points handed over. Prints figures; asserts nothing.
// 'idle' is the floor: the same probes with nothing read (timer and scheduling noise of the machine).
// Set AGENTJET_METRICS_WORKER=dist/metricsworker.js to time the bundled worker (else tsx loads its source).
//   node --import tsx bench/metrics-host.ts [--mb 100] [--keys 200] [--file EVENTS_FILE] [--mode idle|inproc|worker]
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { frameRecord } from '../core/metrics/framing';
import { encodeScalarEvent } from '../core/metrics/eventProto';
import { RunMetricsReader } from '../core/metrics/read';
import { MetricsThread, OffThreadMetricsReader } from '../core/metrics/offThread';
import { runMetricsInfo } from '../core/metrics/view';
import { nodeFs } from '../core/fs/seam';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/** One event per scalar, as verl's tracking (torch.utils.tensorboard / tensorboardX add_scalar) writes them. */
function generate(dir: string, keys: number, mb: number): string {
  const file = join(dir, 'events.out.tfevents.1700000000.bench.1.0');
  const fd = openSync(file, 'w');
  writeSync(fd, frameRecord(encodeScalarEvent({ step: 0, wallTime: 1.7e9, fileVersion: 'brain.Event:2' })));
  const tags = Array.from(
    { length: keys },
    (_, k) => ['actor/pg_loss', 'critic/score/mean', 'timing_s/gen', 'perf/throughput'][k % 4] + `_${k}`,
  );
  let bytes = 0;
  for (let s = 0; bytes < mb * 1e6; s++) {
    const parts: Uint8Array[] = [];
    for (let k = 0; k < keys; k++)
      parts.push(
        frameRecord(encodeScalarEvent({ step: s, wallTime: 1.7e9 + s * 10 + k / 1000, values: [[tags[k]!, Math.sin(s / 50 + k)]] })),
      );
    const b = Buffer.concat(parts);
    bytes += b.length;
    writeSync(fd, b);
  }
  closeSync(fd);
  return file;
}

async function measure(mode: string, file: string): Promise<void> {
  const dir = dirname(file);
  const sources = { tensorboard: [dir], swanlab: [], console: [], looked: [] };
  const h = monitorEventLoopDelay({ resolution: 5 });
  let last = performance.now();
  let gap = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    if (process.env.BENCH_TRACE && now - last > 30) console.error(`gap ${Math.round(now - last)} ms at ${Math.round(last - t0)} ms`);
    last = now;
  }, 5);
  h.enable();
  const t0 = performance.now();
  let keys = 0;
  let points = 0;
  if (mode === 'idle') {
    // The floor: nothing read, the same wait (timer and scheduling noise on a loaded machine).
    await new Promise((res) => setTimeout(res, Number(arg('idle-ms') ?? 3000)));
  } else if (mode === 'inproc') {
    // What the dashboard did: update, result, summary, one key's points, all on this thread.
    const r = new RunMetricsReader(sources, nodeFs());
    await r.update();
    const res = r.result();
    const info = runMetricsInfo(dir, { ...res, looked: [] });
    keys = info.keys.length;
    points = res.series[0]!.points.length;
  } else {
    const thread = new MetricsThread();
    const r = new OffThreadMetricsReader(sources, thread, { info: { run: dir, looked: [] } });
    await r.update();
    if (process.env.BENCH_TRACE) console.error(`replied at ${Math.round(performance.now() - t0)} ms`);
    keys = r.info()!.keys.length;
    points = r.points(r.tags()[0]!)!.length;
    thread.dispose();
  }
  const ms = performance.now() - t0;
  h.disable();
  clearInterval(tick);
  console.log(
    JSON.stringify({
      mode,
      ms: Math.round(ms),
      keys,
      pointsPerKey: points,
      maxDelayMs: Math.round(h.max / 1e6),
      p99DelayMs: Math.round(h.percentile(99) / 1e6),
      longestTickGapMs: Math.round(gap),
    }),
  );
}

async function main(): Promise<void> {
  const mode = arg('mode');
  const given = arg('file');
  if (mode && given) return measure(mode, given);
  const dir = mkdtempSync(join(tmpdir(), 'aj-bench-host-'));
  try {
    const file = given ?? generate(dir, Number(arg('keys') ?? 200), Number(arg('mb') ?? 100));
    console.log(`event file: ${(statSync(file).size / 1e6).toFixed(1)} MB`);
    for (const m of ['idle', 'inproc', 'worker']) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--mode', m, '--file', file], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      process.stdout.write(r.stdout);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
