// Mutates the real configs thousands of times; every request must return without throwing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { findUpstream, withUpstream } from '../util/upstream';
import { lintText } from '../../core/config/lint';
import { parseConfig } from '../../core/config/parse';
import { complete, hover, definition, documentLinks, codeActions } from '../../core/config/features';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { demoConfig, demoDir, yamlFiles } from './config-helpers';
import { YAML_JUNK } from '../util/fc';

// Small deterministic PRNG so failures reproduce.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

function mutate(text: string, r: () => number): string {
  let t = text;
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(r() * (t.length + 1));
    switch (Math.floor(r() * 6)) {
      case 0:
        t = t.slice(0, at) + t.slice(at + 1 + Math.floor(r() * 20));
        break; // delete
      case 1:
        t = t.slice(0, at) + (YAML_JUNK[Math.floor(r() * YAML_JUNK.length)] as string) + t.slice(at);
        break; // insert junk
      case 2: {
        const lines = t.split('\n');
        const a = Math.floor(r() * lines.length),
          b = Math.floor(r() * lines.length);
        [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
        t = lines.join('\n');
        break;
      }
      case 3: {
        const lines = t.split('\n');
        const a = Math.floor(r() * lines.length);
        lines[a] = (r() < 0.5 ? '  ' : '') + (lines[a] as string).replace(/^ {0,2}/, r() < 0.5 ? '' : '\t');
        t = lines.join('\n');
        break;
      }
      case 4:
        t = t.slice(0, at) + t.slice(Math.floor(r() * t.length), Math.floor(r() * t.length)) + t.slice(at);
        break; // duplicate a slice
      default:
        t = t.slice(0, at) + String.fromCharCode(Math.floor(r() * 0x3000)) + t.slice(at);
        break;
    }
  }
  return t;
}

function fuzz(bases: string[], iterations: number, seed: number): void {
  const r = rng(seed);
  const ctx = { root: demoDir, resolver: new ClassResolver(new CachedFs(60_000)) };
  let runs = 0;
  for (let i = 0; i < iterations; i++) {
    const base = bases[i % bases.length] as string;
    const text = mutate(base, r);
    try {
      const res = lintText(text, { root: demoDir, resolver: ctx.resolver });
      for (const d of res.diagnostics) {
        assert.ok(d.range.start.line >= 0 && d.range.end.line >= d.range.start.line, 'sane range');
        assert.equal(typeof d.message, 'string');
      }
      const p = parseConfig(text);
      for (let k = 0; k < 3; k++) {
        const off = Math.floor(r() * (text.length + 1));
        complete(p, off, ctx);
        hover(p, off, ctx);
        definition(p, off, ctx);
      }
      documentLinks(p, ctx);
      codeActions(p, res.diagnostics);
      runs++;
    } catch (err) {
      assert.fail(`iteration ${i} threw on:\n${JSON.stringify(text.slice(0, 2000))}\n${err instanceof Error ? err.stack : String(err)}`);
    }
  }
  assert.equal(runs, iterations);
}

/** The ASTuner snippets of test/fixtures/astuner/examples.md. */
const ownExamples = [
  ...readFileSync(join(repoRoot, 'test', 'fixtures', 'astuner', 'examples.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g),
].map((m) => m[1] as string);

test('fuzz: 500 mutated configs of our own (demo, ASTuner snippets); every feature returns', () => {
  assert.ok(ownExamples.length >= 10);
  fuzz([demoConfig, ...ownExamples], 500, 20260104);
});

test(
  'fuzz: 2000 mutated configs; lint, completion, hover, definition, links and code actions all return',
  withUpstream('agentjet-d20cce0', (aj) => {
    const astuner = findUpstream('astuner-f9fab4f');
    const legacy = astuner ? [join(astuner, 'astuner', 'default_config', 'astune_default.yaml')].filter((f) => existsSync(f)) : [];
    const files = [...yamlFiles(join(aj, 'tutorial')), ...yamlFiles(join(aj, 'ajet', 'default_config')), ...legacy];
    fuzz([demoConfig, ...files.map((f) => readFileSync(f, 'utf8'))], 2000, 20260105);
  }),
);

test('robustness: BOM, CRLF, anchors/aliases/merge keys, huge and binary inputs', () => {
  const crlf = demoConfig.replace(/\n/g, '\r\n');
  const a = lintText(crlf, { root: demoDir }).diagnostics;
  const b = lintText(demoConfig, { root: demoDir }).diagnostics;
  assert.deepEqual(
    a.map((d) => [d.code, d.range]),
    b.map((d) => [d.code, d.range]),
    'CRLF gives the same diagnostics and ranges',
  );
  const bom = lintText('\uFEFF' + demoConfig, { root: demoDir });
  assert.equal(bom.ours, true);
  assert.deepEqual(
    bom.diagnostics.map((d) => [d.code, d.range]),
    b.map((d) => [d.code, d.range]),
    'BOM keeps positions',
  );

  const merged =
    'common: &c\n  temperature: 0.5\n  tempreture: 1\najet:\n  model: {path: Qwen/Qwen2.5-7B}\n  rollout:\n    <<: *c\n    user_workflow: math_demo.workflow->MathWorkflow\n    num_repeat: *n\n';
  const m = lintText(merged, { root: demoDir });
  assert.ok(m.ours);
  assert.ok(
    !m.diagnostics.some((d) => d.code === 'unknown-key' && /tempreture/.test(d.message) && d.range.start.line === 6),
    'merged keys are not reported at the merge site',
  );

  const alias =
    'x: &len 9000\najet:\n  model: {path: Qwen/Qwen2.5-7B}\n  rollout:\n    user_workflow: math_demo.workflow->MathWorkflow\n    max_model_len: *len\n  data: {max_prompt_length: 8000, max_response_length: 4000}\n';
  assert.ok(lintText(alias, { root: demoDir }).diagnostics.some((d) => d.code === 'type-mismatch') === false);

  const huge = 'ajet:\n' + '  # padding\n'.repeat(500_000);
  const h = lintText(huge);
  assert.equal(h.ours, true);
  assert.deepEqual(
    h.diagnostics.map((d) => [d.code, d.severity]),
    [['too-large', 'information']],
  );

  const junk = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)).toString('latin1');
  assert.deepEqual(lintText(junk).diagnostics, []);
  const junkOurs = lintText('ajet:\n' + junk);
  assert.ok(junkOurs.ours && junkOurs.diagnostics.length > 0);
});
