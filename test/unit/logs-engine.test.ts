import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogIndex, isRotatedSibling, mainFileOf } from '../../core/logs/index';
import { LogSession } from '../../core/logs/session';
import { decodeRecord, parseTableRows, summarizePrefix } from '../../core/logs/decode';
import { hueOf, maskFromColor } from '../../core/logs/color';
import { fixtures } from '../gen';
import { HOSTILE_TOKENS } from '../gen/rollout';

const HEADER = (t = '2026-01-05 10:00:00.000') => `${t} | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - \n`;

interface TL { text: string[]; title?: string[]; count?: (string | number)[]; color?: string[] }
function payload(step: number, task: string, reward: number, tls: TL[]): Record<string, unknown> {
  const nested: Record<string, unknown> = {};
  tls.forEach((t, i) => {
    nested[`${task}.${reward.toFixed(1)}.${i}`] = {
      item_id: 'item', outcome: reward.toFixed(1), len_prompt_ids: 1, len_response_ids: t.text.length - 1, len_input_ids: t.text.length,
      raw_reward: reward.toFixed(3), step_reward: reward.toFixed(3), step_advantage: (reward - 0.5).toFixed(3), step_advantage_simple: '0',
      content: { text: t.text, title: t.title ?? t.text.map((_, k) => (k === 0 ? 'N/A' : '-0.5000')), count: t.count ?? t.text.map((_, k) => String(100 + k)), color: t.color ?? t.text.map((_, k) => (k === 0 ? '#d98510' : '#09abcf')) },
    };
  });
  return { header: `[${step}] Task ${task} (Reward ${reward.toFixed(3)})`, color: '#337711', content: 'c', attach: 'a', nested: true, nested_json: nested };
}
const b64 = (obj: unknown) => 'base64:' + deflateSync(Buffer.from(JSON.stringify(obj))).toString('base64') + '\n';
const rec = (obj: unknown, t?: string) => HEADER(t) + b64(obj);
const small = (step: number, task: string, reward = 1) => rec(payload(step, task, reward, [{ text: ['<|im_start|>', 'Hi', ' there'] }]));

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'ajlogs-'));
}

async function readAll(path: string, opts: { siblings?: boolean; chunkSize?: number } = {}) {
  const s = new LogSession(path, { siblings: opts.siblings });
  await s.update({ chunkSize: opts.chunkSize });
  await s.summarize();
  const results = [];
  for (let i = 0; i < s.count; i++) results.push(await s.record(i));
  return { s, results };
}

/** Record starts by a naive line scan, to check the byte scanner against. */
function naiveCount(path: string): number {
  return readFileSync(path, 'utf8').split('\n').filter((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \| [A-Z]+ *\| .* -/.test(l)).length;
}

test('colour hue recovers the loss mask whatever the logprob-scaled saturation', () => {
  // Same mapping as AgentJet's adjust_color_hsl: saturation x [0.333, 1] for logprob in [-7, 0].
  const scale = (hex: string, f: number) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
    const max = Math.max(r, g, b), min = Math.min(r, g, b), l = (max + min) / 2, d = max - min;
    const s = d === 0 ? 0 : l > 0.5 ? d / (2 - max - min) : d / (max + min);
    const h = hueOf(hex)! / 360;
    const s2 = s * f;
    const q = l < 0.5 ? l * (1 + s2) : l + s2 - l * s2, p = 2 * l - q;
    const ch = (t: number) => { t = (t + 1) % 1; return t < 1 / 6 ? p + (q - p) * 6 * t : t < 0.5 ? q : t < 2 / 3 ? p + (q - p) * (2 / 3 - t) * 6 : p; };
    return '#' + [h + 1 / 3, h, h - 1 / 3].map((t) => Math.floor(ch(t) * 255).toString(16).padStart(2, '0')).join('');
  };
  for (let lp = -10; lp <= 0; lp += 0.25) {
    const f = lp <= -7 ? 0.333 : 0.333 + ((lp + 7) / 7) * 0.667;
    assert.equal(maskFromColor(scale('#09ABCF', f)), 1, `trained at logprob ${lp}: ${scale('#09ABCF', f)}`);
    assert.equal(maskFromColor(scale('#D98510', f)), 0, `context at logprob ${lp}: ${scale('#D98510', f)}`);
  }
  assert.equal(maskFromColor('#fa1111'), -1);
  assert.equal(maskFromColor('#777777'), -1);
  assert.equal(maskFromColor('not a colour'), -1);
  assert.equal(maskFromColor(42), -1);
});

test('every fixture log indexes and decodes; bad records are reported, never thrown', async () => {
  const dir = fixtures().logs;
  const expected: Record<string, { records: number; failed: number }> = {
    'beast-logger-sample.json.log': { records: 8, failed: 0 },
    'hostile.json.log': { records: 6, failed: 0 },
    'plain.json.log': { records: 4, failed: 0 },
    'truncated.json.log': { records: 5, failed: 1 },
  };
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const { s, results } = await readAll(path);
    assert.equal(s.count, naiveCount(path), name);
    const want = expected[name];
    if (want) {
      assert.equal(s.count, want.records, name);
      assert.equal(results.filter((r) => !r?.ok).length, want.failed, name);
    }
  }
  const { s, results } = await readAll(join(dir, 'truncated.json.log'));
  assert.equal(s.index.tailPartial, true);
  const last = results.at(-1)!;
  assert.ok(!last.ok && /incomplete record/.test(last.error));
  assert.equal(s.row(s.count - 1).partial, true);
  const sample = await readAll(join(dir, 'beast-logger-sample.json.log'));
  const nested = sample.results[7]!;
  assert.ok(nested.ok);
  assert.equal(nested.record.kind, 'tokens');
  // Token ids that are not numbers are kept as written; missing logprobs are null.
  assert.equal(nested.record.timelines[0]!.ids[0], 'A000');
  assert.equal(nested.record.timelines[0]!.logprobs[0], null);
});

test('fixture workspace logs: rollout, evaluation tables and empty module logs', async () => {
  const root = join(fixtures().workspace, 'saved_experiments');
  const logs: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.json.log')) logs.push(p);
    }
  };
  walk(root);
  assert.ok(logs.length >= 12);
  for (const p of logs) {
    const { s, results } = await readAll(p);
    assert.equal(s.count, naiveCount(p), p);
    for (const r of results) assert.ok(r?.ok, `${p}: ${r && !r.ok ? r.error : ''}`);
    if (p.endsWith('rollout.json.log')) {
      assert.ok(s.count > 0);
      const r0 = results[0]!;
      assert.ok(r0.ok && r0.record.kind === 'tokens' && r0.record.step === 0);
      const row = s.row(0);
      assert.equal(typeof row.taskId, 'string');
      assert.ok(row.tokens! > 0 && row.trained! > 0 && row.trained! < row.tokens!);
      // Prompt tokens (no logprob) are context; trained tokens carry logprobs.
      for (const tl of r0.record.timelines) {
        for (let k = 0; k < tl.text.length; k++) if (tl.mask[k] === 1) assert.notEqual(tl.logprobs[k], null);
        assert.ok(tl.mask.slice(0, tl.lenPrompt).every((m) => m === 0));
      }
    }
    if (p.endsWith('evaluation.json.log')) {
      const r0 = results[0]!;
      assert.ok(r0.ok && r0.record.kind === 'table');
      assert.ok(r0.record.table.some(([k]) => k === 'mean_reward'));
    }
  }
});

test('hostile token text is decoded literally', async () => {
  const { results } = await readAll(join(fixtures().logs, 'hostile.json.log'));
  const all = results.flatMap((r) => (r?.ok ? r.record.timelines.flatMap((t) => t.text) : []));
  assert.ok(all.includes('<script>alert(1)</script>'));
  assert.ok(all.includes('</span>'));
  // Every hostile token of the generator, control characters included, comes back as written.
  for (const t of HOSTILE_TOKENS) assert.ok(all.includes(t), JSON.stringify(t));
});

test('summaries from the payload prefix match the full decode', async () => {
  const { s, results } = await readAll(join(fixtures().logs, 'plain.json.log'));
  const fresh = new LogSession(join(fixtures().logs, 'plain.json.log'));
  await fresh.update();
  await fresh.summarize();
  for (let i = 0; i < s.count; i++) {
    const r = results[i]!;
    assert.ok(r.ok);
    const row = fresh.row(i);
    assert.equal(row.step, r.record.step);
    assert.equal(row.taskId, r.record.taskId);
    assert.equal(row.reward, r.record.reward);
    assert.equal(row.outcome, r.record.outcome);
    assert.equal(row.tokens, undefined, 'counts need a full decode');
  }
  // Out of order, for the rows on screen before the batch pass reaches them.
  const some = new LogSession(join(fixtures().logs, 'plain.json.log'));
  await some.update();
  await some.summarizeSome([2, 3]);
  assert.equal(some.row(3).taskId, fresh.row(3).taskId);
  assert.equal(some.row(0).taskId, undefined);
});

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

test('bad base64, bad zlib, bad JSON, wrong array lengths, invalid UTF-8 are reported per record', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'bad.json.log');
    const good = small(0, 'good');
    const badB64 = HEADER() + 'base64:@@@not*base64\n';
    const badZlib = HEADER() + 'base64:' + Buffer.from('this is not zlib').toString('base64') + '\n';
    const badJson = HEADER() + '{"header": "[1] Task x (Reward 1.0)", "nested_json": {\n';
    const lengths = rec(payload(2, 'len', 1, [{ text: ['a', 'b', 'c'], title: ['N/A'], count: [1, 2], color: ['#09abcf'] }]));
    const badUtf8 = Buffer.concat([Buffer.from(HEADER() + '{"header": "[3] Task u (Reward 0.0)", "content": "'), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('"}\n')]);
    const badUtf8Zlib = HEADER() + 'base64:' + deflateSync(Buffer.concat([Buffer.from('{"header": "[4] Task z (Reward 0.0)", "content": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])).toString('base64') + '\n';
    const empty = HEADER();
    writeFileSync(p, Buffer.concat([Buffer.from('garbage before the first record\n' + good + badB64 + badZlib + badJson + lengths), badUtf8, Buffer.from(badUtf8Zlib + empty + good)]));
    const { s, results } = await readAll(p);
    assert.equal(s.count, 9);
    assert.equal(s.index.problems.length, 1, 'the leading garbage is reported');
    assert.match(s.index.problems[0]!.reason, /before the first record/);
    const errs = results.map((r) => (r?.ok ? '' : r?.error ?? 'missing'));
    assert.equal(errs[0], '');
    assert.match(errs[1]!, /base64/);
    assert.match(errs[2]!, /zlib/);
    assert.match(errs[3]!, /JSON/);
    const l = results[4]!;
    assert.ok(l.ok);
    assert.match(l.record.warnings.join(' '), /differ in length/);
    assert.deepEqual(l.record.timelines[0]!.ids, [1, 2, null]);
    assert.deepEqual(l.record.timelines[0]!.mask, [1, -1, -1]);
    const u = results[5]!;
    assert.ok(u.ok);
    assert.match(u.record.warnings.join(' '), /UTF-8/);
    const uz = results[6]!;
    assert.ok(uz.ok && uz.record.step === 4);
    assert.match(uz.record.warnings.join(' '), /UTF-8/);
    assert.match(errs[7]!, /no payload/);
    assert.equal(errs[8], '');
    // Summaries flag what they can see from the prefix.
    assert.match(s.row(1).error ?? '', /base64/);
    assert.match(s.row(2).error ?? '', /zlib|base64/);
    assert.equal(summarizePrefix(Buffer.from(HEADER() + 'hello')).error, 'payload is not JSON');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CRLF line endings, megabyte-long tokens and lone surrogates decode', async () => {
  const dir = tmp();
  try {
    const crlf = join(fixtures().crlf, 'plain.json.log');
    assert.ok(readFileSync(crlf, 'utf8').includes('\r\n'));
    const a = await readAll(crlf);
    const b = await readAll(join(fixtures().logs, 'plain.json.log'));
    assert.equal(a.s.count, b.s.count);
    for (let i = 0; i < a.s.count; i++) {
      const x = a.results[i]!, y = b.results[i]!;
      assert.ok(x.ok && y.ok);
      assert.deepEqual(x.record.timelines.map((t) => t.text), y.record.timelines.map((t) => t.text));
      assert.equal(x.record.time, y.record.time);
    }
    const big = join(dir, 'big.json.log');
    const huge = 'x'.repeat(1_000_000) + 'needle';
    // A lone surrogate as a JSON escape, as Python's json.dumps writes it.
    const payloadText = JSON.stringify(payload(0, 'big', 1, [{ text: ['LONE', huge, 'b'] }])).replace('"LONE"', '"\\ud800"');
    writeFileSync(big, HEADER() + payloadText + '\n');
    const c = await readAll(big);
    const r = c.results[0]!;
    assert.ok(r.ok);
    assert.equal(r.record.timelines[0]!.text[0], '\ud800');
    assert.equal(r.record.timelines[0]!.text[1]!.length, 1_000_006);
    assert.deepEqual(await c.s.search('needleb', [0]), [{ index: 0, matches: 1, where: 'tokens', timeline: 0, token: 1, char: 1_000_000 }]);
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
    const rand = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
    while (pos < src.length) {
      const n = Math.min(src.length - pos, 1 + (rand() % 9000));
      appendFileSync(p, src.subarray(pos, pos + n));
      pos += n;
      const before = s.index.files[0]?.scannedSize ?? 0;
      const lastStart = s.count > 0 ? s.index.locate(s.count - 1)!.offset : 0;
      let firstDone = -1;
      const u = await s.update({ progress: (done) => { if (firstDone < 0) firstDone = done; } });
      assert.notEqual(u.change, 'reset');
      // The scan resumed at the previous last record, not at 0.
      if (firstDone >= 0 && before > 0) assert.ok(firstDone >= lastStart, `rescanned from ${firstDone}, last record at ${lastStart}`);
      await s.summarize();
    }
    const full = await readAll(join(fixtures().logs, 'hostile.json.log'));
    assert.equal(s.count, full.s.count);
    for (let i = 0; i < s.count; i++) {
      const a = await s.record(i), b = full.results[i];
      assert.ok(a?.ok && b?.ok);
      assert.deepEqual(a.record.timelines.map((t) => t.text.length), b.record.timelines.map((t) => t.text.length));
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
    await assert.rejects(s.update({ chunkSize: 8192, signal: ac.signal, progress: () => { if (++calls === 3) ac.abort(); } }), /cancelled/);
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
    assert.deepEqual([0, 1, 2, 3].map((i) => s.row(i).taskId), ['a00', 'a01', 'b00', 'c00']);
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
    assert.deepEqual([...Array(s.count).keys()].map((i) => s.row(i).taskId), ['a00', 'a01', 'b00', 'c00', 'c01', 'd00']);
    const only = new LogSession(main, { siblings: false });
    await only.update();
    assert.equal(only.count, 1);
    // The generated rotated group: two loguru-rotated files and the live one, oldest first.
    const gen = new LogSession(join(fixtures().rotated, 'rollout.json.log'));
    await gen.update();
    await gen.summarize();
    assert.equal(gen.count, 9);
    const times = [...Array(gen.count).keys()].map((i) => gen.row(i).time ?? NaN);
    assert.ok(times.every((t, i) => i === 0 || t >= times[i - 1]!), `time order: ${times.join(' ')}`);
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
    await assert.rejects(s.summarize({ signal: ac2.signal }).then(async () => { await new LogSession(p).update({ signal: ac2.signal }); }), /cancelled/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('non-token records: evaluation tables, plain text and header-only messages', () => {
  const table = '\n╭────╮\n│ ┌──────┬─────┐ │\n│ │ TGC@1 │ 0.18 │ │\n│ ├──────┼─────┤ │\n│ │ mean_reward │ 0.2 │ │\n│ └──────┴─────┘ │\n╰────╯';
  assert.deepEqual(parseTableRows(table), [['TGC@1', '0.18'], ['mean_reward', '0.2']]);
  const r = decodeRecord(Buffer.from(HEADER() + JSON.stringify({ header: 'gsm8k_test', content: table }) + '\n'));
  assert.ok(r.ok && r.record.kind === 'table' && r.record.table.length === 2);
  const t = decodeRecord(Buffer.from(HEADER() + JSON.stringify({ header: 'Exception', content: 'Traceback (most recent call last):\n  boom\u001b[31m red\u001b[0m' }) + '\n'));
  assert.ok(t.ok && t.record.kind === 'text' && !t.record.content.includes('\u001b'));
  const m = decodeRecord(Buffer.from('2026-01-05 10:00:00.000 | WARNING  | x:y:1 - just a message\n'));
  assert.ok(m.ok && m.record.title === 'just a message' && m.record.level === 'WARNING');
  assert.equal(decodeRecord(Buffer.from('nonsense')).ok, false);
});
