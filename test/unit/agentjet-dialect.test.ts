import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRootLine, looksLikeConfig, readConfigFacts, versionOf, familyOf, defaultExperimentDir } from '../../core/agentjet/dialect';
import { looksLikeAgentJetConfig } from '../../core/launch/plan';
import { parseConfig } from '../../core/config/parse';

test('one root test: bare and quoted root keys, with comments or flow values, count everywhere', () => {
  for (const text of ['ajet:\n  a: 1\n', '"ajet":\n  a: 1\n', "'astuner': # c\n  a: 1\n", 'x: 1\nastune: {}\n', 'ajet:\t# comment\n']) {
    assert.ok(looksLikeConfig(text), text);
    // The launch side (CodeLens, F5 pickers) now agrees with the language server.
    assert.ok(looksLikeAgentJetConfig(text), text);
  }
  for (const text of ['  ajet:\n', 'ajetx:\n', '# ajet:\n', 'other: {ajet: 1}\n', '"ajet\':\n', 'ajet:x\n'])
    assert.ok(!looksLikeConfig(text), text);
  const r = findRootLine('# head\n"astuner":\n  x: 1\n');
  assert.deepEqual(r, { dialect: 'astuner', offset: 7, quoted: true });
});

test('versions: root key, then the workflow key of the ASTuner era', () => {
  assert.equal(versionOf('ajet'), 'agentjet');
  assert.equal(versionOf('astune', ['agentscope_learn_protocol']), 'astune');
  assert.equal(versionOf('astuner', ['agentscope_workflow']), 'astuner-2025-12');
  assert.equal(versionOf('astuner', ['agentscope_learn_protocol', 'use_agentscope_protocol']), 'astuner-2025-11');
  assert.equal(versionOf('astuner', []), 'astuner-2025-12');
  assert.equal(familyOf('astune'), 'astuner');
  assert.equal(defaultExperimentDir('astuner-2025-11'), 'launcher_record');
  assert.equal(defaultExperimentDir('astuner-2025-12'), 'saved_experiments');
  assert.equal(parseConfig('astuner:\n  rollout:\n    agentscope_learn_protocol: a->B\n').version, 'astuner-2025-11');
  assert.equal(parseConfig('"ajet":\n  rollout: {}\n').rootKey, 'ajet');
});

test('one fact reader: names, workflow, port, checkpoint base, broken YAML', () => {
  const f = readConfigFacts(
    'astuner:\n  project_name: 7\n  experiment_name: e1\n  rollout:\n    agentscope_workflow: m->C\n  debug:\n    debug_vllm_port: "18123"\n  trainer_common:\n    checkpoint_base_dir: ./ck\n',
  );
  assert.deepEqual(f, {
    dialect: 'astuner',
    version: 'astuner-2025-12',
    experimentName: 'e1',
    project: '7',
    workflow: 'm->C',
    debugVllmPort: 18123,
    checkpointBase: './ck',
    totalSteps: undefined,
  });
  assert.equal(readConfigFacts('ajet:\n  debug:\n    debug_vllm_port: 99999\n').debugVllmPort, 18000);
  assert.equal(readConfigFacts('ajet: [\n').dialect, undefined);
  assert.match(readConfigFacts('ajet: [\n').error ?? '', /unreadable YAML/);
  assert.equal(readConfigFacts('other: 1\n').error, 'no ajet:/astuner:/astune: section');
  assert.equal(readConfigFacts('- 1\n').error, 'not a YAML mapping');
});

test('a snapshot under launcher_record/ is judged as November 2025 ASTuner', async () => {
  const { versionFromPath } = await import('../../core/agentjet/dialect');
  assert.equal(versionFromPath('astuner', '/w/launcher_record/exp/yaml_backup.yaml'), 'astuner-2025-11');
  assert.equal(versionFromPath('astuner', '/w/saved_experiments/exp/yaml_backup.yaml'), undefined);
  assert.equal(versionFromPath('ajet', '/w/launcher_record/exp/yaml_backup.yaml'), undefined);
  const { lintText } = await import('../../core/config/lint');
  const snap = 'astuner:\n  task_reader:\n    type: dataset_file\n';
  const codes = (fileName: string) =>
    lintText(snap, { fileName })
      .diagnostics.filter((d) => d.severity === 'error')
      .map((d) => d.code);
  assert.deepEqual(codes('/w/launcher_record/e/yaml_backup.yaml'), []);
  assert.deepEqual(codes('/w/saved_experiments/e/yaml_backup.yaml'), ['renamed-value']);
});
