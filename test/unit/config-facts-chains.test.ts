// Issue 39 R1: one long attribute chain in the user's AgentJet (`config.ajet` + `.a` x 64,000 in a
// .py, or such a key in config_auto_convertion_verl.jsonc) made the facts reading build every prefix
// of it (n² characters: 3.7 GB in `agentjet lint`). Keys are now read link by link within
// KEY_BUDGET; the bounded facts judge and are cached; lint and hover answer.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attributeKeys, dataclassKeys } from '../../core/config/pyfacts';
import { conversionKeys, conversionTable, yamlKeys } from '../../core/config/codefacts';
import { KEY_BUDGET, KeyChains } from '../../core/config/factsBudget';
import { loadPython } from '../../core/config/pyparse';
import { lintPaths } from '../../core/config/lintPaths';
import { AgentJetFactsService } from '../../core/config/agentjetFacts';
import { parseConfig } from '../../core/config/parse';
import { hover } from '../../core/config/hover';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { WorkspaceTrust } from '../../core/trust/policy';
import { withUpstream } from '../util/upstream';

before(() => loadPython());

const LINKS = 64_000;
/** Characters of all keys: what the reading built. Quadratic before the fix (4 billion here). */
const weight = (keys: readonly string[]) => keys.reduce((n, k) => n + k.length, 0);
const bounded = (keys: readonly string[]) => {
  assert.ok(keys.length <= KEY_BUDGET.maxKeys, `${keys.length} keys`);
  for (const k of keys) {
    assert.ok(k.length <= KEY_BUDGET.maxChars, `a key of ${k.length} characters`);
    assert.ok(k.split('.').length <= KEY_BUDGET.maxSegments, `a key of ${k.split('.').length} links`);
  }
};

test('R1: a chain of 64,000 links in Python gives its first links as keys, each within the budget', () => {
  const keys = attributeKeys(`x = config.ajet${'.a'.repeat(LINKS)}\n`, 'ajet');
  bounded(keys);
  assert.equal(keys.length, KEY_BUDGET.maxSegments);
  assert.deepEqual(keys.slice(0, 3), ['a', 'a.a', 'a.a.a']);
  // `.ajet.ajet...`: a chain starts at every link; each is walked at most the budget up.
  const again = attributeKeys(`x = config${'.ajet'.repeat(20_000)}\n`, 'ajet');
  bounded(again);
  assert.ok(weight(again) < KEY_BUDGET.maxSegments * KEY_BUDGET.maxChars);
  // One 128 KB link is no key; an ordinary read still is, `.get("k")` included.
  assert.deepEqual(attributeKeys(`x = config.ajet.${'b'.repeat(128_000)}\ny = config.ajet.rollout.get("n")\n`, 'ajet'), [
    'rollout',
    'rollout.n',
  ]);
});

test('R1: a conversion key of 64,000 links, and its table entry, are cut or left out', () => {
  const text = `{\n  "ajet${'.a'.repeat(LINKS)}": "trainer.x",\n  "ajet.rollout.n": "actor.n"\n}\n`;
  const keys = conversionKeys(text, 'ajet');
  bounded(keys);
  assert.ok(keys.includes('rollout.n') && keys.includes('a.a'));
  assert.deepEqual(conversionTable(text, 'ajet'), { 'rollout.n': ['actor.n'] });
});

test('R1: fan-out of self-typed dataclasses (10 fields, 8 levels) and long YAML keys stay within the budget', () => {
  const fields = Array.from({ length: 10 }, (_, i) => `    f${i}: A = field(default_factory=A)`).join('\n');
  const py = `@dataclass\nclass A:\n${fields}\n\n@dataclass\nclass Top:\n    ajet: A = field(default_factory=A)\n`;
  const keys = dataclassKeys(py, 'ajet');
  bounded(keys);
  assert.equal(keys.length, KEY_BUDGET.maxKeys);
  const long = `ajet:\n  ${'k'.repeat(300)}:\n    x: 1\n  short: 2\n`;
  assert.deepEqual(yamlKeys(long, 'ajet'), ['short']);
});

test('R1: KeyChains costs linear work: a million pushes build at most the budget', () => {
  const c = new KeyChains();
  let refused = 0;
  for (let i = 0; i < 1_000_000; i++) {
    if (i % 1000 === 0) c.reset();
    if (!c.push('a')) refused++;
  }
  assert.ok(c.cut);
  // Each chain of 1,000 takes its first links; the same keys again add nothing.
  assert.equal(refused, 1000 * (1000 - KEY_BUDGET.maxSegments));
  assert.equal(c.keys.size, KEY_BUDGET.maxSegments);
});

test(
  'R1: a checkout holding the 64,000-link chain (.py and .jsonc) judges lint, the bounded facts are cached, and hover answers (Restricted Mode too)',
  { timeout: 120_000 },
  withUpstream('agentjet-c68c154', async (tree) => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-chains-'));
    try {
      const ws = join(dir, 'checkout');
      cpSync(join(tree, 'ajet'), join(ws, 'ajet'), { recursive: true });
      cpSync(join(tree, 'pyproject.toml'), join(ws, 'pyproject.toml'));
      writeFileSync(join(ws, 'ajet', 'hostile.py'), `x = config.ajet${'.a'.repeat(LINKS)}\n`);
      const conv = join(ws, 'ajet', 'default_config', 'verl', 'config_auto_convertion_verl.jsonc');
      writeFileSync(conv, readFileSync(conv, 'utf8').replace('{', `{\n    "ajet${'.b'.repeat(LINKS)}": "trainer.x",`));
      const cfg = join(ws, 'c.yaml');
      writeFileSync(cfg, 'ajet:\n  rollout:\n    num_repeat: abc\n');
      const cache = join(dir, 'cache');
      const res = await lintPaths([cfg], { root: ws, runPython: false, factsCacheDir: cache });
      assert.equal(res.checked, 1);
      assert.deepEqual(res.judgedBy, ['AgentJet 0.0.4 at ' + join(ws, 'ajet')]);
      assert.ok(
        res.files[0]!.diagnostics.some((d) => d.code === 'type-mismatch'),
        JSON.stringify(res.files[0]),
      );
      // Cached although bounded: the next reading is a cache hit.
      assert.equal(readdirSync(cache).filter((f) => /^facts-\w+\.json$/.test(f)).length, 1);
      // The language server's path in Restricted Mode: the checkout is read as text, hover answers.
      const service = new AgentJetFactsService({ cacheDir: '', fallbackPython: '', trust: new WorkspaceTrust(false) });
      service.setFolder(ws, undefined);
      const facts = await service.ready(ws);
      assert.ok(facts, 'the checkout judges');
      const text = readFileSync(cfg, 'utf8');
      const p = parseConfig(text);
      const h = hover(p, text.indexOf('num_repeat'), {
        root: ws,
        resolver: new ClassResolver(new CachedFs()),
        facts: service.factsFor(ws, p),
      });
      assert.match(h?.markdown ?? '', /num_repeat/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }),
);
