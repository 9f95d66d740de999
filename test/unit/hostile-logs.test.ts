// Hostile token logs (issue 22, items 1-5): decompression bombs, an export that would overwrite
// its input, a file replaced or cut while it is read, closed pipes, FIFOs and devices given as
// logs. Property tests (fast-check, fixed budget, seed in the report) over the decoder, the fast
// scanner and the indexer; every defect also as a named case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { linkSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { decodeRecord, summarizePrefix } from '../../core/logs/decode';
import { FastScanner } from '../../core/logs/fastscan';
import { inflateBounded, inflatePrefix, RecordTooLargeError, TOO_LARGE } from '../../core/logs/inflate';
import { FileChangedError, type RecordFacts } from '../../core/logs/jobs';
import { FileIndex } from '../../core/logs/fileIndex';
import { allTasks, collectFacts, openLogs } from '../../core/logs/wholelog';
import { runTasks } from '../../core/logs/pool';
import { LogSession } from '../../core/logs/session';
import { plainRecord, writeBombLog } from '../gen/bomb';
import { repoRoot } from '../util/paths';
import { checkProperty, fc } from '../util/prop';

const dir = mkdtempSync(join(tmpdir(), 'aj-hostile-logs-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** The bound of these tests: 1 MB (set for worker threads too, which inherit the environment). */
const LIMIT_MB = 1;
process.env.AGENTJET_MAX_RECORD_MB = String(LIMIT_MB);
const LIMIT = LIMIT_MB * 1024 * 1024;

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, AGENTJET_CACHE_DIR: join(dir, 'cache'), ...env },
  });
}

/** A record (header line + `base64:` payload) whose JSON is `json`. */
function recordOf(json: string, i = 0): Buffer {
  const head = plainRecord(i).split('\n')[0]!;
  return Buffer.from(`${head}\nbase64:${deflateSync(Buffer.from(json)).toString('base64')}\n`);
}

function tokenJson(tokens: string[]): string {
  return JSON.stringify({
    header: 'step 1 reward 0.5 task p',
    nested_json: {
      'p.success.0': {
        content: {
          text: tokens,
          title: tokens.map(() => '-0.5'),
          count: tokens.map((_, k) => String(k)),
          color: tokens.map(() => '#09ABCF'),
        },
      },
    },
  });
}

// ---- properties ----

test('property: the decoder and the fast scanner never throw, on any bytes and any truncation of a record', async () => {
  const scanner = new FastScanner();
  const valid = recordOf(tokenJson(['a', 'b', 'c']));
  await checkProperty(
    fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat({ max: valid.length }), fc.boolean(), (bytes, cut, prefixed) => {
      const input = prefixed ? Buffer.concat([valid.subarray(0, cut), Buffer.from(bytes)]) : Buffer.from(bytes);
      const d = decodeRecord(input);
      const s = scanner.scanRecord(input, { tokens: true });
      assert.equal(typeof d.ok, 'boolean');
      // The fast path declines what the decoder refuses: the two agree on whether a record reads.
      assert.equal(s.ok, d.ok, `scan ${s.ok ? 'ok' : s.error} / decode ${d.ok ? 'ok' : d.error}`);
      summarizePrefix(input.subarray(0, 1536));
    }),
    300,
  );
});

test('property: a payload of any size within a bound reads, one past it is "too large" (decoder, fast scanner, summary)', async () => {
  const scanner = new FastScanner();
  await checkProperty(
    fc.property(fc.integer({ min: 0, max: 2 * LIMIT }), fc.constantFrom('a', 'ab', 'é', '"'), (size, tok) => {
      const unit = JSON.stringify(tok).length + 1;
      const n = Math.max(1, Math.floor(size / unit));
      const json = tokenJson(Array.from({ length: n }, () => tok));
      const rec = recordOf(json);
      const big = Buffer.byteLength(json) > LIMIT;
      const d = decodeRecord(rec);
      const s = scanner.scanRecord(rec, {});
      if (big) {
        assert.ok(!d.ok && d.error.startsWith(TOO_LARGE), d.ok ? 'decoded' : d.error);
        assert.ok(!s.ok && s.error.startsWith(TOO_LARGE), s.ok ? 'scanned' : s.error);
      } else {
        assert.ok(d.ok, d.ok ? '' : d.error);
        assert.ok(s.ok && s.tokens === n, s.ok ? `tokens ${s.tokens}` : s.error);
      }
      // The summary inflates only a prefix: the title, whatever the size.
      assert.equal(summarizePrefix(rec.subarray(0, 1536)).title, 'step 1 reward 0.5 task p');
    }),
    25,
  );
});

test('property: inflatePrefix never returns more than its cap, and what it returns starts the stream', async () => {
  await checkProperty(
    fc.property(
      fc.integer({ min: 1, max: 200_000 }),
      fc.integer({ min: 16, max: 8192 }),
      fc.uint8Array({ minLength: 1, maxLength: 64 }),
      (len, want, seed) => {
        const plain = Buffer.alloc(len, Buffer.from(seed));
        const z = deflateSync(plain);
        const out = inflatePrefix(z, want);
        assert.ok(out.length <= Math.max(want * 4, 1 << 20));
        assert.ok(out.equals(plain.subarray(0, out.length)));
      },
    ),
    100,
  );
});

test('property: a log cut at any byte indexes and reads every record before the cut as before', async () => {
  const recs = Array.from({ length: 6 }, (_, i) => Buffer.from(plainRecord(i, 1 + i)));
  const whole = Buffer.concat(recs);
  const path = join(dir, 'cut.json.log');
  writeFileSync(path, whole);
  const full = await collectFacts(await openLogs([path], { siblings: false }), { workers: 0 });
  let k = 0;
  await checkProperty(
    fc.asyncProperty(fc.nat({ max: whole.length }), async (cut) => {
      const p = join(dir, `cut-${k++}.json.log`);
      writeFileSync(p, whole.subarray(0, cut));
      const opened = await openLogs([p], { siblings: false });
      const facts = (await collectFacts(opened, { workers: 0 }))[0]!;
      let ends = 0,
        complete = 0;
      for (const r of recs) {
        ends += r.length;
        if (ends <= cut) complete++;
      }
      // Every record wholly before the cut reads as it did; at most one more (the cut one) follows.
      assert.ok(facts.length >= complete && facts.length <= complete + 1, `${facts.length} records for ${complete} complete`);
      for (let i = 0; i < complete; i++) assert.deepEqual(facts[i], full[0]![i]);
      rmSync(p);
    }),
    60,
  );
});

// ---- named regression cases ----

test('regression (item 1): a zlib bomb is reported as too large with its offset; the other records are read (stats, export, viewer)', async () => {
  const bomb = await writeBombLog(join(dir, 'bomb.json.log'), 40 * LIMIT);
  // stats (facts on worker threads when asked; inline here and through the CLI below)
  const opened = await openLogs([bomb.path], { siblings: false });
  const facts = (await collectFacts(opened, { workers: 0 }))[0]!;
  assert.equal(facts.length, bomb.records);
  facts.forEach((f: RecordFacts, i) => {
    if (i === bomb.bombIndex) {
      assert.ok(f.error?.startsWith(TOO_LARGE), f.error);
      assert.match(f.error!, new RegExp(`at byte ${bomb.bombOffset} of`));
    } else assert.equal(f.error, undefined, `record ${i}: ${f.error}`);
  });
  const st = cli(['log', 'stats', bomb.path, '--no-cache', '--format', 'json']);
  assert.equal(st.status, 0, st.stderr);
  const stats = JSON.parse(st.stdout) as { records: number; corruptRecords: number; corrupt: { index: number; error: string }[] };
  assert.equal(stats.records, bomb.records);
  assert.equal(stats.corruptRecords, 1);
  assert.equal(stats.corrupt[0]!.index, bomb.bombIndex);
  assert.match(stats.corrupt[0]!.error, /record too large: its payload inflates to more than 1 MB/);
  // export: every other record's timeline, and the reason on stderr
  const out = join(dir, 'bomb.jsonl');
  const ex = cli(['log', 'export', bomb.path, '--jsonl', '--out', out]);
  assert.equal(ex.status, 0, ex.stderr);
  assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, bomb.records - 1);
  assert.match(ex.stderr, new RegExp(`#${bomb.bombIndex}: record too large.*at byte ${bomb.bombOffset}`));
  // the viewer: the list's summary, and the record opened
  const s = new LogSession(bomb.path, { siblings: false });
  await s.update();
  await s.summarize();
  const r = await s.record(bomb.bombIndex);
  assert.ok(r && !r.ok && r.error.startsWith(TOO_LARGE));
  assert.match(r.error, new RegExp(`at byte ${bomb.bombOffset} of`));
  assert.equal(s.row(bomb.bombIndex).title, 'step 7 reward 1 task bomb');
  for (const i of [0, bomb.records - 1]) assert.ok((await s.record(i))?.ok);
  // A higher bound lets the same record through.
  assert.equal(inflateBounded(Buffer.from(deflateSync(Buffer.alloc(10))), 10).length, 10);
  assert.throws(() => inflateBounded(deflateSync(Buffer.alloc(11)), 10), RecordTooLargeError);
});

test('regression (item 2): export refuses an --out that is its input (same name, symlink, hard link) and leaves it intact', () => {
  const log = join(dir, 'self.json.log');
  writeFileSync(log, plainRecord(0) + plainRecord(1));
  const before = readFileSync(log);
  symlinkSync(log, join(dir, 'self-link.json.log'));
  linkSync(log, join(dir, 'self-hard.json.log'));
  for (const out of [log, join(dir, 'self-link.json.log'), join(dir, 'self-hard.json.log'), join(dir, '.', 'self.json.log')]) {
    const r = cli(['log', 'export', log, '--jsonl', '--out', out]);
    assert.equal(r.status, 2, `${out}: ${r.stderr}`);
    assert.match(r.stderr, /is the log being read/);
    assert.ok(readFileSync(log).equals(before), `${out} changed the log`);
  }
  // A good export is renamed into place: no temporary file left beside it.
  const r = cli(['log', 'export', log, '--jsonl', '--out', join(dir, 'self.jsonl')]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(readFileSync(join(dir, 'self.jsonl'), 'utf8').trim().split('\n').length, 2);
});

test('regression (item 3): a file replaced or truncated after indexing fails the read with FileChangedError, not "corrupt"', async () => {
  const many = Array.from({ length: 40 }, (_, i) => plainRecord(i, 50)).join('');
  for (const change of ['replace', 'truncate'] as const) {
    const path = join(dir, `changing-${change}.json.log`);
    writeFileSync(path, many);
    const opened = await openLogs([path], { siblings: false });
    if (change === 'replace') {
      writeFileSync(path + '.new', many.split('\n').reverse().join('\n'));
      renameSync(path + '.new', path);
    } else truncateSync(path, Math.floor(statSync(path).size / 2));
    await assert.rejects(
      runTasks(allTasks(opened), { kind: 'facts' }, () => undefined, { workers: 0 }),
      (e: unknown) => e instanceof FileChangedError && /changed while it was read/.test(e.message),
    );
  }
  // Through worker threads, the same error and message (not "log worker: ...").
  const path = join(dir, 'changing-w.json.log');
  writeFileSync(path, many.repeat(4));
  const opened = await openLogs([path], { siblings: false });
  truncateSync(path, 100);
  await assert.rejects(
    runTasks(allTasks(opened, 4096), { kind: 'facts' }, () => undefined, { workers: 2, minBytesForWorkers: 0 }),
    (e: unknown) => e instanceof FileChangedError && /was truncated/.test(e.message),
  );
});

test('regression (item 4): `log search ... | head -1` ends quietly on the closed pipe (no EPIPE stack, exit 0)', async () => {
  const log = join(dir, 'pipe.json.log');
  writeFileSync(log, Array.from({ length: 3000 }, (_, i) => plainRecord(i)).join(''));
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'log', 'search', log, 't0', '--no-cache'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // Read one line, then close our end as `head -1` does.
  await new Promise<void>((resolve) => {
    child.stdout.once('data', () => {
      child.stdout.destroy();
      resolve();
    });
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  assert.doesNotMatch(err, /EPIPE|Error:|at /);
  assert.equal(code, 0);
});

test('regression (item 5): a FIFO, /dev/zero or a special file is refused (exit 2, says what it is); FileIndex never opens one', async () => {
  const fifo = join(dir, 'fifo.json.log');
  const mk = spawnSync('mkfifo', [fifo]);
  if (mk.status === 0) {
    const r = cli(['log', 'stats', fifo]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /named pipe \(FIFO\)/);
    const f = new FileIndex(fifo);
    assert.equal(await f.update(), 'unchanged');
    assert.match(f.problems[0]!.reason, /not a regular file/);
  }
  const z = cli(['log', 'stats', '/dev/zero']);
  assert.equal(z.status, 2);
  assert.match(z.stderr, /character device/);
});

test(
  'round 3: export of a 2 GB-token bomb with --max-record-mb 3000 honours only what the heap holds: a clear message, no V8 fatal',
  { timeout: 120_000 },
  async () => {
    const bomb = await writeBombLog(join(dir, 'bomb2g.json.log'), 2 * 1024 ** 3, 3, 3, true);
    // With the default heap, and with a 1 GB heap (where an unhonoured 3000 MB bound is fatal at once).
    for (const heap of [undefined, 1024]) {
      const out = join(dir, `bomb2g-${heap ?? 'default'}.jsonl`);
      const ex = cli(['log', 'export', bomb.path, '--jsonl', '--out', out, '--no-cache', '--max-record-mb', '3000'], {
        AGENTJET_MAX_RECORD_MB: '',
        NODE_OPTIONS: heap ? `--max-old-space-size=${heap}` : '',
      });
      assert.equal(ex.status, 0, `heap ${heap ?? 'default'}: exit ${ex.status} ${ex.signal ?? ''}\n${ex.stderr.slice(-2000)}`);
      assert.doesNotMatch(ex.stderr, /FATAL|heap out of memory|RangeError/);
      const m = /--max-record-mb 3000 is more than this process can decode .*: records up to (\d+) MB are read/.exec(ex.stderr);
      assert.ok(m, ex.stderr);
      if (heap) assert.ok(Number(m[1]) <= heap / 16, `${m[1]} MB allowed in a ${heap} MB heap`);
      assert.match(ex.stderr, new RegExp(`#${bomb.bombIndex}: record too large: its payload inflates to more than ${m[1]} MB`));
      assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, bomb.records - 1);
    }
  },
);
