// Whole logs: run folders (hosts, rotated files, in order), the facts cache (extended when the
// file grows, never served for a rewritten file), worker threads, cancelling a search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FactsCache } from '../../core/logs/cache';
import { allTasks, collectFacts, findRunLogs, openLogs, searchTasks, stepCurves } from '../../core/logs/wholelog';
import { StepAggregator } from '../../core/runs/metrics';
import { RolloutCurves } from '../../core/runs/curves';
import { decodePayloadBytes } from '../../core/logs/decode';
import { statsFromFacts, computeStats, type LogStats } from '../../core/logs/stats';
import { LogSession } from '../../core/logs/session';
import { CancelledError } from '../../core/logs/index';
import { Rng, agentjetRecord, header, randomRecord } from '../util/tokenlogs';
import { repoRoot } from '../util/paths';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'ajwhole-'));
}

function records(seed: number, n: number): string[] {
  const r = new Rng(seed);
  return Array.from({ length: n }, (_, i) => randomRecord(r, i));
}

/** The reference: decode every record of each log in full (LogSession + computeStats). */
async function reference(mains: string[]): Promise<LogStats> {
  const all: LogStats[] = [];
  for (const m of mains) {
    const s = new LogSession(m);
    await s.update();
    all.push(await computeStats(s));
  }
  return all.reduce((a, b) => ({
    ...a,
    files: [...a.files, ...b.files],
    bytes: a.bytes + b.bytes,
    records: a.records + b.records,
    tokenRecords: a.tokenRecords + b.tokenRecords,
    otherRecords: a.otherRecords + b.otherRecords,
    timelines: a.timelines + b.timelines,
    tokens: a.tokens + b.tokens,
    trainedTokens: a.trainedTokens + b.trainedTokens,
    corruptRecords: a.corruptRecords + b.corruptRecords,
    corrupt: [...a.corrupt, ...b.corrupt.map((c) => ({ ...c, index: c.index + a.records }))].slice(0, 50),
    problems: [...a.problems, ...b.problems],
    partialTail: a.partialTail || b.partialTail,
    steps: a.steps,
  }));
}

async function fastStats(mains: string[], cache?: FactsCache, workers = 0) {
  const opened = await openLogs(mains, { cache });
  const facts = await collectFacts(opened, { cache, workers, minBytesForWorkers: 0 });
  return { stats: statsFromFacts(opened, facts), opened };
}

const cmp = (s: LogStats) => ({ ...s, steps: [] });

test('a run folder: hosts in name order, rotated files oldest first (<date>.2 after <date>), stats equal to decoding every record', async () => {
  const run = tmp();
  try {
    const a = join(run, 'gpu-a', 'rollout'),
      b = join(run, 'gpu-b', 'rollout');
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    mkdirSync(join(run, 'gpu-a', 'exception'));
    writeFileSync(join(run, 'gpu-a', 'exception', 'exception.json.log'), records(9, 2).join(''));
    const ra = records(1, 30),
      rb = records(2, 12);
    writeFileSync(join(a, 'rollout.json.2026-01-05_10-00-00_000000.log'), ra.slice(0, 10).join(''));
    writeFileSync(join(a, 'rollout.json.2026-01-05_10-00-00_000000.2.log'), ra.slice(10, 20).join(''));
    writeFileSync(join(a, 'rollout.json.log'), ra.slice(20).join(''));
    writeFileSync(join(b, 'rollout.json.log'), rb.join(''));
    const mains = await findRunLogs(run);
    assert.deepEqual(mains, [join(a, 'rollout.json.log'), join(b, 'rollout.json.log')]);
    const { stats, opened } = await fastStats(mains, undefined, 2);
    assert.equal(stats.records, 42);
    assert.deepEqual(
      opened.indexes[0]!.files.map((f) => f.path.slice(a.length + 1)),
      ['rollout.json.2026-01-05_10-00-00_000000.log', 'rollout.json.2026-01-05_10-00-00_000000.2.log', 'rollout.json.log'],
    );
    const ref = await reference(mains);
    assert.deepEqual(cmp(stats), cmp(ref));
    // The CLI reads the run folder the same way; export numbers records across the whole run.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'log', ...args, '--no-cache'], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
    const st = cli('stats', run, '--format', 'json');
    assert.equal(st.status, 0, st.stderr);
    assert.deepEqual(cmp(JSON.parse(st.stdout) as LogStats), cmp(ref));
    const ex = cli('export', run, '--jsonl');
    assert.equal(ex.status, 0, ex.stderr);
    const rows = ex.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { record: number });
    assert.equal(rows.length, ref.timelines);
    assert.ok(rows.every((r, i) => i === 0 || r.record >= rows[i - 1]!.record));
    assert.ok(rows[rows.length - 1]!.record >= 30, 'records of the second host come after the first');
    const none = cli('stats', join(run, 'gpu-a', 'exception'));
    assert.equal(none.status, 2);
    assert.match(none.stderr, /no rollout\.json\.log under/);
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
});

test("the dashboard's rollout curves of an experiment (sessions, hosts, rotated files): read again only when a log changed, from the cache", async () => {
  const exp = tmp();
  try {
    const a = join(exp, '2026_01_05_09_00', 'gpu-a', 'rollout'),
      b = join(exp, '2026_01_05_09_00', 'gpu-b', 'rollout');
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    writeFileSync(join(a, 'rollout.json.2026-01-05_10-00-00_000000.log'), records(31, 60).join(''));
    writeFileSync(join(a, 'rollout.json.log'), records(32, 60).join(''));
    writeFileSync(join(b, 'rollout.json.log'), records(33, 60).join(''));
    const cache = new FactsCache(join(exp, '.cache'));
    const curves = new RolloutCurves(exp, { cache, workers: 0 });
    const progress: number[] = [];
    assert.equal(await curves.refresh(undefined, (_p, pr) => progress.push(pr.done)), true);
    assert.equal(progress[progress.length - 1], 180);
    assert.equal(curves.progress, undefined);
    const fresh = async () => stepCurves(await openLogs(await findRunLogs(exp)), { workers: 0 });
    assert.deepEqual(curves.points, await fresh());
    assert.equal(await curves.refresh(), false, 'unchanged logs are not read again');
    appendFileSync(join(b, 'rollout.json.log'), records(34, 20).join(''));
    assert.equal(await curves.refresh(), true);
    assert.deepEqual(curves.points, await fresh());
  } finally {
    rmSync(exp, { recursive: true, force: true });
  }
});

test('the facts cache: a hit for an unchanged file, extended when the file grows (even mid-record), equal to a fresh read', async () => {
  const dir = tmp();
  try {
    const cache = new FactsCache(join(dir, 'cache'));
    const log = join(dir, 'rollout.json.log');
    const all = records(3, 60);
    writeFileSync(log, all.slice(0, 30).join(''));
    const first = await fastStats([log], cache);
    assert.deepEqual(first.opened.cache, { hit: 0, extended: 0, miss: 1, invalidated: 0 });
    const again = await fastStats([log], cache);
    assert.deepEqual(again.opened.cache, { hit: 1, extended: 0, miss: 0, invalidated: 0 });
    assert.deepEqual(again.stats, first.stats);
    // The writer appends records and is caught half-way through the next one.
    const half = all[40]!.slice(0, Math.floor(all[40]!.length * 0.6));
    appendFileSync(log, all.slice(30, 40).join('') + half);
    const grown = await fastStats([log], cache);
    assert.deepEqual(grown.opened.cache, { hit: 0, extended: 1, miss: 0, invalidated: 0 });
    assert.equal(grown.stats.records, 41);
    assert.deepEqual(cmp(grown.stats), cmp(await reference([log])));
    appendFileSync(log, all[40]!.slice(half.length) + all.slice(41).join(''));
    const done = await fastStats([log], cache);
    assert.deepEqual(done.opened.cache, { hit: 0, extended: 1, miss: 0, invalidated: 0 });
    assert.equal(done.stats.records, 60);
    assert.deepEqual(cmp(done.stats), cmp(await reference([log])));
    assert.deepEqual(done.stats, (await fastStats([log])).stats, 'extended cache = no cache');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the facts cache is not served for a rewritten file (new inode, or same size with a new mtime)', async () => {
  const dir = tmp();
  try {
    const cache = new FactsCache(join(dir, 'cache'));
    const log = join(dir, 'rollout.json.log');
    const a = records(4, 20).join('');
    writeFileSync(log, a);
    const before = await fastStats([log], cache);
    // Same bytes count, other content, replaced by rename, with the old mtime put back.
    const b = Buffer.from(records(5, 40).join('')).subarray(0, Buffer.byteLength(a));
    const { mtime } = statSync(log);
    writeFileSync(log + '.new', b);
    renameSync(log + '.new', log);
    utimesSync(log, mtime, mtime);
    const after = await fastStats([log], cache);
    assert.equal(after.opened.cache.invalidated, 1);
    assert.deepEqual(cmp(after.stats), cmp(await reference([log])));
    assert.notDeepEqual(after.stats, before.stats);
    // Rewritten in place (same inode, same size), a second later.
    const c = Buffer.from(records(6, 40).join('')).subarray(0, b.length);
    writeFileSync(log, c);
    utimesSync(log, new Date(mtime.getTime() + 5000), new Date(mtime.getTime() + 5000));
    const third = await fastStats([log], cache);
    assert.equal(third.opened.cache.invalidated, 1);
    assert.deepEqual(cmp(third.stats), cmp(await reference([log])));
    // Rewritten in place and longer, with records of the same sizes stamped with the same times
    // (a rerun within the same millisecond): every record header line is where it was and the
    // same, the payloads are not. That is not a grown file.
    const run = (step: number, n: number) =>
      Array.from({ length: n }, (_, i) =>
        agentjetRecord(
          step,
          `t${i % 4}`,
          Array.from({ length: 40 + i }, (_, k) => ` w${k}`),
        ),
      ).join('');
    writeFileSync(log, run(1, 12));
    await fastStats([log], cache);
    const old = readFileSync(log);
    writeFileSync(log, run(5, 14));
    const now = readFileSync(log);
    const lastAt = old.lastIndexOf(header());
    assert.ok(
      now.length > old.length && now.subarray(lastAt, lastAt + 64).equals(old.subarray(lastAt, lastAt + 64)),
      'the headers line up',
    );
    const fourth = await fastStats([log], cache);
    assert.deepEqual(fourth.opened.cache, { hit: 0, extended: 0, miss: 0, invalidated: 1 });
    assert.deepEqual(cmp(fourth.stats), cmp(await reference([log])));
    // The cache folder stays bounded: room for one entry, the oldest goes.
    const entry = readdirSync(join(dir, 'cache')).map((n) => statSync(join(dir, 'cache', n)).size)[0]!;
    const other = join(dir, 'other.json.log');
    writeFileSync(other, readFileSync(log));
    const tiny = new FactsCache(join(dir, 'tiny'), Math.floor(entry * 1.5));
    await fastStats([log], tiny);
    assert.equal(readdirSync(join(dir, 'tiny')).length, 1);
    const firstEntry = join(dir, 'tiny', readdirSync(join(dir, 'tiny'))[0]!);
    utimesSync(firstEntry, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000)); // written earlier
    await fastStats([other], tiny);
    const left = readdirSync(join(dir, 'tiny'));
    assert.equal(left.length, 1);
    // The first line of a cache file says which log it describes.
    const head = readFileSync(join(dir, 'tiny', left[0]!), 'utf8').split('\n')[0]!;
    assert.equal((JSON.parse(head) as { path: string }).path, other);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a search on worker threads streams hits in file order and stops when cancelled mid-way', async () => {
  const dir = tmp();
  try {
    const log = join(dir, 'rollout.json.log');
    writeFileSync(log, records(8, 400).join(''));
    const opened = await openLogs([log]);
    const tasks = allTasks(opened, 8 * 1024);
    assert.ok(tasks.length >= 8, `tasks ${tasks.length}`);
    const full = await searchTasks(tasks, 'hi', { workers: 2, minBytesForWorkers: 0 });
    assert.ok(full.hits.length > 20);
    assert.ok(full.hits.every((h, i) => i === 0 || h.index > full.hits[i - 1]!.index));
    assert.equal(full.counts.done, full.counts.total);
    // The same hits as the decoder-based search of every record, on the calling thread.
    const s = new LogSession(log);
    await s.update();
    const inline = await s.search('hi', s.query(), { workers: 0 });
    assert.deepEqual(inline, full.hits);
    const ac = new AbortController();
    let batches = 0,
      afterAbort = 0;
    await assert.rejects(
      searchTasks(tasks, 'hi', {
        workers: 2,
        minBytesForWorkers: 0,
        signal: ac.signal,
        onHits: () => {
          if (ac.signal.aborted) afterAbort++;
          batches++;
          if (batches === 2) ac.abort();
        },
      }),
      (e: unknown) => e instanceof CancelledError,
    );
    assert.equal(afterAbort, 0);
    assert.ok(batches < tasks.length, `${batches} of ${tasks.length} batches before the cancel took effect`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a run's per-step curves (the dashboard's rollout data) grow progressively and equal the dashboard's own aggregation", async () => {
  const run = tmp();
  try {
    const a = join(run, 'gpu-a', 'rollout'),
      b = join(run, 'gpu-b', 'rollout');
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    writeFileSync(join(a, 'rollout.json.2026-01-05_10-00-00_000000.log'), records(11, 150).join(''));
    writeFileSync(join(a, 'rollout.json.log'), records(12, 150).join(''));
    writeFileSync(join(b, 'rollout.json.log'), records(13, 150).join(''));
    const opened = await openLogs(await findRunLogs(run));
    const seen: number[] = [];
    const points = await stepCurves(opened, { workers: 2, minBytesForWorkers: 0, onPoints: (_p, done) => seen.push(done) });
    assert.ok(seen.length >= 3 && seen[seen.length - 1] === 450, `progress ${seen.join(',')}`);
    // The dashboard's aggregator over every record, decoded in full.
    const agg = new StepAggregator();
    for (const ix of opened.indexes) {
      for (let i = 0; i < ix.count; i++) {
        const d = decodePayloadBytes((await ix.readRecord(i))!);
        if (d.ok) agg.add({ header: d.header, payload: d.payload });
      }
    }
    const want = agg.points();
    // One rule for the mean response length (a null len_response_ids is unknown, not 0): the
    // random records hold null, numeric and string lengths.
    assert.deepEqual(
      points.map((p) => [p.step, p.records, p.firstTime]),
      want.map((p) => [p.step, p.records, p.firstTime]),
    );
    points.forEach((p, k) => {
      const w = want[k]!;
      for (const key of ['meanReward', 'successRate', 'meanResponseLength'] as const) {
        assert.equal(p[key] === undefined, w[key] === undefined, `step ${p.step} ${key}`);
        if (p[key] !== undefined) assert.ok(Math.abs(p[key] - w[key]!) < 1e-9, `step ${p.step} ${key}: ${p[key]} vs ${w[key]}`);
      }
    });
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
});
