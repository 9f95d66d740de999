// npm run bench:tokens: the token log engine against the naive approach (read the whole file,
// split lines, as beast_logger_go's server does) on generated rollout logs of 100 MB and 1 GB.
// Each measurement runs in its own process so its peak RSS is its own. Prints figures only.
//   BENCH_SIZES=100,1000   sizes in MB (default both); inputs are cached in bench-output/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LogSession } from '../core/logs/session';
import { decodePayload, parseHeaderLine } from '../core/logs/record';
import { repoRoot } from '../test/util/paths';
import { writeRolloutLog } from '../test/gen/rollout';

interface Result {
  ok: boolean;
  error?: string;
  records?: number;
  firstRecordMs?: number;
  indexMs?: number;
  summariesMs?: number;
  openMs?: number;
  openMaxMs?: number;
  searchMs?: number;
  peakRssMb: number;
}

function peakRssMb(): number {
  // maxRSS is in kilobytes and covers the whole life of this process.
  return process.resourceUsage().maxRSS / 1024;
}

async function engine(file: string, withSearch: boolean): Promise<Result> {
  const t0 = performance.now();
  const s = new LogSession(file, { siblings: false, cacheSize: 2 });
  let firstSeen!: () => void;
  const first = new Promise<void>((r) => {
    firstSeen = r;
  });
  let signalled = false;
  const indexing = s.update({
    onRecords: (n) => {
      if (n >= 1 && !signalled) {
        signalled = true;
        firstSeen();
      }
    },
  });
  // What the viewer does: as soon as the first chunk yields a record, decode and show it.
  const firstShown = first.then(async () => {
    const r = await s.record(0);
    if (!r?.ok) throw new Error(`first record did not decode: ${r ? r.error : 'missing'}`);
    return performance.now() - t0;
  });
  await indexing;
  const indexMs = performance.now() - t0;
  const firstRecordMs = await firstShown;
  const t1 = performance.now();
  await s.summarize();
  const summariesMs = performance.now() - t1;
  // Open records spread over the file, cold in the session cache.
  const open = await timeOpens(s.count, async (i) => {
    const r = await s.record(i);
    if (!r?.ok) throw new Error(`record ${i} did not decode`);
  });
  let searchMs: number | undefined;
  if (withSearch) {
    const t = performance.now();
    await s.search('boxed final', s.query());
    searchMs = performance.now() - t;
  }
  return {
    ok: true,
    records: s.count,
    firstRecordMs,
    indexMs,
    summariesMs,
    openMs: open.meanMs,
    openMaxMs: open.maxMs,
    searchMs,
    peakRssMb: peakRssMb(),
  };
}

/** Times opening 20 records spread over `count` (mean and slowest, ms). */
async function timeOpens(count: number, open: (i: number) => Promise<void> | void): Promise<{ meanMs: number; maxMs: number }> {
  const picks = Array.from({ length: 20 }, (_, k) => Math.floor(((k + 0.5) / 20) * count));
  let total = 0,
    max = 0;
  for (const i of picks) {
    const t = performance.now();
    await open(i);
    const dt = performance.now() - t;
    total += dt;
    max = Math.max(max, dt);
  }
  return { meanMs: total / picks.length, maxMs: max };
}

/** beast_logger_go style: whole file into one string, split into lines, pair header + payload. */
async function naive(file: string): Promise<Result> {
  const t0 = performance.now();
  try {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const records: { header: string; payload: string }[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (parseHeaderLine(lines[i]!) && i + 1 < lines.length) records.push({ header: lines[i]!, payload: lines[++i]! });
    }
    const r0 = decodePayload(records[0]!.payload);
    if (!r0.ok) throw new Error('first record did not decode');
    const firstRecordMs = performance.now() - t0;
    const open = await timeOpens(records.length, (i) => void decodePayload(records[i]!.payload));
    return {
      ok: true,
      records: records.length,
      firstRecordMs,
      indexMs: firstRecordMs,
      openMs: open.meanMs,
      openMaxMs: open.maxMs,
      peakRssMb: peakRssMb(),
    };
  } catch (err) {
    return {
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      firstRecordMs: performance.now() - t0,
      peakRssMb: peakRssMb(),
    };
  }
}

function input(mb: number): string {
  const dir = join(repoRoot, 'bench-output');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `rollout-${mb}mb.json.log`);
  if (existsSync(file)) return file;
  console.log(`generating ${file} with the project's rollout generator (test/gen/rollout.ts), cached for later runs…`);
  const part = `${file}.part`;
  const t0 = performance.now();
  const r = writeRolloutLog(part, { targetBytes: mb * 1024 * 1024, seed: 0 });
  console.log(`  ${r.records} records, ${(r.bytes / 1048576).toFixed(0)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  renameSync(part, file);
  return file;
}

function runWorker(kind: 'engine' | 'naive', file: string, search: boolean): Result {
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--max-old-space-size=4096',
      join(repoRoot, 'bench', 'tokens.ts'),
      '--worker',
      kind,
      file,
      search ? '--search' : '',
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line)
    return { ok: false, error: `worker exited ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`, peakRssMb: NaN };
  return JSON.parse(line.slice(7)) as Result;
}

const f = (n: number | undefined, d = 0) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(d));

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const w = argv.indexOf('--worker');
  if (w >= 0) {
    const kind = argv[w + 1];
    const file = argv[w + 2]!;
    const res = kind === 'engine' ? await engine(file, argv.includes('--search')) : await naive(file);
    process.stdout.write(`RESULT ${JSON.stringify(res)}\n`);
    return;
  }
  const sizes = (process.env.BENCH_SIZES ?? '100,1000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  console.log(`node ${process.version}, page cache warm (the input was just generated or read), one process per measurement\n`);
  for (const mb of sizes) {
    const file = input(mb);
    const bytes = statSync(file).size;
    // Read once so both approaches start from the same (warm) page cache.
    spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'ignore'] });
    const e = runWorker('engine', file, mb <= 100);
    const n = runWorker('naive', file, false);
    const mbs = bytes / 1048576;
    console.log(`== ${file.replace(repoRoot + '/', '')}: ${f(mbs, 1)} MB, ${e.records ?? '?'} records`);
    if (!e.ok) console.log(`engine FAILED: ${e.error}`);
    console.log(
      `engine: first record shown ${f(e.firstRecordMs, 1)} ms · full index ${f(e.indexMs)} ms = ${f(e.indexMs ? mbs / (e.indexMs / 1000) : undefined)} MB/s · summaries (step/task/reward of every record) ${f(e.summariesMs)} ms · open a record ${f(e.openMs, 1)} ms avg, ${f(e.openMaxMs, 1)} ms max${e.searchMs !== undefined ? ` · full-text search over all records ${f(e.searchMs)} ms` : ''} · peak RSS ${f(e.peakRssMb)} MB`,
    );
    if (n.ok) {
      console.log(
        `naive:  first record shown ${f(n.firstRecordMs)} ms · open a record ${f(n.openMs, 1)} ms avg · peak RSS ${f(n.peakRssMb)} MB`,
      );
      console.log(
        `ratio naive/engine: first record ${f((n.firstRecordMs ?? 0) / (e.firstRecordMs ?? 1), 0)}x slower · peak memory ${f(n.peakRssMb / e.peakRssMb, 1)}x more`,
      );
    } else {
      console.log(`naive:  FAILED after ${f(n.firstRecordMs)} ms: ${n.error} (peak RSS ${f(n.peakRssMb)} MB)`);
      console.log('ratio naive/engine: the naive approach cannot open this file at all');
    }
    console.log('');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
