// Guard: the project's tests, benches and scripts read no fixtures or tools from outside the
// repository. Fixtures come from test/gen; upstream trees only through test/util/upstream.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../util/paths';

const SELF = relative(repoRoot, __filename);
const LOOKUP = join('test', 'util', 'upstream.ts');

/** What is forbidden, and where. `anywhere`: in every file; otherwise outside test/util/upstream.ts only. */
const RULES: { re: RegExp; what: string; anywhere: boolean }[] = [
  { re: /shared[\\/](fixtures|tools|seeds)\b/, what: 'a path into shared fixtures/tools/seeds', anywhere: true },
  { re: /\bshared\(\s*['"`](fixtures|tools|seeds|reference)['"`]/, what: "a shared('fixtures'|'tools'|...) call", anywhere: true },
  { re: /AGENTJET_SHARED_DIR/, what: 'AGENTJET_SHARED_DIR', anywhere: true },
  { re: /\.\.[\\/]shared\b/, what: 'a hard-coded ../shared', anywhere: false },
  { re: /['"`]\.\.['"`]\s*,\s*['"`]shared['"`]/, what: "a hard-coded '..', 'shared'", anywhere: false },
];

function files(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    if (n === 'node_modules' || n.startsWith('.')) continue;
    const p = join(dir, n);
    if (statSync(p).isDirectory()) files(p, out);
    else if (/\.(ts|mts|cts|js|mjs|cjs|json|sh|py)$/.test(n)) out.push(p);
  }
  return out;
}

/** Offending lines of one file's text. */
export function offences(rel: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const r of RULES) if ((r.anywhere || rel !== LOOKUP) && r.re.test(line)) out.push(`${rel}:${i + 1}: ${r.what}: ${line.trim()}`);
  });
  return out;
}

test('no test, bench or script reads ../shared fixtures, tools or seeds, or hard-codes ../shared', () => {
  const all = ['test', 'bench', 'scripts'].flatMap((d) => files(join(repoRoot, d)));
  assert.ok(all.length > 20, `scanned ${all.length} files`);
  const found = all
    .map((f) => relative(repoRoot, f))
    .filter((rel) => rel !== SELF)
    .flatMap((rel) => offences(rel, readFileSync(join(repoRoot, rel), 'utf8')));
  assert.deepEqual(found, []);
});

test('the guard catches each forbidden form (and allows the one lookup)', () => {
  const bad = [
    "const dir = shared('fixtures', 'logs');",
    "spawnSync('python3', [shared('tools', 'gen_experiments.py')]);",
    "readFileSync('../shared/fixtures/logs/plain.json.log');",
    'const d = process.env.AGENTJET_SHARED_DIR;',
    "const p = resolve(repoRoot, '..', 'shared', 'reference');",
  ];
  for (const line of bad) assert.notDeepEqual(offences(join('test', 'unit', 'x.test.ts'), line), [], line);
  assert.deepEqual(offences(LOOKUP, "out.push(resolve(repoRoot, '..', 'shared', 'reference', 'upstream'));"), []);
  assert.deepEqual(offences(join('test', 'unit', 'x.test.ts'), "import { fixtures } from '../gen';"), []);
});
