// Issue 28, hostile input round 3: a user's AgentJet whose defaults file is 1 MB nested a hundred
// thousand levels deep (`[[[...]]]`, `{a: {a: ...}}`) is measured before it is parsed and refused
// with the reason; configs are then judged by the bundled facts (a real type error still shows),
// whether that AgentJet is the workspace checkout or the one installed in `--python`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { nestingDepth, overBudget, FACTS_BUDGET } from '../../core/config/factsBudget';
import { repoRoot } from '../util/paths';
import { withUpstream } from '../util/upstream';
import { check, fc } from '../util/fc';

/** The depth of a JSON value: 1 per array or object level. */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

test('property: the depth measured never falls short of the real nesting (YAML block and flow, JSON)', () => {
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean()),
      fc.array(tie('tree'), { maxLength: 3 }),
      fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('tree'), { maxKeys: 3 }),
    ),
  }));
  check(
    fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tree, { minKeys: 1, maxKeys: 3 }), (doc) => {
      const want = depthOf(doc);
      for (const text of [stringify(doc), stringify(doc, { collectionStyle: 'flow' }), JSON.stringify(doc, null, 2), JSON.stringify(doc)])
        assert.ok(nestingDepth(text) >= want, `${nestingDepth(text)} < ${want} for:\n${text}`);
    }),
    500,
  );
});

test('the depth of quoted text: escapes, and quotes inside plain scalars of a flow collection (cases a long property run found)', () => {
  for (const doc of [
    { a: '"]', b: { a: {} } },
    { a: [["( '", { a: [] }]] },
    { a: [[":'"], [[{}]]] },
    { a: ':"', b: { a: {} } },
    { a: '?"', aa: { a: {} } },
  ]) {
    const want = depthOf(doc);
    for (const text of [stringify(doc), stringify(doc, { collectionStyle: 'flow' }), JSON.stringify(doc, null, 2), JSON.stringify(doc)])
      assert.ok(nestingDepth(text) >= want, `${nestingDepth(text)} < ${want} for:\n${text}`);
  }
});

test('hostile nesting is measured in one pass, and refused over the budget', () => {
  const brackets = `ajet:\n  x: ${'['.repeat(500_000)}${']'.repeat(500_000)}\n`;
  const maps = `ajet:\n  x: ${'{a: '.repeat(200_000)}1${'}'.repeat(200_000)}\n`;
  const block = `ajet:\n${Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i + 1)}a:`).join('\n')} 1\n`;
  const items = `ajet:\n  x:\n    ${'- '.repeat(400_000)}1\n`;
  for (const [name, text] of Object.entries({ brackets, maps, block, items })) {
    assert.ok(nestingDepth(text) > FACTS_BUDGET.maxDepth, name);
    const why = overBudget(new Map([['default_config/ajet_default.yaml', text]]));
    assert.match(why ?? '', /default_config\/ajet_default\.yaml nests more than 64 levels deep/, name);
  }
  // Brackets in comments and quoted strings do not count; a .py file is not measured.
  assert.equal(nestingDepth(`a: "[[[[[[" # [[[[\nb: '{{{{'\n`), 1);
  assert.equal(overBudget(new Map([['x.py', '['.repeat(1000)]])), undefined);
  assert.match(overBudget(new Map([['a.yaml', 'a: 1\n'.repeat(1_100_000)]])) ?? '', /more than 4 MB/);
});

for (const [shape, nested] of [
  ['[[[...]]]', (n: number) => `${'['.repeat(n / 2)}${']'.repeat(n / 2)}`],
  ['{a: {a: ...}}', (n: number) => `${'{a: '.repeat(n / 5)}1${'}'.repeat(n / 5)}`],
] as const) {
  test(
    `agentjet lint with a user's AgentJet whose defaults are 1 MB of ${shape}: refused with the reason, judged by bundled facts (checkout and --python)`,
    { timeout: 120_000 },
    withUpstream('agentjet-c68c154', (tree) => {
      const dir = mkdtempSync(join(tmpdir(), 'aj-facts-budget-'));
      try {
        const ws = join(dir, 'checkout');
        cpSync(join(tree, 'ajet'), join(ws, 'ajet'), { recursive: true });
        cpSync(join(tree, 'pyproject.toml'), join(ws, 'pyproject.toml'));
        const defaults = join(ws, 'ajet', 'default_config', 'ajet_default.yaml');
        const base = readFileSync(defaults, 'utf8').trimEnd();
        writeFileSync(defaults, `${base}\n  hostile: ${nested(1_000_000)}\n`);
        // A real type error: the bundled facts must still catch it.
        writeFileSync(join(ws, 'c.yaml'), 'ajet:\n  rollout:\n    num_repeat: abc\n');
        const env = { ...process.env, LANG: 'C.UTF-8', LANGUAGE: '', AGENTJET_FACTS_CACHE: join(dir, 'cache') };
        // Run from the repository (where tsx resolves); --root names the folder the lint is for.
        const lint = (root: string, ...args: string[]) =>
          spawnSync(
            process.execPath,
            ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'lint', '--root', root, ...args, join(root, 'c.yaml')],
            {
              cwd: repoRoot,
              env,
              encoding: 'utf8',
            },
          );
        // 1. The workspace is the checkout.
        const a = lint(ws);
        assert.equal(a.status, 1, a.stderr);
        assert.match(a.stdout, /type-mismatch `ajet\.rollout\.num_repeat` expects integer/);
        assert.match(
          a.stderr,
          /the AgentJet at .*checkout\/ajet was not read: default_config\/ajet_default\.yaml nests more than 64 levels deep .*: judged by bundled facts of AgentJet 0\.0\.4/,
        );
        // 2. The same package installed in the interpreter given with --python.
        const other = join(dir, 'elsewhere');
        cpSync(join(ws, 'c.yaml'), join(other, 'c.yaml'));
        const python = join(dir, 'python');
        writeFileSync(python, `#!/bin/sh\nPYTHONPATH='${ws}' exec python3 "$@"\n`, { mode: 0o755 });
        const b = lint(other, '--python', python);
        assert.equal(b.status, 1, b.stderr);
        assert.match(b.stdout, /type-mismatch `ajet\.rollout\.num_repeat` expects integer/);
        assert.match(
          b.stderr,
          /was not read: default_config\/ajet_default\.yaml nests more than 64 levels deep .*: judged by bundled facts/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
  );
}
