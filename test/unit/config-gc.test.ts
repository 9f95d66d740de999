// A validated parse tree is garbage as soon as the validation returns: a young-generation
// collection frees it. A cache that kept it reachable from a long-lived table (a WeakMap whose
// values held the document) made each young collection copy, then promote, every fresh tree: old
// space grew by 26-50 KB per validation, and young collections took 3-5 ms instead of 0.5 ms.
// Counts bytes, not time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { validateText } from '../../core/config/validate';
import { repoRoot } from '../util/paths';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (o?: { type: 'minor' | 'major' }) => void;

const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? NaN;

/** Old space's growth over `n` validations, each followed by young-generation collections (the second of two windows). */
function promotedOver(n: number, text: (i: number) => string): number {
  for (let i = 0; i < 300; i++) validateText(text(i));
  gc({ type: 'major' });
  gc({ type: 'major' });
  const window = () => {
    const before = oldSpace();
    for (let i = 0; i < n; i++) {
      validateText(text(i));
      // Twice: an object that survives one young collection is moved to old space at the next.
      gc({ type: 'minor' });
      gc({ type: 'minor' });
    }
    return oldSpace() - before;
  };
  window();
  return window();
}

const base = readFileSync(join(repoRoot, 'demo', 'math_agent.yaml'), 'utf8');
// Anchors, an alias and a merge key: the alias index and the merged pairs are cached too.
const aliased = `${base}\nshared: &shared\n  a: 1\n  b: 2\nmerged:\n  <<: *shared\n  c: *shared\n`;

for (const [name, text] of [
  ['a config', base],
  ['a config with anchors, aliases and a merge key', aliased],
] as const) {
  test(`validation leaves nothing of ${name} for the young generation to keep`, () => {
    const n = 40;
    // Each text is new (a fresh parse), as in an editor. Measured: 0.5-1.5 KB per validation; 26-50 KB when the trees were kept.
    const grown = promotedOver(n, (i) => `${text}# ${i}\n`);
    assert.ok(Number.isFinite(grown), 'V8 reports its old space');
    assert.ok(grown < n * 8 * 1024, `old space grew ${grown} bytes over ${n} validations (${Math.round(grown / n)} per validation)`);
  });
}
