// Every config in the upstream trees, linted by the version whose code reads it. Each remaining
// error or warning must be justified by a row of the table in docs/config.md ("Upstream lint"),
// whose evidence is a line of that tree's code; rows nothing needs any more fail too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { lintText } from '../../core/config/lint';
import { looksLikeConfig, type FrameworkVersion } from '../../core/agentjet/dialect';
import type { CodeFactsByVersion } from '../../core/config/codefacts';
import { codeFactsOfTree } from '../util/codefacts';
import { repoRoot } from '../util/paths';
import { withUpstream, type UpstreamName } from '../util/upstream';

const TREES: [UpstreamName, FrameworkVersion][] = [
  ['agentjet-d20cce0', 'agentjet'],
  ['astuner-f9fab4f', 'astuner-2025-12'],
  ['astuner-61e9359', 'astuner-2025-11'],
  ['astune-ba24412p', 'astune'],
];

interface Row {
  tree: string;
  configs: string[];
  code: string;
  subject: string;
  evidence: string[];
  used: number;
}

const docs = readFileSync(join(repoRoot, 'docs', 'config.md'), 'utf8');
const section = docs.slice(docs.indexOf('### Upstream lint'));
const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
const rows: Row[] = section
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| tree ') && !l.startsWith('| upstream tree ') && cells(l).length === 6)
  .map((l) => {
    const [tree, configs, code, subject, , evidence] = cells(l) as [string, string, string, string, string, string];
    return {
      tree,
      configs: configs.split(',').map((c) => c.trim()),
      code,
      subject: subject.replace(/^`|`$/g, ''),
      evidence: evidence.split(',').map((e) => e.trim()),
      used: 0,
    };
  });
const counts = new Map<string, number[]>();
for (const l of section.split('\n')) {
  const c = cells(l);
  if (c.length === 5 && /^\d+$/.test(c[1] ?? '')) counts.set(c[0] as string, c.slice(1, 4).map(Number));
}

function globMatch(glob: string, path: string): boolean {
  const re = new RegExp(
    `^${glob
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(path);
}

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir).sort()) {
    if (n === '.git' || n === 'node_modules') continue;
    const p = join(dir, n);
    const st = statSync(p);
    if (st.isDirectory()) yamlFiles(p, out);
    else if (/\.ya?ml$/.test(n)) out.push(p);
  }
  return out;
}

test('the table of justified diagnostics is well formed', () => {
  assert.ok(rows.length >= 20, `${rows.length} rows`);
  assert.equal(counts.size, TREES.length);
});

for (const [tree, version] of TREES) {
  test(
    `every config of ${tree} lints as ${version} with only justified diagnostics`,
    withUpstream(tree, (dir, t) => {
      let configs = 0,
        errors = 0,
        warnings = 0;
      const unjustified: string[] = [];
      for (const f of yamlFiles(dir)) {
        const text = readFileSync(f, 'utf8');
        if (!looksLikeConfig(text)) continue;
        configs++;
        const rel = relative(dir, f).split(sep).join('/');
        const r = lintText(text, { root: dir, fileName: f, version });
        assert.ok(r.ours, rel);
        for (const d of r.diagnostics) {
          if (d.severity !== 'error' && d.severity !== 'warning') continue;
          if (d.severity === 'error') errors++;
          else warnings++;
          const row = rows.find(
            (x) => x.tree === tree && x.code === d.code && d.message.includes(x.subject) && x.configs.some((g) => globMatch(g, rel)),
          );
          if (row) row.used++;
          else unjustified.push(`${rel}:${d.range.start.line + 1} ${d.severity} ${d.code} ${d.message}`);
        }
      }
      t.diagnostic(`${tree}: ${configs} configs, ${errors} errors, ${warnings} warnings, ${unjustified.length} unjustified`);
      assert.deepEqual(unjustified, [], 'every diagnostic needs a row in docs/config.md (Upstream lint)');
      assert.deepEqual(counts.get(tree), [configs, errors, warnings], 'the counts in docs/config.md are current');
      for (const row of rows.filter((x) => x.tree === tree)) {
        assert.ok(row.used > 0, `row no longer needed: ${row.code} ${row.subject} in ${row.configs.join(', ')}`);
        for (const ev of row.evidence) {
          const m = /^(.+):(\d+)$/.exec(ev);
          assert.ok(m, `evidence is file:line: ${ev}`);
          const file = join(dir, m[1] as string);
          assert.ok(existsSync(file), `evidence file exists: ${ev}`);
          const lines = readFileSync(file, 'utf8').split('\n');
          assert.ok((lines[Number(m[2]) - 1] ?? '').trim().length > 0, `evidence line is code: ${ev}`);
        }
      }
    }),
  );
}

test('schemas/codefacts.json is what the upstream code says', async (t) => {
  const committed = JSON.parse(readFileSync(join(repoRoot, 'schemas', 'codefacts.json'), 'utf8')) as CodeFactsByVersion;
  for (const [tree, version] of TREES) {
    await t.test(
      tree,
      withUpstream(tree, async (dir) => {
        const facts = await codeFactsOfTree(dir, version);
        assert.deepEqual(committed[version], facts, 'run npm run gen:schema');
      }),
    );
  }
});
