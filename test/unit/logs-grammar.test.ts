// The run-log TextMate grammar: its regexes are written in the subset Oniguruma and JavaScript
// share, so they are checked here against real run logs with JavaScript's engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { fixtures } from '../gen';

interface Rule {
  match?: string;
  name?: string;
  captures?: Record<string, { name?: string }>;
  patterns?: Rule[];
  include?: string;
}
const grammar = JSON.parse(readFileSync(join(repoRoot, 'syntaxes', 'agentjet-log.tmLanguage.json'), 'utf8')) as {
  scopeName: string;
  patterns: Rule[];
  repository: Record<string, Rule>;
};

function allRules(r: Rule, out: Rule[] = []): Rule[] {
  if (r.match) out.push(r);
  for (const p of r.patterns ?? []) allRules(p, out);
  return out;
}

test('every grammar regex compiles and the manifest wires the language to it', () => {
  for (const [name, rule] of Object.entries(grammar.repository)) {
    for (const r of allRules(rule)) assert.doesNotThrow(() => new RegExp(r.match!), `${name}: ${r.match}`);
  }
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { languages: { id: string; filenames?: string[] }[]; grammars: { language: string; scopeName: string; path: string }[] };
  };
  const lang = pkg.contributes.languages.find((l) => l.id === 'agentjet-log');
  assert.ok(lang?.filenames?.includes('regular.log'));
  const g = pkg.contributes.grammars.find((x) => x.language === 'agentjet-log');
  assert.equal(g?.scopeName, grammar.scopeName);
});

test('header lines of real run logs split into time, level, module, function, line and message', () => {
  const header = grammar.repository.header!;
  const re = new RegExp(header.match!);
  const root = join(fixtures().workspace, 'saved_experiments');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.log')) files.push(p);
    }
  };
  walk(root);
  let headers = 0;
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!/^\d{4}-\d\d-\d\d /.test(line)) continue;
      const m = re.exec(line);
      assert.ok(m, `${f}: ${line}`);
      headers++;
      assert.match(m[1]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
      assert.ok(m[11] && m[13], `function and line captured in ${line}`);
    }
  }
  assert.ok(headers > 10);
  const m = re.exec('2026-01-05 09:07:00.000 | WARNING  | ajet.backbone.trainer_verl:fit:830 - step 1 done')!;
  assert.equal(m[5], 'WARNING');
  assert.equal(m[9], 'ajet.backbone.trainer_verl');
  assert.equal(m[11], 'fit');
  assert.equal(m[13], '830');
  assert.equal(m[15], ' step 1 done');
  assert.equal(header.captures?.['5']?.name?.includes('token.warn-token'), true);
  assert.equal(re.exec('2026-01-05 09:07:00.000 | ERROR    | __main__:<module>:12 - boom')?.[6], 'ERROR');
});

test('rich table rows give the key cell its own scope; tracebacks are recognised', () => {
  const [row] = allRules(grammar.repository.table!);
  const m = new RegExp(row!.match!).exec('│ │ mean_reward              │ 0.1824                    │ │');
  assert.equal(m?.[2], 'mean_reward');
  const tb = allRules(grammar.repository.traceback!);
  assert.ok(new RegExp(tb[0]!.match!).test('Traceback (most recent call last):'));
  const file = new RegExp(tb[1]!.match!).exec('  File "/x/workflow.py", line 42, in execute');
  assert.equal(file?.[4], '42');
  assert.equal(file?.[6], 'execute');
  assert.ok(new RegExp(tb[2]!.match!).test('ValueError: bad answer'));
});
