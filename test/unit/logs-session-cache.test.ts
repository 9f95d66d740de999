// The viewer's engine (LogSession) with the facts cache: a reopened unchanged file is served
// from the cache (no summaries pass, token counts known at once), a grown file is extended, and
// a rewritten file is never served from it (its rows are those of the new content).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FactsCache } from '../../core/logs/cache';
import { LogSession } from '../../core/logs/session';
import { Rng, randomRecord } from '../util/tokenlogs';

function records(seed: number, n: number): string[] {
  const r = new Rng(seed);
  return Array.from({ length: n }, (_, i) => randomRecord(r, i));
}

/** Opens the file as the viewer does: index, summaries, then the background facts pass. */
async function open(log: string, cache?: FactsCache): Promise<{ s: LogSession; summarizedAfterIndex: number }> {
  const s = new LogSession(log, { factsCache: cache });
  await s.update();
  const summarizedAfterIndex = s.summarized;
  await s.summarize();
  await s.computeFacts({ workers: 0 });
  return { s, summarizedAfterIndex };
}

/** Rows as the list shows them (the time aside), with counts from full decodes as the reference. */
async function decodedRows(log: string) {
  const s = new LogSession(log);
  await s.update();
  await s.summarize();
  for (let i = 0; i < s.count; i++) await s.record(i);
  return rows(s);
}

function rows(s: LogSession) {
  return Array.from({ length: s.count }, (_, i) => s.row(i));
}

test('viewer path: an unchanged file is served from the facts cache, rows equal to decoding every record', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajsess-'));
  try {
    const cache = new FactsCache(join(dir, 'cache'));
    const log = join(dir, 'rollout.json.log');
    writeFileSync(log, records(11, 30).join(''));
    const first = await open(log, cache);
    assert.deepEqual(first.s.cacheOutcomes, ['miss']);
    assert.equal(first.summarizedAfterIndex, 0);
    assert.equal(first.s.factsKnown, first.s.count);
    const again = await open(log, cache);
    assert.deepEqual(again.s.cacheOutcomes, ['hit']);
    assert.equal(again.summarizedAfterIndex, again.s.count, 'no summaries pass after a cache hit');
    assert.equal(again.s.factsKnown, again.s.count);
    const ref = await decodedRows(log);
    assert.deepEqual(rows(again.s), ref);
    assert.deepEqual(rows(first.s), ref);
    // Filters work on the cached facts straight away.
    const s = new LogSession(log, { factsCache: cache });
    await s.update();
    assert.deepEqual(
      s.query({ stepMin: 1, stepMax: 3 }, { key: 'tokens', desc: true }),
      first.s.query({ stepMin: 1, stepMax: 3 }, { key: 'tokens', desc: true }),
    );
    // Grown: extended from the cache, the new records scanned.
    appendFileSync(log, records(12, 10).join(''));
    const grown = await open(log, cache);
    assert.deepEqual(grown.s.cacheOutcomes, ['extended']);
    assert.ok(grown.summarizedAfterIndex > 0 && grown.summarizedAfterIndex < grown.s.count);
    assert.deepEqual(rows(grown.s), await decodedRows(log));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('viewer path: a rewritten file (same size, old mtime put back, new inode; or in place) is not served from the cache', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajsess-'));
  try {
    const cache = new FactsCache(join(dir, 'cache'));
    const log = join(dir, 'rollout.json.log');
    const a = records(21, 25).join('');
    writeFileSync(log, a);
    const before = await open(log, cache);
    const b = Buffer.from(records(22, 50).join('')).subarray(0, Buffer.byteLength(a));
    const { mtime } = statSync(log);
    writeFileSync(log + '.new', b);
    renameSync(log + '.new', log);
    utimesSync(log, mtime, mtime);
    const after = await open(log, cache);
    assert.deepEqual(after.s.cacheOutcomes, ['invalidated']);
    assert.equal(after.summarizedAfterIndex, 0);
    const ref = await decodedRows(log);
    assert.deepEqual(rows(after.s), ref);
    assert.notDeepEqual(rows(after.s), rows(before.s));
    // In place, same size, a later mtime.
    const c = Buffer.from(records(23, 50).join('')).subarray(0, b.length);
    writeFileSync(log, c);
    utimesSync(log, new Date(mtime.getTime() + 5000), new Date(mtime.getTime() + 5000));
    const third = await open(log, cache);
    assert.deepEqual(third.s.cacheOutcomes, ['invalidated']);
    assert.deepEqual(rows(third.s), await decodedRows(log));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('facts cache in slices: a file of many records is written a slice per line and read back whole; a cut, damaged or older file is a miss', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajsess-'));
  try {
    const cacheDir = join(dir, 'cache');
    // 7 records a line: 30 records make 5 lines after the header, the last one shorter.
    const cache = new FactsCache(cacheDir, undefined, 7);
    const log = join(dir, 'rollout.json.log');
    writeFileSync(log, records(31, 30).join(''));
    const first = await open(log, cache);
    assert.deepEqual(first.s.cacheOutcomes, ['miss']);
    const [name] = readdirSync(cacheDir).filter((n) => n.endsWith('.json'));
    const file = join(cacheDir, name!);
    const lines = readFileSync(file, 'utf8').split('\n');
    assert.equal(lines.pop(), '', 'the file ends with a line end');
    assert.equal(lines.length, 1 + Math.ceil(first.s.count / 7));
    const header = JSON.parse(lines[0]!) as { records: number; factCount: number };
    assert.deepEqual([header.records, header.factCount], [30, 30]);
    const again = await open(log, cache);
    assert.deepEqual(again.s.cacheOutcomes, ['hit']);
    assert.equal(again.summarizedAfterIndex, again.s.count, 'no summaries pass after a cache hit');
    assert.deepEqual(rows(again.s), rows(first.s));
    assert.deepEqual(rows(again.s), await decodedRows(log));
    // The same file read with another slice size: the lines say what they hold.
    const other = await open(log, new FactsCache(cacheDir));
    assert.deepEqual(other.s.cacheOutcomes, ['hit']);
    const good = readFileSync(file, 'utf8');
    const damaged: [string, string][] = [
      ['cut after a slice', lines.slice(0, -1).join('\n') + '\n'],
      ['cut inside a slice', good.slice(0, good.length - 20)],
      ['a slice that is not one', [lines[0], '{"o":[1],"t":[]}', ...lines.slice(2)].join('\n') + '\n'],
      ['a line too many', good + lines.at(-1) + '\n'],
      ['version 2 (one JSON line)', JSON.stringify({ v: 2, path: log }) + '\n'],
      ['not JSON', '{"v":3,' + 'x'.repeat(100)],
    ];
    for (const [what, text] of damaged) {
      writeFileSync(file, text);
      const s = await open(log, new FactsCache(cacheDir, undefined, 7));
      assert.deepEqual(s.s.cacheOutcomes, ['miss'], what);
      assert.deepEqual(rows(s.s), rows(first.s), what);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
