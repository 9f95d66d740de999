// core/ in layers: no value-import cycle between its folders, no import from a lower layer into a
// higher one (core/layers.json), and the ESLint fence states the same order as the graph check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { coreGraph, findCycles, layerBreaks, readLayers, report, valueImports } from '../../scripts/core-graph';
import { repoRoot } from '../util/paths';

const coreDir = join(repoRoot, 'core');
const layers = readLayers(coreDir);

test('core/: no cycle between folders, no layer break, every folder placed in core/layers.json', () => {
  const { text, ok } = report(coreGraph(coreDir), layers);
  assert.ok(ok, text);
});

test('every core folder is in exactly one layer', () => {
  const placed = layers.flat();
  assert.equal(new Set(placed).size, placed.length, `a folder is named twice in core/layers.json: ${placed.join(', ')}`);
});

test('a deliberately bad import makes a cycle and a layer break, and the report fails', () => {
  // l10n (layer 1) importing a value from config (layer 4), which imports l10n.
  const bad = { 'l10n/probe.ts': "import { schema } from '../config/schema';\nexport const probe = schema;\n" };
  const graph = coreGraph(coreDir, bad);
  assert.ok(
    findCycles(graph).some((c) => c.includes('l10n') && c.includes('config')),
    'the cycle l10n -> config -> l10n is found',
  );
  const { breaks } = layerBreaks(graph, layers);
  assert.deepEqual(
    breaks.map((b) => `${b.file}:${b.line} ${b.specifier}`),
    ['l10n/probe.ts:1 ../config/schema'],
  );
  const { text, ok } = report(graph, layers);
  assert.equal(ok, false);
  assert.match(text, /cycle: .*l10n/);
  assert.match(text, /layer break: core\/l10n\/probe\.ts:1/);
});

test('type-only imports are not edges; re-exports, side-effect imports and import() are', () => {
  const src = [
    "import type { A } from '../runs/types';",
    "import { type B, type C } from '../runs/model';",
    "export type { D } from '../runs/list';",
    "import { value } from '../config/schema';",
    "export { other } from '../launch/plan';",
    "import '../logs/stats';",
    "export * from '../swarm/api';",
    "const lazy = () => import('../doctor/run');",
  ].join('\n');
  assert.deepEqual(
    valueImports('x.ts', src).map((i) => i.specifier),
    ['../config/schema', '../launch/plan', '../logs/stats', '../swarm/api', '../doctor/run'],
  );
});

test('a folder the layers do not name is reported', () => {
  const graph = coreGraph(coreDir, { 'newfeature/index.ts': "import { t } from '../l10n';\nexport const x = t('x');\n" });
  const { unplaced } = layerBreaks(graph, layers);
  assert.deepEqual(unplaced, ['newfeature']);
  assert.equal(report(graph, layers).ok, false);
});

test('the ESLint fence forbids exactly the higher layers, for every core folder', async () => {
  const eslint = new ESLint({ cwd: repoRoot });
  for (const [i, layer] of layers.entries()) {
    const higher = layers.slice(i + 1).flat();
    const sameOrLower = layers.slice(0, i + 1).flat();
    for (const folder of layer) {
      const config = (await eslint.calculateConfigForFile(join(coreDir, folder, 'probe.ts'))) as {
        rules?: Record<string, unknown>;
      };
      const rule = config.rules?.['@typescript-eslint/no-restricted-imports'] as
        [unknown, { patterns: { regex: string; allowTypeImports?: boolean; caseSensitive?: boolean }[] }] | undefined;
      if (higher.length === 0) {
        assert.equal(rule, undefined, `core/${folder}/ is in the top layer: nothing is fenced`);
        continue;
      }
      assert.ok(rule, `core/${folder}/ has the layer fence`);
      const patterns = rule[1].patterns;
      const forbidden = (spec: string) => patterns.some((p) => new RegExp(p.regex, p.caseSensitive ? 'u' : 'iu').test(spec));
      assert.ok(
        patterns.every((p) => p.allowTypeImports === true),
        'type imports stay allowed',
      );
      for (const h of higher) {
        assert.ok(forbidden(`../${h}/x`), `core/${folder}/ may not import ../${h}/x`);
        assert.ok(forbidden(`../${h}`), `core/${folder}/ may not import ../${h}`);
      }
      for (const l of sameOrLower) {
        if (l !== folder) assert.ok(!forbidden(`../${l}/x`), `core/${folder}/ may import ../${l}/x`);
      }
      assert.ok(!forbidden('./x'), `core/${folder}/ may import its own files`);
    }
  }
});
