// The scanner (fastscan.ts) against the full decoder (decode.ts): the same facts and the same
// export lines, byte for byte, on generated logs with random and hostile content.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FastScanner, exportLine, fromDecoded, type ScanResult } from '../../core/logs/fastscan';
import { decodeRecord } from '../../core/logs/decode';
import { exportRow } from '../../core/logs/stats';
import { matchRecord } from '../../core/logs/session';
import { matchScan } from '../../core/logs/jobs';
import { Rng, header, randomRecord } from '../util/tokenlogs';
import { deflateSync } from 'node:zlib';

/** Every fact of a scan but the bulky token bytes and texts (compared on their own) and the fallback's decoded record. */
function facts(r: ScanResult) {
  if (!r.ok) return { ok: false, error: r.error };
  const { timelines, decoded: _decoded, ...record } = r;
  return { ...record, timelines: timelines.map(({ json: _json, texts: _texts, ...tl }) => tl) };
}

// Both paths of the scanner: its WebAssembly kernels (the default) and the JavaScript loops.
const PATHS = [
  { wasm: true, label: 'WebAssembly kernels' },
  { wasm: false, label: 'JavaScript loops' },
];

for (const { wasm, label } of PATHS)
  test(`scanner and decoder agree byte for byte on 3,000 random records (stats facts and export lines; ${label})`, () => {
    const rng = new Rng(20260105);
    const scanner = new FastScanner({ wasm });
    let fast = 0,
      fallback = 0,
      corrupt = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(randomRecord(rng, i));
      const got = scanner.scanRecord(bytes, { tokens: true });
      const ref = fromDecoded(bytes, { tokens: true });
      assert.deepEqual(facts(got), facts(ref), `record ${i}: ${bytes.toString().slice(0, 300)}`);
      assert.deepEqual(facts(scanner.scanRecord(bytes, {})), facts(ref), `record ${i} (stats mode)`);
      if (!got.ok) {
        corrupt++;
        continue;
      }
      if (got.decoded) fallback++;
      else fast++;
      const dec = decodeRecord(bytes);
      assert.ok(dec.ok);
      got.timelines.forEach((t, k) => {
        const want = JSON.stringify(exportRow(i, dec.record, dec.record.timelines[k]!)) + '\n';
        assert.equal(exportLine(i, got, t).toString('utf8'), want, `record ${i} timeline ${k}`);
      });
    }
    process.stderr.write(`fast ${fast} fallback ${fallback} corrupt ${corrupt}\n`);
    // The test is only worth something if both paths ran.
    assert.ok(fast > 2000, `fast path taken ${fast} times`);
    assert.ok(fallback > 50 && corrupt > 20, `fallback ${fallback}, corrupt ${corrupt}`);
  });

for (const { wasm, label } of PATHS)
  test(`search on scanned records finds what the decoder-based search finds (escapes, case, across tokens; ${label})`, () => {
    const rng = new Rng(7);
    const scanner = new FastScanner({ wasm });
    const needles = ['hi there', '\n', '"', '\\', 'é', 'ß', '日本', 'boxed final', 'answer', 'task', 'reward', '😀', '\u0001', 'i̇', 'k'];
    // ASCII needles also go through the raw-byte filter (needlefilter.ts): across tokens, either case, 'İ' and the Kelvin sign.
    const filtered = ['k', 'i', 'ki', 'ik', 'hi', 'e t', 'lo w', 'zq', 'x', 'ab', 'al', 'the', '0.5', 'a b', 'answer is'];
    let hits = 0,
      filteredHits = 0;
    for (let i = 0; i < 1500; i++) {
      const bytes = Buffer.from(randomRecord(rng, i));
      const got = scanner.scanRecord(bytes, { search: true });
      const dec = decodeRecord(bytes);
      assert.equal(got.ok, dec.ok);
      if (!got.ok || !dec.ok) continue;
      for (const n of needles) {
        const needle = n.toLowerCase();
        const a = matchScan(got, needle);
        const b = matchRecord(dec.record, needle);
        assert.equal(a === undefined, b === undefined, `record ${i} needle ${JSON.stringify(n)}`);
        if (a && b) {
          assert.equal(a.matches, b.matches, `record ${i} needle ${JSON.stringify(n)} matches`);
          assert.deepEqual([a.timeline, a.token], [b.timeline, b.token], `record ${i} needle ${JSON.stringify(n)} position`);
          hits++;
        }
      }
      for (const needle of filtered) {
        const r = scanner.scanRecord(bytes, { search: true, needle });
        assert.ok(r.ok);
        const a = matchScan(r, needle);
        const b = matchRecord(dec.record, needle);
        assert.deepEqual(
          a && [a.matches, a.where, a.timeline, a.token],
          b && [b.matches, b.where, b.timeline, b.token],
          `record ${i} needle ${needle} (filtered)`,
        );
        if (b && b.matches) filteredHits++;
      }
    }
    assert.ok(hits > 500, `hits ${hits}`);
    assert.ok(filteredHits > 500, `hits through the filter ${filteredHits}`);
  });

test('keys and field values that start with an escape are decoded (or the record declined) as the decoder does', () => {
  // Field values and keys are short: their escape check is a loop over their own bytes, which
  // must look at the first byte too.
  const fields = [
    '"outcome": "\\u0031.0", "raw_reward": "\\u0030.5", "step_reward": "0.2\\u0035", "task_id": "\\u0074x"',
    '"\\u006futcome": "1.0", "raw_reward": "0.5"',
    '"outcome": "\\"q\\"", "step_advantage": "\\u002d0.5"',
  ];
  const scanner = new FastScanner();
  for (const [n, f] of fields.entries()) {
    const json = `{"header": "[3] Task \\u0074${n} (Reward 0.5)", "nested_json": {"t${n}.0.0.0": {${f}, "content": {"text": ["a", "\\u0062", "c"], "title": ["N/A", "-0.5", "-0.25"], "count": ["1", "2", "3"], "color": ["#000000", "#ff0000", "#00ff00"]}}}}`;
    for (const plain of [true, false]) {
      const bytes = Buffer.from(header() + (plain ? json : 'base64:' + deflateSync(Buffer.from(json)).toString('base64')) + '\n');
      const ref = fromDecoded(bytes, { tokens: true });
      assert.ok(ref.ok, json);
      const got = scanner.scanRecord(bytes, { tokens: true });
      assert.deepEqual(facts(got), facts(ref), json);
      assert.deepEqual(facts(scanner.scanRecord(bytes, {})), facts(ref), `${json} (stats mode)`);
      assert.ok(got.ok);
      got.timelines.forEach((t, k) => assert.equal(exportLine(0, got, t).toString(), exportLine(0, ref, ref.timelines[k]!).toString()));
    }
  }
});
