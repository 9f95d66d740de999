// Search's raw-byte filter (core/logs/needlefilter.ts): it may only say "no match" when the
// lowercased joined token text really holds none; checked on random token arrays written the
// ways the loggers write them (raw UTF-8 or \u escapes), with either case, tokens split anywhere,
// 'İ' and the Kelvin sign (whose lower case is ASCII), and escapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NeedleFilter } from '../../core/logs/needlefilter';
import { Rng } from '../util/tokenlogs';

const PIECES = ['a', 'b', 'K', 'k', '\u212a', 'i', 'I', '\u0130', 'the', 'TH', 'e', ' ', '"', '\\', '\n', 'x', 'é', '0', '.', '5', ''];

function asciiJson(s: string): string {
  return JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

test('the needle filter never rules out a timeline whose joined, lowercased text holds the needle', () => {
  const rng = new Rng(42);
  const needles = ['k', 'i', 'ki', 'ik', 'th', 'the', 'e t', 'ab', 'ba', 'x', 'zq', '0.5', 'a b', 'hex', 'kk', 'ii', 'e 5'];
  let ruledOut = 0,
    held = 0;
  for (let i = 0; i < 20000; i++) {
    const tokens = Array.from({ length: 1 + rng.int(12) }, () => Array.from({ length: rng.int(3) }, () => rng.pick(PIECES)).join(''));
    // Python's json.dumps with ensure_ascii (escapes), without, or JSON.stringify's spacing.
    const style = rng.int(3);
    const json = '[' + tokens.map((t) => (style === 0 ? asciiJson(t) : JSON.stringify(t))).join(style === 2 ? ',' : ', ') + ']';
    const b = Buffer.from(`{"text": ${json}}`);
    const s = b.indexOf('['),
      e = b.lastIndexOf(']') + 1;
    const joined = tokens.join('').toLowerCase();
    for (const needle of needles) {
      const f = NeedleFilter.for(needle)!;
      const may = f.mayHold(b, s, e);
      if (joined.includes(needle)) {
        held++;
        assert.ok(may, `${needle} in ${json}`);
      } else if (!may) ruledOut++;
    }
  }
  // Worth something only if both happened often.
  assert.ok(held > 20000 && ruledOut > 20000, `held ${held}, ruled out ${ruledOut}`);
});

test('needles the filter cannot judge get no filter', () => {
  for (const n of ['', 'é', '"', 'a\\b', 'a/b', 'tab\there', 'ß']) assert.equal(NeedleFilter.for(n), undefined, JSON.stringify(n));
  assert.ok(NeedleFilter.for('zebra-quokka-7'));
});
