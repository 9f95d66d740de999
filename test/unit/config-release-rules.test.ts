// Release rules as data (core/config/releaseRules.ts): a rule fires for an AgentJet that has the
// facts it is keyed on (a key, a function, a file) and not for one that lacks them, whatever the
// version string of either says; the generator records the facts from the tree itself.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLint } from '../../cli/lint';
import { treeFactsOf, codeFactsOfDir } from '../../core/config/factsgen';
import { baseFacts, bundledReleases, type JudgingFacts } from '../../core/config/releases';
import { changesFor, hasFact, rulesFor, updateEdits } from '../../core/config/rulesByRelease';
import { KEY_CHANGES, RELEASE_RULES, recordedFactNames, releaseRuleTexts } from '../../core/config/releaseRules';
import { loadPython } from '../../core/config/pyparse';

// Code facts are read from syntax trees: the parser loads once, before the first read.
before(() => loadPython());
import type { ConfigSchema } from '../../core/config/schema';
import { parseConfig } from '../../core/config/parse';
import { refactorActions } from '../../core/config/codeActions';
import { writeAgentJetTree } from '../gen/agentjet';

const OVERLAP_DEF = 'def:_validate_input_yaml_no_overlap_with_auto_convertion_config';

interface LintOut {
  files: { file: string; diagnostics: { code: string; severity: string; message: string }[] }[];
  judgedBy: string[];
}

async function lint(cwd: string, args: string[]): Promise<LintOut> {
  let text = '';
  const prev = process.cwd();
  process.chdir(cwd);
  try {
    await runLint(
      ['--format', 'json', ...args],
      (s) => (text += s),
      () => undefined,
    );
  } finally {
    process.chdir(prev);
  }
  return JSON.parse(text) as LintOut;
}

/** A config that sets the verl key the synthetic tree's conversion table writes from `ajet.rollout.num_repeat` (4). */
const OVERLAPPING = `defaults:
  - ajet_default
  - _self_
ajet:
  project_name: demo
  model:
    path: Qwen/Qwen2.5-7B-Instruct
  task_reader:
    type: random_dummy
  task_judge:
    judge_protocol: wf->MyJudge
  rollout:
    user_workflow: wf->MyWorkflow
actor_rollout_ref:
  rollout:
    n: 8
`;

test('the generator records the def and file facts the table names, from the code, not from a version', () => {
  const snap = {
    files: ['a.py', 'b.py', 'default_config/x.jsonc'],
    texts: new Map([
      ['a.py', 'class C:\n    async def wanted_method (self):\n        pass\n'],
      ['b.py', '# def commented_out(x):\nwanted_call()\ndef other(x):\n    pass\n'],
      ['default_config/x.jsonc', '{}'],
    ]),
  };
  const wanted = ['def:wanted_method', 'def:wanted_call', 'def:commented_out', 'file:default_config/x.jsonc', 'file:missing.py'];
  assert.deepEqual(treeFactsOf(snap, wanted), ['def:wanted_method', 'file:default_config/x.jsonc']);
  assert.ok(recordedFactNames().includes(OVERLAP_DEF), 'the table asks for the overlap check');
});

test('the bundled facts carry the overlap check for the tree that has it (0.0.4) and not for January', () => {
  const [newest] = bundledReleases();
  assert.deepEqual(newest?.schema['x-release']?.has, [OVERLAP_DEF]);
  assert.equal(baseFacts().schema['x-release']?.has, undefined);
  const ids = (f: JudgingFacts) => rulesFor(f.schema).map((r) => r.id);
  assert.deepEqual(ids(newest as JudgingFacts), ['verl-overlap', 'lora', 'swarm']);
  assert.deepEqual(ids(baseFacts()), []);
});

test('a rule follows the facts of a schema, whatever its release says', () => {
  const schema = (release: string, keys: string[], has: string[] = []): ConfigSchema => {
    const ajet: ConfigSchema = { properties: {} };
    for (const k of keys) {
      let n = ajet;
      for (const seg of k.split('.')) n = (n.properties ??= {})[seg] ??= {};
    }
    return { properties: { ajet }, 'x-release': { release, has } };
  };
  const ids = (s: ConfigSchema) => rulesFor(s).map((r) => r.id);
  // An "old" version string with the facts: every rule applies.
  assert.deepEqual(
    ids(
      schema(
        '0.0.1',
        ['lora', 'enable_swarm_mode', 'enable_interchange_server', 'opd.use_policy_gradient', 'teacher_model.teacher_opd_enabled'],
        [OVERLAP_DEF],
      ),
    ),
    ['verl-overlap', 'lora', 'swarm', 'opd'],
  );
  // A "new" version string without them: none does.
  assert.deepEqual(ids(schema('9.9.9', ['rollout.num_repeat'])), []);
  // One fact of two is not enough.
  assert.deepEqual(ids(schema('9.9.9', ['enable_swarm_mode'])), []);
  assert.equal(hasFact(schema('0.0.1', [], [OVERLAP_DEF]), { def: OVERLAP_DEF.slice(4) }), true);
  assert.equal(hasFact(schema('0.0.4', []), { def: OVERLAP_DEF.slice(4) }), false);
  assert.equal(hasFact(schema('0.0.4', [], ['file:a/b.py']), { file: 'a/b.py' }), true);
});

test('the overlap rule fires for a tree that has the check (version 0.0.1) and not for one that lacks it (version 9.9.9)', async () => {
  const work = mkdtempSync(join(tmpdir(), 'ajrules-'));
  const prevCache = process.env.AGENTJET_FACTS_CACHE;
  process.env.AGENTJET_FACTS_CACHE = join(work, 'cache');
  try {
    const verdict = async (name: string, opts: Parameters<typeof writeAgentJetTree>[1]) => {
      const dir = join(work, name);
      const pkg = writeAgentJetTree(dir, opts);
      writeFileSync(join(dir, 'wf.py'), 'class MyWorkflow:\n    pass\n\n\nclass MyJudge:\n    pass\n');
      writeFileSync(join(dir, 'cfg.yaml'), OVERLAPPING);
      assert.deepEqual(codeFactsOfDir(pkg, 'ajet').has, opts?.withoutOverlapCheck ? undefined : [OVERLAP_DEF]);
      const out = await lint(dir, ['cfg.yaml']);
      assert.match(out.judgedBy[0] ?? '', new RegExp(`AgentJet ${(opts?.release ?? '').replace(/\./g, '\\.')}`));
      return (out.files[0]?.diagnostics ?? []).map((d) => `${d.severity} ${d.code}`);
    };
    assert.deepEqual(await verdict('has', { release: '0.0.1' }), ['error cross-field/verl-overlap']);
    assert.deepEqual(await verdict('lacks', { release: '9.9.9', withoutOverlapCheck: true }), []);
  } finally {
    if (prevCache === undefined) delete process.env.AGENTJET_FACTS_CACHE;
    else process.env.AGENTJET_FACTS_CACHE = prevCache;
    rmSync(work, { recursive: true, force: true });
  }
});

test('key changes apply to an AgentJet that dropped the old key (and knows the new one), not by its version', () => {
  const [newest] = bundledReleases() as [JudgingFacts];
  assert.deepEqual(changesFor(newest), KEY_CHANGES, 'AgentJet 0.0.4 made every change of the table');
  assert.deepEqual(changesFor(baseFacts()), [], 'January reads every old key');
  // A later release string on January's facts changes nothing: the facts decide.
  const relabelled: JudgingFacts = { ...baseFacts(), release: '9.9.9' };
  assert.deepEqual(changesFor(relabelled), []);
  const text = 'ajet:\n  enable_experimental_interchange_server: true\n  task_runner:\n    llm_infer_submit_method: async\n';
  const p = parseConfig(text);
  assert.equal(updateEdits(p, relabelled).length, 0);
  assert.equal(updateEdits(p, newest).length, 2);
  assert.deepEqual(
    refactorActions(p, relabelled)
      .map((a) => a.title)
      .filter((x) => x.startsWith('Update')),
    [],
  );
  assert.deepEqual(
    refactorActions(p, newest)
      .map((a) => a.title)
      .filter((x) => x.startsWith('Update')),
    ['Update this config to AgentJet 0.0.4'],
  );
});

test('every rule of the table is well formed: its facts are recordable, its texts translatable', () => {
  for (const r of RELEASE_RULES) {
    assert.ok(r.when.length > 0, `${r.id} is keyed on at least one fact`);
    if (r.kind === 'requires') for (const q of r.requires) assert.ok(q.key && q.fix, r.id);
  }
  assert.ok(releaseRuleTexts().length >= 5);
});
