// The scanner (fastscan.ts) against the full decoder (decode.ts): the same facts and the same
// export lines, byte for byte, on generated logs with random and hostile content.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FastScanner, exportLine, fromDecoded, type ScanResult } from '../../core/logs/fastscan';
import { decodeRecord } from '../../core/logs/decode';
import { exportRow } from '../../core/logs/stats';
import { Rng, randomRecord } from '../util/tokenlogs';

function facts(r: ScanResult) {
  if (!r.ok) return { ok: false, error: r.error };
  return {
    title: r.title, step: r.step, taskId: r.taskId, reward: r.reward, outcome: r.outcome, kind: r.kind, tokens: r.tokens, trained: r.trained,
    timelines: r.timelines.map((t) => ({ taskId: t.taskId, outcome: t.outcome, index: t.index, lenPrompt: t.lenPrompt, lenResponse: t.lenResponse, rawReward: t.rawReward, stepReward: t.stepReward, advantage: t.advantage, tokens: t.tokens, trained: t.trained })),
  };
}

test('scanner and decoder agree byte for byte on 3,000 random records (stats facts and export lines)', () => {
  const rng = new Rng(20260105);
  const scanner = new FastScanner();
  let fast = 0, fallback = 0, corrupt = 0;
  for (let i = 0; i < 3000; i++) {
    const bytes = Buffer.from(randomRecord(rng, i));
    const got = scanner.scanRecord(bytes, { tokens: true });
    const ref = fromDecoded(bytes, { tokens: true });
    assert.deepEqual(facts(got), facts(ref), `record ${i}: ${bytes.toString().slice(0, 300)}`);
    if (!got.ok) { corrupt++; continue; }
    if (got.decoded) fallback++; else fast++;
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
