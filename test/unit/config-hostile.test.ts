// Issue 22, configs: validation stays linear on hostile documents and gives the same answers as
// before; property tests over mutations of the real configs (demo + upstream tutorials).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, isAlias, visit, type Document } from 'yaml';
import { parseConfig, deref } from '../../core/config/parse';
import { validateParsed, validateSteps } from '../../core/config/validate';
import { execa } from 'execa';
import { ConfigService } from '../../core/config/service';
import { DOCUMENT_SUGGEST_BUDGET } from '../../core/config/validateContext';
import { findUpstream } from '../util/upstream';
import { repoRoot } from '../util/paths';
import { check, checkAsync, fc, mutatedConfig } from '../util/fc';
import { demoConfig, demoDir, yamlFiles } from './config-helpers';

/** The demo config and, when present, the upstream tutorial configs. */
function realConfigs(): string[] {
  const up = findUpstream('agentjet-d20cce0');
  const tut = up ? yamlFiles(join(up, 'tutorial')).slice(0, 12) : [];
  return [demoConfig, ...tut.map((f) => readFileSync(f, 'utf8'))];
}
const bases = realConfigs();

const errs = (docs: Document.Parsed[]) => docs.flatMap((d) => d.errors.map((e) => ({ code: e.code, at: e.pos[0], message: e.message })));

// The library reports errors in the order it composes nodes (a key's missing value after its nested
// map's errors); ours adds duplicates by place. Problems are shown by place, so the same set is what counts.
test('property: duplicate keys are reported as the yaml library reports them (same code, message and place)', () => {
  check(
    fc.property(mutatedConfig(bases), (text) => {
      const ours = errs(parseConfig(text).docs);
      const lib = parseAllDocuments(text, { merge: true, prettyErrors: false, strict: false });
      const theirs = Array.isArray(lib) ? errs(lib) : [];
      const words = (l: { code: string; message: string }[]) => l.map((e) => `${e.code}:${e.message}`).sort();
      assert.deepEqual(words(ours), words(theirs));
      const left = [...theirs];
      // In a document with other errors the library's recovery may place a duplicate anywhere in the
      // broken structure (seen: at a broken key's start, 900 characters before the key); ours stays at
      // the duplicate key itself. Places are compared where duplicates are the only errors.
      const broken = theirs.some((x) => x.code !== 'DUPLICATE_KEY');
      for (const e of ours) {
        // The library points before a mis-indented key's indentation; ours points at the key itself.
        const i = left.findIndex(
          (x) =>
            x.code === e.code &&
            x.message === e.message &&
            (x.at === e.at || (e.code === 'DUPLICATE_KEY' && (broken || (e.at > x.at && /^\s*$/.test(text.slice(x.at, e.at)))))),
        );
        assert.ok(i >= 0, `${e.code} at ${e.at} is not among the library's errors`);
        left.splice(i, 1);
      }
    }),
    300,
  );
});

test('property: aliases resolve to the node the yaml library resolves them to', () => {
  const withAnchors = bases.map((b) => b.replace(/^( {2}\w+:)/m, '$1 &a').replace(/\n$/, '\nextra: *a\nmore: {<<: *a}\n'));
  check(
    fc.property(mutatedConfig(withAnchors), (text) => {
      for (const doc of parseConfig(text).docs) {
        visit(doc, {
          Alias: (_k, a) => {
            let want: unknown;
            try {
              want = a.resolve(doc) ?? null;
            } catch {
              want = null;
            }
            assert.equal(deref(a, doc), want);
          },
        });
      }
    }),
    300,
  );
});

test('property: validation in steps gives the same diagnostics; a stale document stops early', async () => {
  await checkAsync(
    fc.asyncProperty(mutatedConfig(bases), fc.nat(20), async (text, stopAfter) => {
      const p = parseConfig(text);
      const whole = validateParsed(p, { root: demoDir });
      const steps = validateSteps(p, { root: demoDir });
      let r = steps.next();
      while (!r.done) r = steps.next();
      assert.deepEqual(r.value, whole);
      const svc = new ConfigService({ roots: [demoDir] });
      const sync = svc.diagnose('file:///a.yaml', 1, text, join(demoDir, 'a.yaml'));
      const svc2 = new ConfigService({ roots: [demoDir] });
      const sliced = await svc2.diagnoseAsync('file:///a.yaml', 1, text, join(demoDir, 'a.yaml'), () => false, 0);
      assert.deepEqual(sliced, sync);
      let n = 0;
      const svc3 = new ConfigService({ roots: [demoDir] });
      const stopped = await svc3.diagnoseAsync('file:///a.yaml', 1, text, join(demoDir, 'a.yaml'), () => ++n > stopAfter, 0);
      if (stopped !== undefined) assert.deepEqual(stopped, sync);
    }),
    120,
  );
});

// A merge key whose source is not a map (`<<: *a2000` with no such anchor, `<<: 5`, an alias to a
// scalar) made the yaml library throw while a rule read the value: the whole validation failed (the
// property above found it once in a bare clone, seed -1831654733). Every value the rules read, in
// every section, now stands such a value: the rule reads it as unknown.
test('a merge key whose source is not a map never fails validation, wherever the rules read it', async () => {
  const bad = ['<<: *a2000', '{<<: *a2000}', '{<<: 5}', '{<<: [1, 2]}', '{<<: *n}', '[{<<: *n}]'];
  const lines = demoConfig.split('\n');
  const valueLines = lines.map((l, i) => (/^ {4,}\w+: \S/.test(l) ? i : -1)).filter((i) => i >= 0);
  assert.ok(valueLines.length > 15, `values of the demo config: ${valueLines.length}`);
  let checked = 0;
  for (const i of valueLines)
    for (const b of bad) {
      const mutated = [...lines];
      mutated[i] = mutated[i]!.replace(/: .*$/, `: ${b}`);
      // An anchored scalar for `*n` to point at.
      const text = mutated.join('\n').replace('  project_name: math_demo', '  project_name: &n math_demo');
      const p = parseConfig(text);
      const whole = validateParsed(p, { root: demoDir });
      const steps = validateSteps(p, { root: demoDir });
      let r = steps.next();
      while (!r.done) r = steps.next();
      assert.deepEqual(r.value, whole, `${lines[i]} -> ${b}`);
      const sync = new ConfigService({ roots: [demoDir] }).diagnose('file:///a.yaml', 1, text, join(demoDir, 'a.yaml'));
      const sliced = await new ConfigService({ roots: [demoDir] }).diagnoseAsync(
        'file:///a.yaml',
        1,
        text,
        join(demoDir, 'a.yaml'),
        () => false,
        0,
      );
      assert.deepEqual(sliced, sync, `${lines[i]} -> ${b}`);
      checked++;
    }
  assert.equal(checked, valueLines.length * bad.length);
});

/** Lints one of test/util/hostileConfigs.ts in a child process killed after `limitMs` (a hang guard
 * a synchronous quadratic pass cannot block, unlike a node:test timeout). */
async function lintHostile(name: string, limitMs = 20_000): Promise<{ byCode: Record<string, number>; hints: number; unique: number }> {
  const r = await execa(process.execPath, ['--import', 'tsx', join(repoRoot, 'test', 'util', 'hostileConfigs.ts'), name], {
    timeout: limitMs,
    reject: false,
  });
  assert.ok(!r.timedOut, `linting ${name} did not finish in ${limitMs / 1000} s (quadratic cost is back?)`);
  assert.equal(r.exitCode, 0, r.stderr);
  return JSON.parse(r.stdout) as { byCode: Record<string, number>; hints: number; unique: number };
}

// 40,000 unknown keys (400 KB) took 22.9 s to lint: the yaml library's duplicate-key scan is quadratic.
// Checked: without the fix the child is killed at the limit.
test('issue 22 #10: a 400 KB config with 40,000 unknown keys lints (hang guard); duplicates still found', async () => {
  const r = await lintHostile('unknownKeys');
  assert.equal(r.byCode['unknown-key'], 40_000);
  assert.equal(r.unique, 0);
  const dup = await lintHostile('unknownKeysDup');
  assert.equal(dup.unique, 1, 'the duplicate check still works at that size');
});

// Every missing target compared its name with every key of the map, and each lookup scanned the map:
// 29.6 s for 977 KB. Checked: without the fix the child is killed at the limit.
test('issue 22 #10: 12,000 interpolations into a 12,000-key map lint (hang guard); suggestions stop at the budget', async () => {
  const r = await lintHostile('interpolations');
  assert.equal(r.byCode['bad-interpolation'], 12_000, 'every missing target is reported once, none of the existing ones');
  assert.ok(r.hints > 0, 'the first misses get a suggestion');
  assert.ok(r.hints <= Math.ceil(DOCUMENT_SUGGEST_BUDGET / 12_000) + 1, `suggestions stop once the budget is spent (${r.hints})`);
});

test('issue 22 #10: an alias-heavy document resolves every alias once (aliases keep their values)', () => {
  let text = 'ajet:\n  a: &len 9000\n  rollout:\n';
  for (let i = 0; i < 3000; i++) text += `    max_model_len: *len\n`;
  const p = parseConfig(text);
  let aliases = 0;
  visit(p.doc as Document, {
    Alias: (_k, a) => {
      aliases++;
      const n = deref(a, p.doc as Document);
      assert.ok(n && !isAlias(n));
    },
  });
  assert.equal(aliases, 3000);
  assert.ok(!validateParsed(p, { root: demoDir }).some((d) => d.code === 'type-mismatch'));
});
