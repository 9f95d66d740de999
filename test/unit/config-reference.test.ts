import { BASE_RELEASE } from '../../core/config/releases';
import { parseOverlay } from '../../core/config/schemagen';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { repoRoot } from '../util/paths';
import { withUpstream } from '../util/upstream';
import { lintText, lintFile } from '../../core/config/lint';
import { parseConfig } from '../../core/config/parse';
import { generateSchema, schemaText } from '../../core/config/schemagen';
import type { CodeFactsByVersion } from '../../core/config/codefacts';
import { yamlFiles } from './config-helpers';

// The reference configs name tutorial modules that are not shipped with them: an empty root
// means those references are reported as unresolved warnings, never as errors.
const emptyRoot = mkdtempSync(join(tmpdir(), 'agentjet-ref-'));

// The code proves these wrong: RouterTaskReader raises ValueError for `dataset_file`
// (ajet/task_reader/__init__.py), so learn2ask and the rubric grader's reader stop the run.
const PROVEN_WRONG = /`dataset_file` is the older \(ASTuner\) spelling/;

// AgentJet's own configs: tutorial/ and ajet/default_config/ of the upstream tree.
test(
  'every reference config (tutorial + default) lints with zero errors but those the code proves wrong',
  withUpstream('agentjet-d20cce0', (aj) => {
    const files = [...yamlFiles(join(aj, 'tutorial')), ...yamlFiles(join(aj, 'ajet', 'default_config'))];
    assert.ok(files.length >= 14, `found ${files.length} configs`);
    let ours = 0;
    for (const f of files) {
      const r = lintText(readFileSync(f, 'utf8'), { root: emptyRoot });
      if (r.ours) ours++;
      const errors = r.diagnostics.filter((d) => d.severity === 'error' && !(d.code === 'renamed-value' && PROVEN_WRONG.test(d.message)));
      assert.deepEqual(errors, [], `${f}`);
    }
    assert.ok(ours >= 13, `${ours} configs recognised`);
  }),
);

test(
  'lintFile agrees on a tutorial config and returns plain diagnostics',
  withUpstream('agentjet-d20cce0', async (aj) => {
    const f = join(aj, 'tutorial', 'example_learn2ask', 'learn2ask.yaml');
    const diags = await lintFile(f, { root: emptyRoot });
    assert.ok(diags.length > 0);
    assert.deepEqual(
      diags.filter((d) => d.severity === 'error').map((d) => d.code),
      ['renamed-value'],
      'only `type: dataset_file`, which AgentJet rejects',
    );
    assert.ok(
      diags.some((d) => d.code === 'renamed-value' && PROVEN_WRONG.test(d.message)),
      'dataset_file is flagged as the ASTuner spelling',
    );
    for (const d of diags) assert.deepEqual(Object.keys(d).sort(), ['code', 'message', 'range', 'severity']);
  }),
);

// ASTuner's (Dec 2025) default, the ASTune-era file it still shipped under astuner/default_config/.
test(
  'legacy astune_default.yaml read as ASTuner has zero errors and no ASTuner-name warnings',
  withUpstream('astuner-f9fab4f', (tree) => {
    const text = readFileSync(join(tree, 'astuner', 'default_config', 'astune_default.yaml'), 'utf8');
    const r = lintText(text, { root: emptyRoot, dialect: 'astuner' });
    assert.equal(r.ours, true);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    // agentscope_workflow / agentscope_disable_toolcalls are right in this dialect.
    assert.ok(!r.diagnostics.some((d) => d.code === 'renamed-key' && /agentscope/.test(d.message)));
    // The same body pasted under AgentJet's root (an old config brought into a new project) gets
    // renamed-key warnings for them.
    const asAjet = lintText(text.replace(/^astuner:/m, 'ajet:'), { root: emptyRoot, dialect: 'agentjet' });
    assert.ok(asAjet.diagnostics.some((d) => d.code === 'renamed-key' && /agentscope_workflow/.test(d.message)));
  }),
);

// Our own ASTuner snippets (test/fixtures/astuner/examples.md), in the shapes ASTuner's docs used.
test('the ASTuner example snippets are recognised as ASTuner configs', () => {
  const dir = join(repoRoot, 'test', 'fixtures', 'astuner');
  let blocks = 0;
  for (const n of readdirSync(dir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(dir, n), 'utf8');
    for (const m of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
      const y = m[1] as string;
      if (!/^(astuner|astune):/m.test(y)) continue;
      blocks++;
      const p = parseConfig(y);
      assert.ok(p.doc, `seed block not recognised:\n${y}`);
      assert.equal(p.dialect, 'astuner');
      const r = lintText(y, { root: emptyRoot });
      // `astuner_default` (the December 2025 docs' spelling) names no file: the tree has only astune_default.yaml.
      assert.deepEqual(
        r.diagnostics.filter(
          (d) =>
            d.code === 'yaml-syntax' ||
            (d.code === 'unknown-key' && d.severity !== 'information') ||
            d.code === 'type-mismatch' ||
            (d.code === 'enum' && !/astuner_default/.test(d.message)),
        ),
        [],
        y,
      );
      // ASTuner spellings are right in an ASTuner file of the version that reads them.
      const nov = lintText(y, { root: emptyRoot, version: 'astuner-2025-11' });
      assert.ok(!nov.diagnostics.some((d) => d.code === 'renamed-value' || d.code === 'renamed-key'), y);
    }
  }
  assert.ok(blocks >= 10, `${blocks} ASTuner blocks`);
});

test(
  'the committed schema is what the generator produces from the default configs',
  withUpstream('agentjet-d20cce0', (aj) => {
    const dir = join(aj, 'ajet', 'default_config');
    const text = schemaText(
      generateSchema({
        ajetDefault: readFileSync(join(dir, 'ajet_default.yaml'), 'utf8'),
        verlDefault: readFileSync(join(dir, 'verl', 'verl_default.yaml'), 'utf8'),
        trinityDefault: readFileSync(join(dir, 'trinity', 'trinity_default.yaml'), 'utf8'),
        overlay: readFileSync(join(repoRoot, 'schemas', 'overlay.yaml'), 'utf8'),
        codeFacts: JSON.parse(readFileSync(join(repoRoot, 'schemas', 'codefacts.json'), 'utf8')) as CodeFactsByVersion,
        release: { release: BASE_RELEASE.release, date: BASE_RELEASE.date },
      }),
    );
    // The run-time generator (the user's own AgentJet) applies the same overlay, shipped parsed.
    assert.deepEqual(
      JSON.parse(readFileSync(join(repoRoot, 'schemas', 'overlay.json'), 'utf8')),
      parseOverlay(readFileSync(join(repoRoot, 'schemas', 'overlay.yaml'), 'utf8')),
      'run npm run gen:schema',
    );
    assert.equal(readFileSync(join(repoRoot, 'schemas', 'agentjet.schema.json'), 'utf8'), text, 'run npm run gen:schema');
    const s = JSON.parse(text) as { properties: Record<string, { properties?: Record<string, unknown> }> };
    // Every key of ajet_default.yaml is in the schema.
    const ajet = s.properties.ajet?.properties ?? {};
    for (const k of [
      'project_name',
      'backbone',
      'model',
      'data',
      'rollout',
      'task_reader',
      'task_judge',
      'context_tracker',
      'debug',
      'trainer_common',
      'interchange_server',
      'task_runner',
    ])
      assert.ok(k in ajet, k);
    for (const k of ['trinity', 'actor_rollout_ref', 'trainer', 'hydra', 'defaults', 'astuner', 'astune']) assert.ok(k in s.properties, k);
  }),
);

test('other YAML is left alone', () => {
  assert.deepEqual(lintText('name: ci\non: [push]\njobs: {}\n'), { ours: false, diagnostics: [] });
  assert.deepEqual(lintText('trinity:\n  cluster: {node_num: 1}\n'), { ours: false, diagnostics: [] });
});

test('the demo project lints clean of errors with class references resolved', () => {
  const r = lintText(readFileSync(join(repoRoot, 'demo', 'math_agent.yaml'), 'utf8'), { root: join(repoRoot, 'demo') });
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error' || d.code.startsWith('class-ref')),
    [],
  );
});

test('lintFile reports an unreadable config instead of throwing', async () => {
  const d = await lintFile(join(emptyRoot, 'nope.yaml'));
  assert.equal(d.length, 1);
  assert.equal(d[0]?.code, 'unreadable');
  assert.equal(d[0]?.severity, 'error');
});

test('run snapshots (yaml_backup.yaml) are complete on their own: no Hydra boilerplate note', async () => {
  const { writeFileSync, mkdirSync } = await import('node:fs');
  const run = join(emptyRoot, 'saved_experiments', 'exp1');
  mkdirSync(run, { recursive: true });
  const body = 'ajet:\n  model: {path: Qwen/Qwen2.5-7B}\n  rollout: {user_workflow: "a.b->C"}\n  task_reader: {type: random_dummy}\n';
  writeFileSync(join(run, 'yaml_backup.yaml'), body);
  writeFileSync(join(run, 'mine.yaml'), body);
  assert.ok(!(await lintFile(join(run, 'yaml_backup.yaml'), { root: emptyRoot })).some((d) => d.code === 'missing-defaults'));
  assert.ok((await lintFile(join(run, 'mine.yaml'), { root: emptyRoot })).some((d) => d.code === 'missing-defaults'));
});
