import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogIndex, isRotatedSibling, mainFileOf } from '../../core/logs/index';
import { LogSession } from '../../core/logs/session';
import { fixtures } from '../gen';
import { payload, readAll, rec, small, tmp } from '../util/smalllogs';

test('a record cut at every byte: earlier records intact, the cut one reported, never a throw', async () => {
  const dir = tmp();
  try {
    const first = small(0, 'aaa');
    const second = small(1, 'bbb', 0);
    const p = join(dir, 'cut.json.log');
    for (let k = 0; k <= second.length; k++) {
      writeFileSync(p, first + second.slice(0, k));
      const { s, results } = await readAll(p);
      assert.ok(results[0]?.ok, `first record broken at cut ${k}`);
      assert.equal(results[0].ok && results[0].record.taskId, 'aaa');
      if (k === second.length) {
        assert.equal(s.count, 2);
        assert.ok(results[1]?.ok);
      } else if (s.count === 2) {
        // The cut record is reported, or (only base64 padding or the newline missing) whole.
        const r = results[1]!;
        if (r.ok) assert.deepEqual(r.record.timelines[0]!.text, ['<|im_start|>', 'Hi', ' there'], `cut ${k}`);
        else assert.match(r.error, /incomplete record/, `cut ${k}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an empty file, a whitespace file and a missing file give no records and no throw', async () => {
  const dir = tmp();
  try {
    writeFileSync(join(dir, 'e.json.log'), '');
    writeFileSync(join(dir, 'w.json.log'), '\n\n  \n');
    for (const n of ['e.json.log', 'w.json.log', 'missing.json.log']) {
      const { s } = await readAll(join(dir, n));
      assert.equal(s.count, 0);
      assert.equal(s.index.problems.length, 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('chunk boundaries anywhere give the same index as one big read', async () => {
  const p = join(fixtures().logs, 'beast-logger-sample.json.log');
  const ref = new LogIndex(p);
  await ref.update();
  for (const chunk of [8192, 8193, 9000, 12_345, 65_536]) {
    const ix = new LogIndex(p);
    await ix.update({ chunkSize: chunk });
    assert.equal(ix.count, ref.count, `chunk ${chunk}`);
    for (let i = 0; i < ix.count; i++) assert.deepEqual(ix.locate(i)?.offset, ref.locate(i)?.offset);
  }
});

test('incremental: appending in arbitrary slices indexes only new bytes and ends equal to a full read', async () => {
  const dir = tmp();
  try {
    const src = readFileSync(join(fixtures().logs, 'hostile.json.log'));
    const p = join(dir, 'live.json.log');
    writeFileSync(p, '');
    const s = new LogSession(p);
    let pos = 0;
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    while (pos < src.length) {
      const n = Math.min(src.length - pos, 1 + (rand() % 9000));
      appendFileSync(p, src.subarray(pos, pos + n));
      pos += n;
      const before = s.index.files[0]?.scannedSize ?? 0;
      const lastStart = s.count > 0 ? s.index.locate(s.count - 1)!.offset : 0;
      let firstDone = -1;
      const u = await s.update({
        progress: (done) => {
          if (firstDone < 0) firstDone = done;
        },
      });
      assert.notEqual(u.change, 'reset');
      // The scan resumed at the previous last record, not at 0.
      if (firstDone >= 0 && before > 0) assert.ok(firstDone >= lastStart, `rescanned from ${firstDone}, last record at ${lastStart}`);
      await s.summarize();
    }
    const full = await readAll(join(fixtures().logs, 'hostile.json.log'));
    assert.equal(s.count, full.s.count);
    for (let i = 0; i < s.count; i++) {
      const a = await s.record(i),
        b = full.results[i];
      assert.ok(a?.ok && b?.ok);
      assert.deepEqual(
        a.record.timelines.map((t) => t.text.length),
        b.record.timelines.map((t) => t.text.length),
      );
      assert.deepEqual(s.row(i), full.s.row(i));
    }
    // Truncation (a new run overwrote the file) resets.
    writeFileSync(p, small(9, 'zzz'));
    const u = await s.update();
    assert.equal(u.change, 'reset');
    assert.equal(s.count, 1);
    assert.equal((await s.record(0))?.ok && s.row(0).taskId, 'zzz');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('indexing cancelled half way resumes where it stopped and ends equal to a full index', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'c.json.log');
    let text = '';
    for (let i = 0; i < 300; i++) text += rec(payload(i >> 3, `c${i}`, 1, [{ text: Array.from({ length: 200 }, (_, k) => ` w${k}`) }]));
    writeFileSync(p, text);
    const ac = new AbortController();
    const s = new LogSession(p);
    let calls = 0;
    await assert.rejects(
      s.update({
        chunkSize: 8192,
        signal: ac.signal,
        progress: () => {
          if (++calls === 3) ac.abort();
        },
      }),
      /cancelled/,
    );
    assert.ok(s.count > 0 && s.count < 300, `partial index after cancel: ${s.count}`);
    await s.update({ chunkSize: 8192 });
    assert.equal(s.count, 300);
    const full = new LogIndex(p);
    await full.update();
    for (let i = 0; i < 300; i++) assert.equal(s.index.locate(i)?.offset, full.locate(i)?.offset);
    await s.summarize();
    assert.equal(s.row(299).taskId, 'c299');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rotated siblings read as one stream in time order, also across a live rotation', async () => {
  const dir = tmp();
  try {
    assert.equal(isRotatedSibling('rollout.json.log', 'rollout.json.2026-01-05_10-00-00_000000.log'), true);
    assert.equal(isRotatedSibling('rollout.json.log', 'rollout.log'), false);
    assert.equal(isRotatedSibling('rollout.json.log', 'bad_case.json.log'), false);
    assert.equal(mainFileOf('/x/rollout.json.2026-01-05_10-00-00_000000.log'), '/x/rollout.json.log');
    const main = join(dir, 'rollout.json.log');
    writeFileSync(join(dir, 'rollout.json.2026-01-05_09-00-00_000000.log'), small(0, 'a00') + small(0, 'a01'));
    writeFileSync(join(dir, 'rollout.json.2026-01-05_09-30-00_000000.log'), small(1, 'b00'));
    writeFileSync(main, small(2, 'c00'));
    writeFileSync(join(dir, 'rollout.log'), 'text log, not a sibling\n');
    const s = new LogSession(main);
    await s.update();
    await s.summarize();
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => s.row(i).taskId),
      ['a00', 'a01', 'b00', 'c00'],
    );
    // Opening a rotated file opens the whole group.
    const viaSibling = new LogSession(join(dir, 'rollout.json.2026-01-05_09-30-00_000000.log'));
    await viaSibling.update();
    assert.equal(viaSibling.count, 4);
    // Live rotation: loguru renames the live file and starts a new one.
    appendFileSync(main, small(2, 'c01'));
    await s.update();
    assert.equal(s.count, 5);
    renameSync(main, join(dir, 'rollout.json.2026-01-05_10-00-00_000000.log'));
    writeFileSync(main, small(3, 'd00'));
    const u = await s.update();
    assert.equal(u.change, 'reset');
    await s.summarize();
    assert.deepEqual(
      [...Array(s.count).keys()].map((i) => s.row(i).taskId),
      ['a00', 'a01', 'b00', 'c00', 'c01', 'd00'],
    );
    const only = new LogSession(main, { siblings: false });
    await only.update();
    assert.equal(only.count, 1);
    // The generated rotated group: two loguru-rotated files and the live one, oldest first.
    const gen = new LogSession(join(fixtures().rotated, 'rollout.json.log'));
    await gen.update();
    await gen.summarize();
    assert.equal(gen.count, 9);
    const times = [...Array(gen.count).keys()].map((i) => gen.row(i).time ?? NaN);
    assert.ok(
      times.every((t, i) => i === 0 || t >= times[i - 1]!),
      `time order: ${times.join(' ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('filters, sorting and streaming cancellable search over the index', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'q.json.log');
    let text = '';
    for (let i = 0; i < 12; i++) {
      const words = i === 7 ? ['The', ' answer', ' is', ' 4', '2'] : ['no', 'thing'];
      text += rec(payload(Math.floor(i / 4), `t${i}`, i % 3 === 0 ? 1 : 0, [{ text: words }]));
    }
    writeFileSync(p, text);
    const s = new LogSession(p);
    await s.update();
    await s.summarize();
    assert.deepEqual(s.query({ stepMin: 1, stepMax: 1 }), [4, 5, 6, 7]);
    assert.deepEqual(s.query({ rewardMin: 0.5 }), [0, 3, 6, 9]);
    assert.deepEqual(s.query({ outcome: '1.0', stepMax: 1 }), [0, 3, 6]);
    assert.deepEqual(s.query({}, { key: 'reward', desc: true }).slice(0, 4), [0, 3, 6, 9]);
    assert.deepEqual(s.query({}, { key: 'index', desc: true })[0], 11);
    assert.deepEqual(s.facets(), { steps: [0, 2], outcomes: ['0.0', '1.0'] });
    const streamed: number[] = [];
    const hits = await s.search('ANSWER IS 42', s.query(), { onHit: (h) => streamed.push(h.index) });
    assert.deepEqual(streamed, [7]);
    assert.deepEqual(hits[0], { index: 7, matches: 1, where: 'tokens', timeline: 0, token: 1, char: 1 });
    // The same answer from a decoded (cached) record as from raw bytes.
    await s.record(7);
    assert.deepEqual(await s.search('answer is 42', [7]), hits);
    assert.deepEqual(await s.search('t7', [6, 7]), [{ index: 7, matches: 0, where: 'title' }], 'task ids match too');
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(s.search('x', s.query(), { signal: ac.signal }), /cancelled/);
    const ac2 = new AbortController();
    ac2.abort();
    await assert.rejects(
      s.summarize({ signal: ac2.signal }).then(async () => {
        await new LogSession(p).update({ signal: ac2.signal });
      }),
      /cancelled/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
