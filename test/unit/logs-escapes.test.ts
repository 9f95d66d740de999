// Escapes and bad UTF-8 in the fast paths (stats, search, export; kernels and JavaScript loops)
// against the full decoder: a record with an escape JSON does not allow anywhere (a token array, a
// skipped field) is reported as the decoder reports it, one with valid escapes reads the same as
// decoded, and invalid UTF-8 bytes give what the decoder's U+FFFD gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { FastScanner, exportLine, fromDecoded, type ScanResult, type ScanWant } from '../../core/logs/fastscan';
import { decodeRecord } from '../../core/logs/decode';
import { exportRow } from '../../core/logs/stats';
import { matchRecord } from '../../core/logs/session';
import { matchScan } from '../../core/logs/jobs';
import { Rng, header } from '../util/tokenlogs';

const VALID = ['\\n', '\\t', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\r', '\\u00e9', '\\u0041', '\\uD83D\\uDE00', '\\uabcd', '\\u0023'];
const INVALID = ['\\q', '\\x41', '\\U0041', '\\u12', '\\u00g1', '\\a', '\\0', "\\'", '\\é', '\\ ', '\\u', '\\uz000', '\\N'];
const WORDS = ['Hi', ' there', 'é', '日本', ' the', 'answer', ' is', ' 42', 'x'.repeat(70), ',', ']', '['];

/** A JSON string literal's inside: plain words, with `esc` spliced in at a random place when given (an invalid one is followed by '~', never a hex digit). */
function inner(r: Rng, plain: string, esc?: string): string {
  if (esc === undefined) return plain;
  // Not inside an escape already there (a backslash before it would escape the new one's backslash).
  const at = plain.includes('\\') ? plain.length : r.int(plain.length + 1);
  return plain.slice(0, at) + esc + plain.slice(at);
}

const Q = (s: string) => '"' + s + '"';

/** One token record's payload (JSON text) with escapes: valid ones here and there, and `bad` at one random place. */
function payload(r: Rng, bad: string | undefined): string {
  const n = 1 + r.int(90);
  // Where the invalid escape goes: a column, an element, or a field the scanner skips.
  const spots = ['text', 'title', 'count', 'color', 'other', 'field', 'header'];
  const spot = bad === undefined ? '' : r.pick(spots);
  const badAt = r.int(n + 3);
  const valid = () => (r.int(4) === 0 ? r.pick(VALID) : undefined);
  const col = (name: string, make: (i: number) => string) => {
    const els: string[] = [];
    for (let i = 0; i < n + (name === 'title' && r.int(4) === 0 ? 3 : 0); i++) {
      let s = make(i);
      if (spot === name && i === Math.min(badAt, n - 1)) s = inner(r, s, bad! + '~');
      els.push(Q(s));
    }
    return '[' + els.join(r.int(3) === 0 ? ',' : ', ') + ']';
  };
  const text = col('text', () => inner(r, r.pick(WORDS), valid()));
  const title = col('title', (i) => (i < 2 ? 'N/A' : r.int(20) === 0 ? inner(r, '-0.5', valid()) : '-0.' + String(1000 + r.int(9000))));
  const count = col('count', (i) => (r.int(30) === 0 ? inner(r, String(100 + i), valid()) : String(100 + i)));
  const color = col('color', () => (r.int(30) === 0 ? '\\u002309abcf' : r.pick(['#09abcf', '#d98510'])));
  const other = col('other', () => inner(r, 'o', valid()));
  const field = inner(r, 'note', spot === 'field' ? bad! + '~' : valid());
  const title0 = inner(r, '[3] Task t1 (Reward 1.000)', spot === 'header' ? bad! + '~' : undefined);
  const order = r.int(2) === 0 ? [text, title, count, color] : [title, count, text, color];
  const [a, b, c, d] = order;
  const keys = r.int(2) === 0 ? ['text', 'title', 'count', 'color'] : ['title', 'count', 'text', 'color'];
  return (
    `{"header": ${Q(title0)}, "nested_json": {"t1.1.0.0": {"outcome": "1.0", "extra": ${Q(field)}, "len_prompt_ids": 2, ` +
    `"content": {"${keys[0]}": ${a}, "${keys[1]}": ${b}, "${keys[2]}": ${c}, "${keys[3]}": ${d}, "other": ${other}}}}}`
  );
}

function record(r: Rng, bad: string | undefined): Buffer {
  const json = payload(r, bad);
  const line = r.int(2) === 0 ? json : 'base64:' + deflateSync(Buffer.from(json)).toString('base64');
  return Buffer.from(header() + line + '\n');
}

/** The facts of a scan without the bulky bytes (compared on their own); search alone leaves `trained` uncounted. */
function facts(r: ScanResult, want: ScanWant) {
  if (!r.ok) return { ok: false, error: r.error };
  const { timelines, decoded: _decoded, ...rest } = r;
  const tls = timelines.map(({ json: _json, texts: _texts, joined: _joined, ends: _ends, ...tl }) => tl);
  if (want.search && !want.tokens) {
    rest.trained = 0;
    for (const t of tls) t.trained = 0;
  }
  return { ...rest, timelines: tls };
}

const NEEDLES = ['the', 'x', 'é', '\n', 'answer is', 'zz'];

for (const wasm of [true, false])
  test(`escapes: the fast paths reject exactly what the decoder rejects and read valid ones alike (stats, search, export; ${wasm ? 'WebAssembly kernels' : 'JavaScript loops'})`, () => {
    const rng = new Rng(wasm ? 4242 : 2424);
    const scanner = new FastScanner({ wasm });
    let rejected = 0,
      read = 0,
      fast = 0;
    for (let i = 0; i < 1500; i++) {
      const bad = i % 2 === 0 ? rng.pick(INVALID) : undefined;
      const bytes = record(rng, bad);
      const dec = decodeRecord(bytes);
      // Every spot of the invalid escape is one JSON.parse refuses.
      assert.equal(dec.ok, bad === undefined, `record ${i}: ${bytes.toString().slice(0, 400)}`);
      const label = (what: string) => `record ${i} (${what}, escape ${bad ?? 'none'}): ${bytes.toString().slice(0, 400)}`;
      for (const want of [{}, { tokens: true }, { search: true }] as ScanWant[]) {
        const got = scanner.scanRecord(bytes, want);
        assert.deepEqual(facts(got, want), facts(fromDecoded(bytes, want), want), label(JSON.stringify(want)));
        if (got.ok && !got.decoded) fast++;
        if (got.ok && want.tokens && dec.ok)
          got.timelines.forEach((t, k) => {
            const line = JSON.stringify(exportRow(i, dec.record, dec.record.timelines[k]!)) + '\n';
            assert.equal(exportLine(i, got, t).toString('utf8'), line, label('export line'));
          });
        if (got.ok && want.search && dec.ok)
          for (const needle of NEEDLES) {
            const a = matchScan(got, needle),
              b = matchRecord(dec.record, needle);
            assert.deepEqual(a && [a.matches, a.timeline, a.token], b && [b.matches, b.timeline, b.token], label(needle));
          }
      }
      // Search through the raw-byte filter: the texts are counted first.
      for (const needle of ['the', 'zq']) {
        const got = scanner.scanRecord(bytes, { search: true, needle });
        assert.equal(got.ok, dec.ok, label(`needle ${needle}`));
        if (got.ok && dec.ok) {
          const a = matchScan(got, needle),
            b = matchRecord(dec.record, needle);
          assert.deepEqual(a && [a.matches, a.timeline, a.token], b && [b.matches, b.timeline, b.token], label(needle));
        }
      }
      if (dec.ok) read++;
      else rejected++;
    }
    assert.ok(rejected > 500 && read > 500, `rejected ${rejected}, read ${read}`);
    // Valid escapes must not send every record to the decoder.
    assert.ok(fast > 1000, `fast path ${fast}`);
  });

/** Invalid UTF-8 (a lone continuation byte, a cut sequence, an overlong form) for a record's bytes. */
const BAD_UTF8 = [
  Buffer.from([0x80]),
  Buffer.from([0xc3]),
  Buffer.from([0xe6, 0x97]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xff, 0xfe]),
];

for (const wasm of [true, false])
  test(`invalid UTF-8 anywhere in a record: stats, search and export give what the decoder gives (${wasm ? 'WebAssembly kernels' : 'JavaScript loops'})`, () => {
    const rng = new Rng(wasm ? 77 : 78);
    const scanner = new FastScanner({ wasm });
    let bad = 0;
    for (let i = 0; i < 600; i++) {
      const json = Buffer.from(payload(rng, undefined));
      // Bad bytes spliced into a few strings (right after an opening quote or before a closing one).
      const parts: Buffer[] = [];
      let from = 0;
      for (let q = json.indexOf(0x22); q >= 0; q = json.indexOf(0x22, q + 1)) {
        if (rng.int(25) !== 0 || json[q - 1] === 0x5c) continue;
        const at = rng.int(2) === 0 ? q + 1 : q;
        parts.push(json.subarray(from, at), rng.pick(BAD_UTF8));
        from = at;
      }
      parts.push(json.subarray(from));
      const body = Buffer.concat(parts);
      const line = rng.int(2) === 0 ? body : Buffer.from('base64:' + deflateSync(body).toString('base64'));
      const bytes = Buffer.concat([Buffer.from(header()), line, Buffer.from('\n')]);
      const dec = decodeRecord(bytes);
      if (parts.length > 1) bad++;
      for (const want of [{}, { tokens: true }, { search: true }] as ScanWant[]) {
        const got = scanner.scanRecord(bytes, want);
        const label = `record ${i} (${JSON.stringify(want)}): ${bytes.toString('latin1').slice(0, 300)}`;
        assert.deepEqual(facts(got, want), facts(fromDecoded(bytes, want), want), label);
        if (got.ok && want.tokens && dec.ok)
          got.timelines.forEach((t, k) => {
            const row = JSON.stringify(exportRow(i, dec.record, dec.record.timelines[k]!)) + '\n';
            // As bytes: a raw bad byte must not pass for the decoder's U+FFFD.
            assert.equal(exportLine(i, got, t).toString('latin1'), Buffer.from(row).toString('latin1'), label);
          });
        if (got.ok && want.search && dec.ok)
          for (const needle of NEEDLES) {
            const a = matchScan(got, needle),
              b = matchRecord(dec.record, needle);
            assert.deepEqual(a && [a.matches, a.timeline, a.token], b && [b.matches, b.timeline, b.token], label);
            // Scanned for the needle: through the raw-byte filter where it judges, and joined at once after a run of timelines that may hold it.
            for (let k = 0; k < 2; k++) {
              const r = scanner.scanRecord(bytes, { search: true, needle });
              const c = r.ok ? matchScan(r, needle) : undefined;
              assert.deepEqual(
                c && [c.matches, c.timeline, c.token, c.char],
                b && [b.matches, b.timeline, b.token, b.char],
                `${label} (${needle})`,
              );
            }
          }
      }
    }
    assert.ok(bad > 400, `records with bad bytes ${bad}`);
  });

test('search of token texts with bad UTF-8 the joined bytes would read otherwise: a sequence cut across two tokens, a bad lead byte before a capital', () => {
  // Each token a JSON string of these raw bytes (latin1: one byte per character).
  const cases: [string[], string][] = [
    [['a\xc3', '\xa9b', '\xc3\xa9'], 'é'],
    [['a\xc3', '\xa9b', 'b'], 'b'],
    [['\xc3Xy', 'x'], 'x'],
    [['\xe6\x97', '\x97Ex'], 'ex'],
  ];
  for (const wasm of [true, false]) {
    const scanner = new FastScanner({ wasm });
    for (const [tokens, needle] of cases) {
      const text = tokens.map((t) => `"${t}"`).join(', ');
      const color = tokens.map(() => '"#09abcf"').join(', ');
      const json = `{"header": "[3] Task t1 (Reward 1.000)", "nested_json": {"t1.1.0.0": {"outcome": "1.0", "content": {"text": [${text}], "color": [${color}]}}}}`;
      const bytes = Buffer.concat([Buffer.from(header()), Buffer.from(json, 'latin1'), Buffer.from('\n')]);
      const dec = decodeRecord(bytes);
      assert.ok(dec.ok);
      const want = matchRecord(dec.record, needle);
      // Ten scans: the first ones through the raw-byte filter (ASCII needles), the later ones joined at once.
      for (let k = 0; k < 10; k++) {
        const r = scanner.scanRecord(bytes, { search: true, needle });
        assert.ok(r.ok);
        const got = matchScan(r, needle);
        assert.deepEqual(
          got && [got.matches, got.timeline, got.token, got.char],
          want && [want.matches, want.timeline, want.token, want.char],
          `${JSON.stringify(tokens)} ${needle} scan ${k} (${wasm ? 'kernels' : 'JavaScript'})`,
        );
      }
    }
  }
});
