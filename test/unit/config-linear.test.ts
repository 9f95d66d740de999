// Issue 31 item 2: validation cost grows linearly with the document. Counts the inner work (lines the
// quick readers read, sections the library parses, map and value checks, edit distances for "did you
// mean", diagnostics) for N and 2N lines; never a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateText, validationWork } from '../../core/config/validate';
import { fastParseWork } from '../../core/config/fastParse';
import { textWork } from '../../core/config/text';
import { scanWork } from '../../core/config/scanParse';
import { generatedConfig } from '../../bench/validate-cost';

type Work = Record<string, number>;

function workOf(text: string): Work {
  const before: Work = { ...validationWork, ...fastParseWork, ...textWork, ...scanWork };
  const diagnostics = validateText(text).length;
  const after: Work = { ...validationWork, ...fastParseWork, ...textWork, ...scanWork };
  const out: Work = { diagnostics };
  for (const k of Object.keys(after)) out[k] = (after[k] ?? 0) - (before[k] ?? 0);
  return out;
}

/** Every counter of the 2N document is about twice the N document's (a fixed part aside). */
function assertLinear(make: (lines: number) => string, n: number, counters: string[]): void {
  const small = workOf(make(n));
  const big = workOf(make(2 * n));
  const huge = workOf(make(4 * n));
  for (const k of counters) {
    const a = small[k] ?? 0;
    const b = big[k] ?? 0;
    const c = huge[k] ?? 0;
    assert.ok(a > 0, `${k} counts something (${JSON.stringify(small)})`);
    // Linear: the growth from 2N to 4N is twice the growth from N to 2N (within 10%); quadratic work
    // would make it four times.
    const ratio = (c - b) / (b - a);
    assert.ok(ratio > 1.8 && ratio < 2.2, `${k}: ${a}, ${b}, ${c} for ${n}, ${2 * n}, ${4 * n} lines (ratio ${ratio.toFixed(2)})`);
  }
}

test('the generated config of bench:lsp: every inner count grows linearly', () => {
  assertLinear(generatedConfig, 2000, ['scannedLines', 'editDistance', 'diagnostics']);
});

test('a config the library parses (comments in every section): the checks grow linearly', () => {
  const commented = (lines: number) =>
    generatedConfig(lines)
      .split('\n')
      .map((l) => (/^ {2}block_\d+:$/.test(l) ? `${l}  # a block` : l))
      .join('\n');
  assertLinear(commented, 2000, ['editDistance', 'diagnostics']);
  // None of it was read by the quick reader.
  const before = fastParseWork.fastSections;
  workOf(commented(4000));
  assert.equal(fastParseWork.fastSections, before);
});

test('many unknown keys in one map: "did you mean" stays linear', () => {
  const typos = (lines: number) => {
    const out = ['ajet:', '  model:', '    path: m', '  rollout:'];
    for (let i = 0; out.length < lines; i++) out.push(`    temperatur_${i}: 1`, `    max_env_workr${i}: 2`);
    return out.join('\n') + '\n';
  };
  assertLinear(typos, 2000, ['editDistance', 'diagnostics']);
});

test('long lists and many known keys: the value checks grow linearly', () => {
  const lists = (lines: number) => {
    const out = ['ajet:', '  model:', '    path: m', 'hydra:', '  searchpath:', '    - file://ajet/default_config', 'defaults:'];
    for (let i = 0; out.length < lines; i++) out.push(`  - piece_${i}`);
    return out.join('\n') + '\n';
  };
  assertLinear(lists, 2000, ['scannedLines', 'values']);
});
