// Edit distance and key suggestions (core/config/text.ts) against a plain reference implementation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fc, check } from '../util/fc';
import { editDistance, suggest } from '../../core/config/text';

/** Optimal string alignment distance, the textbook table: what editDistance computes without its early exit. */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '_', 'x'), maxLength: 90 });

test('editDistance equals the reference, or a figure above max exactly when the reference is above it', () => {
  check(
    fc.property(word, word, fc.integer({ min: 0, max: 6 }), (a, b, max) => {
      const r = reference(a, b);
      assert.equal(editDistance(a, b), r);
      const bounded = editDistance(a, b, max);
      if (r <= max) assert.equal(bounded, r);
      else assert.ok(bounded > max, `${bounded} should be above ${max}`);
    }),
    300,
  );
});

test('suggest: close keys best first, case-insensitive, the same answer for a list seen before', () => {
  const keys = ['learning_rate', 'lr_warmup', 'max_steps', 'Model', 'total_epochs'];
  assert.deepEqual(suggest('learning_rtae', keys), ['learning_rate']);
  assert.deepEqual(suggest('model', keys), ['Model']);
  assert.deepEqual(suggest('totl_epochs', keys), ['total_epochs']);
  assert.deepEqual(suggest('zzzzzz', keys), []);
  assert.deepEqual(suggest('learning_rtae', keys), ['learning_rate']);
  assert.deepEqual(suggest('max_step', new Set(keys)), ['max_steps']);
});
