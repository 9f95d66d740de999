import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogSession } from '../../core/logs/session';
import { decodeRecord, parseTableRows, summarizePrefix } from '../../core/logs/decode';
import { maskFromColor } from '../../core/logs/color';
import { fixtures } from '../gen';
import { HOSTILE_TOKENS, shadeByLogprob } from '../gen/rollout';
import { HEADER, naiveCount, payload, readAll, rec, small, tmp } from '../util/smalllogs';

test('colour hue recovers the loss mask whatever the logprob-scaled saturation', () => {
  // Same mapping as AgentJet's adjust_color_hsl: saturation x [0.333, 1] for logprob in [-7, 0].
  for (let lp = -10; lp <= 0; lp += 0.25) {
    assert.equal(maskFromColor(shadeByLogprob('#09ABCF', lp)), 1, `trained at logprob ${lp}: ${shadeByLogprob('#09ABCF', lp)}`);
    assert.equal(maskFromColor(shadeByLogprob('#D98510', lp)), 0, `context at logprob ${lp}: ${shadeByLogprob('#D98510', lp)}`);
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

test('bad base64, bad zlib, bad JSON, wrong array lengths, invalid UTF-8 are reported per record', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'bad.json.log');
    const good = small(0, 'good');
    const badB64 = HEADER() + 'base64:@@@not*base64\n';
    const badZlib = HEADER() + 'base64:' + Buffer.from('this is not zlib').toString('base64') + '\n';
    const badJson = HEADER() + '{"header": "[1] Task x (Reward 1.0)", "nested_json": {\n';
    const lengths = rec(payload(2, 'len', 1, [{ text: ['a', 'b', 'c'], title: ['N/A'], count: [1, 2], color: ['#09abcf'] }]));
    const badUtf8 = Buffer.concat([
      Buffer.from(HEADER() + '{"header": "[3] Task u (Reward 0.0)", "content": "'),
      Buffer.from([0xff, 0xfe, 0x41]),
      Buffer.from('"}\n'),
    ]);
    const badUtf8Zlib =
      HEADER() +
      'base64:' +
      deflateSync(
        Buffer.concat([Buffer.from('{"header": "[4] Task z (Reward 0.0)", "content": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
      ).toString('base64') +
      '\n';
    const empty = HEADER();
    writeFileSync(
      p,
      Buffer.concat([
        Buffer.from('garbage before the first record\n' + good + badB64 + badZlib + badJson + lengths),
        badUtf8,
        Buffer.from(badUtf8Zlib + empty + good),
      ]),
    );
    const { s, results } = await readAll(p);
    assert.equal(s.count, 9);
    assert.equal(s.index.problems.length, 1, 'the leading garbage is reported');
    assert.match(s.index.problems[0]!.reason, /before the first record/);
    const errs = results.map((r) => (r?.ok ? '' : (r?.error ?? 'missing')));
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
      const x = a.results[i]!,
        y = b.results[i]!;
      assert.ok(x.ok && y.ok);
      assert.deepEqual(
        x.record.timelines.map((t) => t.text),
        y.record.timelines.map((t) => t.text),
      );
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

test('non-token records: evaluation tables, plain text and header-only messages', () => {
  const table =
    '\n╭────╮\n│ ┌──────┬─────┐ │\n│ │ TGC@1 │ 0.18 │ │\n│ ├──────┼─────┤ │\n│ │ mean_reward │ 0.2 │ │\n│ └──────┴─────┘ │\n╰────╯';
  assert.deepEqual(parseTableRows(table), [
    ['TGC@1', '0.18'],
    ['mean_reward', '0.2'],
  ]);
  const r = decodeRecord(Buffer.from(HEADER() + JSON.stringify({ header: 'gsm8k_test', content: table }) + '\n'));
  assert.ok(r.ok && r.record.kind === 'table' && r.record.table.length === 2);
  const t = decodeRecord(
    Buffer.from(
      HEADER() +
        JSON.stringify({ header: 'Exception', content: 'Traceback (most recent call last):\n  boom\u001b[31m red\u001b[0m' }) +
        '\n',
    ),
  );
  assert.ok(t.ok && t.record.kind === 'text' && !t.record.content.includes('\u001b'));
  const m = decodeRecord(Buffer.from('2026-01-05 10:00:00.000 | WARNING  | x:y:1 - just a message\n'));
  assert.ok(m.ok && m.record.title === 'just a message' && m.record.level === 'WARNING');
  assert.equal(decodeRecord(Buffer.from('nonsense')).ok, false);
});
