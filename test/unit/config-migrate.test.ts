// Whole-file fixes: an ASTuner config migrated to AgentJet in one edit set, and the Hydra
// boilerplate appended where it is missing (the per-mistake fixes are config-mistakes.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lintText } from '../../core/config/lint';
import { parseConfig } from '../../core/config/parse';
import { migrateEdits, hydraBoilerplateEdit } from '../../core/config/features';
import { demoConfig, demoDir, applyEdits } from './config-helpers';

test('migrating a whole ASTuner file gives the AgentJet text in one edit set', () => {
  const astuner = [
    'astuner:',
    '  rollout:',
    '    use_agentscope_protocol: True',
    '    agentscope_learn_protocol: tutorial.example_appworld.appworld->ExampleAgentScopeLearnProtocol',
    '    agentscope_disable_toolcalls: False',
    '  task_reader:',
    '    type: dataset_file',
    '    dataset_file:',
    '      training:',
    '        file_path: "xxxx.jsonl"',
    '  task_judge:',
    '    judge_type: customized_protocal',
    '    judge_protocol: astuner.task_judge.env_service_as_judge->EnvServiceJudge',
    'hydra:',
    '  searchpath:',
    '    - file://astuner/default_config',
    'defaults:',
    '  - astuner_default',
    '  - _self_',
    '',
  ].join('\n');
  const expected = [
    'ajet:',
    '  rollout:',
    '    user_workflow: tutorial.example_appworld.appworld->ExampleAgentScopeLearnProtocol',
    '    force_disable_toolcalls: False',
    '  task_reader:',
    '    type: jsonl_dataset_file',
    '    jsonl_dataset_file:',
    '      training:',
    '        file_path: "xxxx.jsonl"',
    '  task_judge:',
    '    judge_type: customized_protocol',
    '    judge_protocol: ajet.task_judge.env_service_as_judge->EnvServiceJudge',
    'hydra:',
    '  searchpath:',
    '    - file://ajet/default_config',
    'defaults:',
    '  - ajet_default',
    '  - _self_',
    '',
  ].join('\n');
  const migrated = applyEdits(astuner, migrateEdits(parseConfig(astuner)));
  assert.equal(migrated, expected);
  const after = lintText(migrated, { root: demoDir }).diagnostics;
  assert.ok(
    !after.some((d) => d.code === 'renamed-key' || d.code === 'renamed-value' || d.code === 'deprecated-key'),
    JSON.stringify(after),
  );
});

test('Hydra boilerplate is appended when missing (CRLF kept)', () => {
  const text = 'ajet:\r\n  project_name: x\r\n';
  const e = hydraBoilerplateEdit(parseConfig(text));
  assert.ok(e);
  assert.equal(
    applyEdits(text, [e]),
    'ajet:\r\n  project_name: x\r\n\r\nhydra:\r\n  searchpath:\r\n    - file://ajet/default_config\r\n    - file://ajet/default_config/verl\r\n    - file://ajet/default_config/trinity\r\n\r\ndefaults:\r\n  - verl_default\r\n  - trinity_default\r\n  - ajet_default\r\n  - _self_\r\n',
  );
  assert.equal(hydraBoilerplateEdit(parseConfig(demoConfig)), undefined);
});
