// The user's own AgentJet: the locator (checkout, installed package found without importing it),
// the one generator of facts and its cache, the bundled releases (stored as differences) and the
// per-release rules and messages.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { jsonDiff, jsonPatch, type Json } from '../../core/config/jsonDiff';
import { conversionTable } from '../../core/config/codefacts';
import { comparedValues, dataclassKeys } from '../../core/config/pyfacts';
import { loadPython } from '../../core/config/pyparse';
import {
  AgentJetFactsService,
  FactsDiskCache,
  findCheckout,
  findInstalled,
  readFacts,
  releaseOfPyproject,
} from '../../core/config/agentjetFacts';
import { generateFromSnapshot, readPackage, readPackageSync } from '../../core/config/factsgen';
import { parseOverlay } from '../../core/config/schemagen';
import { baseFacts, bundledFor, bundledReleases, compareReleases, labelOf } from '../../core/config/releases';
import { updateEdits } from '../../core/config/rulesByRelease';
import { parseConfig } from '../../core/config/parse';
import { validateParsed } from '../../core/config/validate';
import { hover } from '../../core/config/hover';
import { complete } from '../../core/config/completion';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { setLocale } from '../../core/l10n';
import { readFileSync } from 'node:fs';
import codeFactsJson from '../../schemas/codefacts.json';
import type { CodeFactsByVersion } from '../../core/config/codefacts';
import { repoRoot } from '../util/paths';
import { withUpstream } from '../util/upstream';

// The code facts are read from Python syntax trees: the parser loads once for the file.
before(() => loadPython());

const json: fc.Arbitrary<Json> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<Json>(null, true, false, 0, 1, 'a', ''),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'type', 'default'), tie('value'), { maxKeys: 4 }),
  ),
})).value as fc.Arbitrary<Json>;

test('jsonPatch(a, jsonDiff(a, b)) is b, for any JSON values (property)', () => {
  fc.assert(
    fc.property(json, json, (x, y) => {
      // Plain objects, as JSON.parse makes them (the arbitrary's have no prototype).
      const [a, b] = [JSON.parse(JSON.stringify(x)) as Json, JSON.parse(JSON.stringify(y)) as Json];
      assert.deepEqual(jsonPatch(a, jsonDiff(a, b)), b);
      assert.equal(jsonDiff(a, a), undefined);
    }),
    { numRuns: 500 },
  );
});

test('value lists, conversion tables and dataclass keys are read from code text', () => {
  const py = [
    'if clip == "first_n":',
    '    pass',
    'elif x.clip != "random_n": pass',
    '# clip == "commented"',
    'if clip in ("a", "b+"):',
    'other_clip == "no"',
  ].join('\n');
  assert.deepEqual(comparedValues(py, 'clip').sort(), ['a', 'b+', 'first_n', 'random_n']);
  const table = '{\n  // note\n  "ajet.a.b": "x.y",\n  "ajet.c": ["p", "q"],\n  "(ajet.d // 2)": "z",\n}';
  assert.deepEqual(conversionTable(table, 'ajet'), { 'a.b': ['x.y'], c: ['p', 'q'] });
  const dc = [
    '@dataclass',
    'class Inner:',
    '    lr: float = 1e-6',
    '@dataclass',
    'class Top:',
    '    optim: Inner = field(default_factory=Inner)',
    '    name: str = "x"  # comment',
    '@dataclass',
    'class Config:',
    '    ajet: Top = field(default_factory=Top)',
  ].join('\n');
  assert.deepEqual(dataclassKeys(dc, 'ajet'), ['optim', 'optim.lr', 'name']);
  assert.equal(releaseOfPyproject('[build-system]\nrequires = []\n[project]\nname = "AgentJet"\nversion = "0.0.4"\n'), '0.0.4');
  assert.equal(releaseOfPyproject('[tool.x]\nversion = "9"\n'), undefined);
  assert.ok(compareReleases('0.0.10', '0.0.4') > 0 && compareReleases('0.0.4', '0.0.4') === 0 && compareReleases(undefined, '0.0.1') < 0);
});

/** A minimal AgentJet package tree: defaults, conversion table and one reader of a key. */
function fakeTree(root: string, release: string, extraKey = ''): string {
  const dc = join(root, 'ajet', 'default_config');
  mkdirSync(join(dc, 'verl'), { recursive: true });
  mkdirSync(join(dc, 'trinity'), { recursive: true });
  writeFileSync(join(root, 'pyproject.toml'), `[project]\nname = "AgentJet"\nversion = "${release}"\n`);
  writeFileSync(
    join(dc, 'ajet_default.yaml'),
    `ajet:\n  model:\n    path: /path/to/model\n  rollout:\n    user_workflow: null\n    num_repeat: 4\n${extraKey ? `    ${extraKey}: 1\n` : ''}  task_reader:\n    type: random_dummy\n`,
  );
  writeFileSync(join(dc, 'verl', 'verl_default.yaml'), 'actor_rollout_ref:\n  rollout:\n    n: 4\n');
  writeFileSync(
    join(dc, 'verl', 'config_auto_convertion_verl.jsonc'),
    '{\n  "ajet.rollout.num_repeat": "actor_rollout_ref.rollout.n"\n}\n',
  );
  writeFileSync(join(dc, 'trinity', 'trinity_default.yaml'), 'buffer:\n  batch_size: 1\n');
  // Importing the package would leave a marker: the locator must not.
  writeFileSync(join(root, 'ajet', '__init__.py'), `open(${JSON.stringify(join(root, 'IMPORTED'))}, "w").write("x")\n`);
  return join(root, 'ajet');
}

test('the locator finds a checkout, and an installed (editable, .pth) package without importing it', async () => {
  const work = mkdtempSync(join(tmpdir(), 'ajloc-'));
  try {
    const tree = join(work, 'tree');
    const pkg = fakeTree(tree, '0.0.7');
    assert.deepEqual(findCheckout(tree), { pkgDir: pkg, pkg: 'ajet', origin: 'checkout', release: '0.0.7' });
    assert.equal(findCheckout(work), undefined);
    const astuner = join(work, 'old');
    mkdirSync(join(astuner, 'astuner', 'default_config'), { recursive: true });
    writeFileSync(join(astuner, 'astuner', 'default_config', 'astune_default.yaml'), 'astuner: {}\n');
    assert.equal(findCheckout(astuner)?.pkg, 'astuner');

    const venv = join(work, 'venv');
    assert.equal(spawnSync('python3', ['-m', 'venv', '--without-pip', venv]).status, 0);
    const py = join(venv, 'bin', 'python');
    const site = spawnSync(py, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).stdout.trim();
    assert.equal(await findInstalled(py), undefined, 'nothing installed yet');
    writeFileSync(join(site, '__editable__.agentjet.pth'), tree + '\n');
    const found = await findInstalled(py);
    assert.deepEqual(found, { pkgDir: pkg, pkg: 'ajet', origin: 'installed', release: '0.0.7' });
    assert.ok(!existsSync(join(tree, 'IMPORTED')), 'find_spec did not import ajet');
    assert.equal(await findInstalled(join(work, 'no-such-python')), undefined);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('facts read at run time are cached on disk by content; reading is bounded', async () => {
  const work = mkdtempSync(join(tmpdir(), 'ajcache-'));
  try {
    const tree = join(work, 'tree');
    fakeTree(tree, '0.0.7', 'brand_new_key');
    const found = findCheckout(tree);
    assert.ok(found);
    const cache = new FactsDiskCache(join(work, 'cache'));
    const first = await readFacts(found, { cache });
    assert.ok(first);
    assert.equal(first.label, `AgentJet 0.0.7 at ${join(tree, 'ajet')}`);
    assert.ok(first.schema.properties?.ajet?.properties?.rollout?.properties?.brand_new_key, 'the new key is known');
    assert.deepEqual(first.schema['x-release']?.verlConversions, { 'rollout.num_repeat': ['actor_rollout_ref.rollout.n'] });
    const files = readdirSync(join(work, 'cache'));
    assert.equal(files.length, 1);
    const again = await readFacts(found, { cache });
    assert.deepEqual(again?.schema, first.schema);
    assert.equal(readdirSync(join(work, 'cache')).length, 1, 'the same content hits the same entry');
    // A changed file is another key.
    writeFileSync(join(tree, 'ajet', 'extra.py'), 'x = config.ajet.rollout.read_by_code\n');
    const changed = await readFacts(found, { cache });
    assert.equal(readdirSync(join(work, 'cache')).length, 2);
    assert.ok(changed?.schema['x-versionKeys']?.agentjet?.includes('rollout.read_by_code'));
    const snap = await readPackage(join(tree, 'ajet'), { maxFiles: 2 });
    assert.equal(snap.truncated, true);
    assert.ok(snap.files.length <= 2);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("the service answers at once with bundled facts (provisional), then with the folder's own", async () => {
  const work = mkdtempSync(join(tmpdir(), 'ajsvc-'));
  try {
    const tree = join(work, 'tree');
    fakeTree(tree, '0.0.7', 'brand_new_key');
    const changed: string[] = [];
    const svc = new AgentJetFactsService({ cacheDir: '', onChange: (f) => changed.push(f), fallbackPython: '' });
    const p = parseConfig('ajet:\n  rollout:\n    brand_new_key: 2\n');
    svc.setFolder(tree, undefined);
    const early = svc.factsFor(tree, p);
    assert.equal(early.origin, 'bundled');
    assert.equal(early.provisional, true);
    await svc.ready(tree);
    assert.deepEqual(changed, [tree]);
    const own = svc.factsFor(tree, p);
    assert.equal(own.origin, 'checkout');
    assert.equal(own.provisional, undefined);
    assert.deepEqual(
      validateParsed(p, { facts: own }).filter((d) => d.code === 'unknown-key'),
      [],
      'the key of this AgentJet is known',
    );
    assert.ok(validateParsed(p, { facts: early }).some((d) => d.code === 'unknown-key'));
    // Its defaults change on disk: it is read again and the new key is known.
    writeFileSync(
      join(tree, 'ajet', 'default_config', 'ajet_default.yaml'),
      readFileSync(join(tree, 'ajet', 'default_config', 'ajet_default.yaml'), 'utf8').replace(
        'num_repeat: 4',
        'num_repeat: 4\n    added_later: 1',
      ),
    );
    assert.deepEqual(svc.fileChanged(join(tree, 'ajet', 'default_config', 'ajet_default.yaml')), [tree]);
    assert.deepEqual(svc.fileChanged(join(tree, 'other.yaml')), []);
    await svc.ready(tree);
    const later = parseConfig('ajet:\n  rollout:\n    added_later: 2\n');
    assert.deepEqual(
      validateParsed(later, { facts: svc.factsFor(tree, later) }).filter((d) => d.code === 'unknown-key'),
      [],
    );
    // An ASTuner file in an AgentJet checkout is judged by the bundled facts of its own generation.
    assert.equal(svc.factsFor(tree, parseConfig('astuner:\n  rollout: {}\n')).origin, 'bundled');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('bundled releases: 0.0.4 ships as a difference, configs pick the newest release that knows their keys', () => {
  const all = bundledReleases();
  assert.deepEqual(
    all.map((f) => f.label),
    ['bundled facts of AgentJet 0.0.4 (May 2026)', 'bundled facts of AgentJet 0.0.1 (January 2026)'],
  );
  const size = readFileSync(join(repoRoot, 'schemas', 'releases.json')).length;
  const base = readFileSync(join(repoRoot, 'schemas', 'agentjet.schema.json')).length;
  assert.ok(size < base / 2, `0.0.4 is stored as a difference (${size} bytes beside ${base})`);
  assert.equal(bundledFor(parseConfig('ajet:\n  lora:\n    lora_rank: 8\n')).release, '0.0.4');
  assert.equal(bundledFor(parseConfig('ajet:\n  enable_experimental_interchange_server: true\n')).release, '0.0.1');
  assert.equal(bundledFor(parseConfig('ajet:\n  model:\n    path: x\n')).release, '0.0.4', 'both know it: the newest');
  const astuner = bundledFor(parseConfig('astuner:\n  model:\n    path: x\n'));
  assert.equal(astuner.schema, baseFacts().schema);
  assert.equal(astuner.label, 'bundled facts of ASTuner (December 2025)');
});

test('version-aware messages, 0.0.4 rules with quick fixes, and the update to 0.0.4', () => {
  const [v4, jan] = bundledReleases();
  assert.ok(v4 && jan);
  const text = [
    'ajet:',
    '  enable_experimental_interchange_server: true',
    '  enable_swarm_mode: true',
    '  lora:',
    '    lora_rank: 8',
    '  trainer_common:',
    '    algorithm:',
    '      use_kl_in_reward: true',
    '    kl_penalty_type: kl',
    '  task_runner:',
    '    llm_infer_submit_method: async',
    'actor_rollout_ref:',
    '  rollout:',
    '    n: 2',
    '',
  ].join('\n');
  const p = parseConfig(text);
  const by4 = validateParsed(p, { facts: v4 });
  const msg = (code: string, part: string) => by4.find((d) => d.code === code && d.message.includes(part));
  const renamed = msg('renamed-key', 'enable_experimental_interchange_server');
  assert.equal(renamed?.fixes?.[0]?.newText, 'enable_interchange_server');
  assert.ok(msg('renamed-key', 'trainer_common.algorithm.use_kl_in_reward'));
  assert.ok(msg('unknown-key', 'task_runner.llm_infer_submit_method` was removed in AgentJet 0.0.4'));
  const lora = by4.filter((d) => d.code === 'cross-field/lora');
  assert.equal(lora.length, 2);
  assert.deepEqual(
    lora.map((d) => d.fixes?.[0]?.newText.trim()),
    ['load_format: safetensors', 'layered_summon: true'],
  );
  assert.equal(msg('cross-field/swarm', 'enable_interchange_server')?.severity, 'error');
  assert.match(msg('cross-field/verl-overlap', 'actor_rollout_ref.rollout.n')?.message ?? '', /ajet\.rollout\.num_repeat/);
  const byJan = validateParsed(p, { facts: jan });
  assert.ok(byJan.some((d) => d.message.includes('`lora` was added in AgentJet 0.0.4')));
  assert.ok(!byJan.some((d) => d.code.startsWith('cross-field/lora') || d.code === 'cross-field/verl-overlap'));
  // One edit list moves and renames what 0.0.4 renamed and drops what it removed.
  const edits = updateEdits(p);
  const idx = p.index;
  const sorted = [...edits].sort((a, b) => idx.offset(b.range.start) - idx.offset(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, idx.offset(e.range.start)) + e.newText + out.slice(idx.offset(e.range.end));
  assert.match(out, /^ {2}enable_interchange_server: true$/m);
  assert.match(out, /^ {4}use_kl_in_reward: true$/m);
  assert.doesNotMatch(out, /llm_infer_submit_method|algorithm:\n\s+use_kl/);
  const after = validateParsed(parseConfig(out), { facts: v4 });
  assert.ok(!after.some((d) => d.code === 'renamed-key' || d.message.includes('was removed')), JSON.stringify(after));
});

test('hover names the AgentJet that judged the file; completion offers its keys, in Chinese too', () => {
  const [v4] = bundledReleases();
  assert.ok(v4);
  const text = 'ajet:\n  lora:\n    lora_rank: 8\n    \n';
  const p = parseConfig(text);
  const ctx = { root: tmpdir(), resolver: new ClassResolver(new CachedFs()), facts: v4 };
  const h = hover(p, text.indexOf('lora_rank'), ctx);
  assert.match(h?.markdown ?? '', /LoRA rank/);
  assert.match(h?.markdown ?? '', /Judged by bundled facts of AgentJet 0\.0\.4/);
  const items = complete(p, text.length - 1, ctx).map((e) => e.label);
  assert.ok(items.includes('layered_summon') && items.includes('load_format'), items.join(','));
  setLocale('zh-cn');
  try {
    assert.match(hover(p, text.indexOf('lora_rank'), ctx)?.markdown ?? '', /LoRA 秩/);
  } finally {
    setLocale('en');
  }
});

test(
  'the bundled 0.0.4 facts are what the run-time generator makes of agentjet-c68c154',
  withUpstream('agentjet-c68c154', (dir) => {
    const overlay = parseOverlay(readFileSync(join(repoRoot, 'schemas', 'overlay.yaml'), 'utf8'));
    const g = generateFromSnapshot(readPackageSync(join(dir, 'ajet')), overlay, codeFactsJson as CodeFactsByVersion, {
      release: '0.0.4',
      date: 'May 2026',
    });
    assert.deepEqual(g?.schema, bundledReleases()[0]?.schema, 'run npm run gen:schema');
  }),
);

test('an installed ASTuner or ASTune is named as itself in "judged by" (its own version numbers), AgentJet as AgentJet', () => {
  assert.equal(labelOf({ origin: 'installed', release: '0.1.0', location: '/x/astuner', pkg: 'astuner' }), 'ASTuner 0.1.0 at /x/astuner');
  assert.equal(labelOf({ origin: 'installed', release: '0.1.0', location: '/x/astune', pkg: 'astune' }), 'ASTune 0.1.0 at /x/astune');
  assert.equal(labelOf({ origin: 'installed', release: '0.0.4', location: '/x/ajet', pkg: 'ajet' }), 'AgentJet 0.0.4 at /x/ajet');
  assert.equal(labelOf({ origin: 'installed', release: '0.0.4', location: '/x/ajet' }), 'AgentJet 0.0.4 at /x/ajet');
});
