// Issue 9 item 10: checks that blocked F5 with false errors, now judged by the code of the
// framework version that reads the file (schemas/codefacts.json, from the upstream trees).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { lintText } from '../../core/config/lint';
import type { FrameworkVersion } from '../../core/agentjet/dialect';
import { demoConfig, demoDir, replaceOnce } from './config-helpers';

const codes = (text: string, opts: { version?: FrameworkVersion; fileName?: string; root?: string } = {}) =>
  lintText(text, { root: opts.root ?? demoDir, ...opts })
    .diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning')
    .map((d) => `${d.severity}:${d.code}`);

const withJudge = (section: string) => replaceOnce(demoConfig, '  task_judge:\n', `  task_judge:\n${section}`);

test('reader types the router accepts are accepted wherever the code hands them to it', () => {
  for (const t of ['tracing', 'random_dummy', 'data_generation', 'huggingface_dat_repo']) {
    const grader = withJudge(`    rubrics_auto_grader:\n      input_data_type: ${t}\n`);
    assert.deepEqual(
      codes(grader).filter((c) => c.endsWith(':enum')),
      [],
      `input_data_type ${t}`,
    );
    const gen = replaceOnce(
      demoConfig,
      '  task_reader:\n',
      `  task_reader:\n    data_generation:\n      query_reader:\n        type: ${t}\n`,
    );
    assert.deepEqual(
      codes(gen).filter((c) => c.endsWith(':enum')),
      [],
      `query_reader.type ${t}`,
    );
  }
  // Anything else makes RouterTaskReader raise ValueError: an error.
  const bad = withJudge('    rubrics_auto_grader:\n      input_data_type: jsonl\n');
  assert.ok(codes(bad).includes('error:enum'));
});

test('task_reader.type dataset_file: an error where the code raises, right where the code reads it', () => {
  const old = replaceOnce(
    replaceOnce(demoConfig, 'type: jsonl_dataset_file', 'type: dataset_file'),
    '    jsonl_dataset_file:\n',
    '    dataset_file:\n',
  );
  assert.ok(codes(old).includes('error:renamed-value'), 'AgentJet raises on dataset_file');
  assert.ok(codes(old, { version: 'astuner-2025-12' }).includes('error:renamed-value'), 'ASTuner of December 2025 too');
  const astune = old
    .replace(/^ajet:/m, 'astune:')
    .replace('user_workflow', 'agentscope_learn_protocol')
    .replace('- ajet_default', '- astune_default');
  assert.deepEqual(
    codes(astune, { version: 'astune' }).filter((c) => /renamed|enum/.test(c)),
    [],
    'ASTune reads dataset_file',
  );
  assert.ok(
    codes(demoConfig.replace(/^ajet:/m, 'astuner:').replace('user_workflow', 'agentscope_learn_protocol'), {
      version: 'astuner-2025-11',
    }).includes('error:renamed-value'),
    'November 2025 ASTuner rejects jsonl_dataset_file',
  );
  // The ASTuner-era tracing type: November 2025 compares an unset attribute and fails.
  assert.ok(
    codes(replaceOnce(demoConfig, 'type: jsonl_dataset_file', 'type: tracing').replace(/^ajet:/m, 'astuner:'), {
      version: 'astuner-2025-11',
    }).includes('error:enum'),
  );
});

test('a .yml config is an error (the launcher asserts .yaml); fragments are not', () => {
  assert.ok(codes(demoConfig, { fileName: '/w/math.yml' }).includes('error:launcher/yml-extension'));
  assert.ok(!codes(demoConfig, { fileName: '/w/math.yaml' }).includes('error:launcher/yml-extension'));
  assert.ok(
    !codes('ajet:\n  task_reader:\n    data_generation:\n      task_num: 3\n', { fileName: '/w/piece.yml' }).includes(
      'error:launcher/yml-extension',
    ),
  );
});

test('compute_madness_checklist takes every check name the code tests for', () => {
  const t = replaceOnce(
    demoConfig,
    '    temperature: 0.9\n',
    '    temperature: 0.9\n    compute_madness_checklist: [nonsense, non_ascii, format_type_1, wrong_toolcall]\n',
  );
  assert.deepEqual(
    codes(t).filter((c) => c.endsWith(':enum')),
    [],
  );
  const typo = replaceOnce(demoConfig, '    temperature: 0.9\n', '    temperature: 0.9\n    compute_madness_checklist: [nonsence]\n');
  assert.ok(codes(typo).includes('warning:enum'), 'unknown names are ignored by the code: a warning');
});

test('trinity.* is handed to Trinity-RFT untouched', () => {
  const t = `${demoConfig}\ntrinity:\n  synchronizer:\n    sync_offset: 1\n    made_up_by_trinity: true\n  anything: {deep: {er: 1}}\n`;
  assert.deepEqual(
    lintText(t, { root: demoDir }).diagnostics.filter((d) => d.range.start.line >= demoConfig.split('\n').length - 1),
    [],
  );
});

test('fragments are not asked for model, workflow or task reader', () => {
  const dataGen =
    'ajet:\n  task_reader:\n    data_generation:\n      query_reader:\n        type: jsonl_dataset_file\n      task_num: 10\n';
  assert.deepEqual(
    codes(dataGen, { fileName: '/w/tests/data_gen.yaml' }).filter((c) => c.endsWith('missing-required')),
    [],
  );
  const verlDefault = 'ajet:\n  rollout:\n    log_prob_micro_batch_size: null\nactor_rollout_ref: {}\n';
  assert.deepEqual(
    codes(verlDefault, { fileName: '/w/ajet/default_config/verl/verl_default.yaml' }).filter((c) => c.endsWith('missing-required')),
    [],
  );
  // A launchable config (it has a defaults list) still gets them.
  const noModel = replaceOnce(demoConfig, '    path: Qwen/Qwen2.5-1.5B-Instruct\n', '    trust: 1\n');
  assert.ok(codes(noModel).includes('error:missing-required'));
});

test('no judge warning when the workflow returns its own reward', () => {
  const root = mkdtempSync(join(tmpdir(), 'agentjet-reward-'));
  mkdirSync(join(root, 'flows'));
  writeFileSync(join(root, 'flows', '__init__.py'), '');
  writeFileSync(
    join(root, 'flows', 'own.py'),
    'class Own:\n    async def execute(self, t, tuner):\n        return WorkflowOutput(reward=1.0, metadata={})\n',
  );
  writeFileSync(
    join(root, 'flows', 'judged.py'),
    'class Judged:\n    async def execute(self, t, tuner):\n        return WorkflowOutput(reward=None, metadata={})\n',
  );
  const base = replaceOnce(demoConfig, '    judge_protocol: math_demo.judge->MathAnswerJudge\n', '    judge_type: customized_protocol\n');
  const own = base.replace('math_demo.workflow->MathWorkflow', 'flows.own->Own');
  const judged = base.replace('math_demo.workflow->MathWorkflow', 'flows.judged->Judged');
  assert.ok(!codes(own, { root }).includes('warning:cross-field/judge'));
  assert.ok(codes(judged, { root }).includes('warning:cross-field/judge'));
});

test('ASTuner keys and values are judged by the version that reads them', () => {
  const dec = demoConfig
    .replace(/^ajet:/m, 'astuner:')
    .replace('user_workflow', 'agentscope_workflow')
    .replace('- ajet_default', '- astune_default');
  assert.deepEqual(
    codes(dec).filter((c) => /renamed|enum|unknown/.test(c)),
    [],
    'agentscope_workflow and astune_default are right for December 2025 ASTuner',
  );
  const astune = dec.replace(/^astuner:/m, 'astune:').replace('agentscope_workflow', 'agentscope_learn_protocol');
  assert.deepEqual(
    codes(astune, { version: 'astune' }).filter((c) => /enum/.test(c)),
    [],
    'astune_default is the ASTune defaults name',
  );
  assert.ok(
    codes(astune.replace('- astune_default', '- astuner_default'), { version: 'astune' }).includes('warning:enum'),
    'no astuner_default in the ASTune tree',
  );
});

test('ajet.rollout.max_num_seqs is flagged as never read', () => {
  const t = replaceOnce(demoConfig, '    temperature: 0.9\n', '    temperature: 0.9\n    max_num_seqs: 40\n');
  assert.ok(codes(t).includes('warning:unread-key'));
  assert.ok(
    !codes(t, { fileName: '/w/ajet/default_config/ajet_default.yaml' }).includes('warning:unread-key'),
    'not in the framework defaults file',
  );
});

test('agentjet lint --framework judges by the named version', async () => {
  const { runLint } = await import('../../cli/lint');
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-fw-'));
  writeFileSync(
    join(dir, 'old.yaml'),
    demoConfig
      .replace('type: jsonl_dataset_file', 'type: dataset_file')
      .replace('    jsonl_dataset_file:\n', '    dataset_file:\n')
      .replace(/^ajet:/m, 'astuner:')
      .replace('- ajet_default', '- astune_default'),
  );
  const run = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await runLint(
      args,
      (s) => {
        out += s;
      },
      (s) => {
        err += s;
      },
    );
    return { code, out, err };
  };
  assert.equal((await run(join(dir, 'old.yaml'), '--root', demoDir, '--framework', 'astuner-2025-11')).code, 0);
  const dec = await run(join(dir, 'old.yaml'), '--root', demoDir, '--framework', 'astuner-2025-12');
  assert.equal(dec.code, 1);
  assert.match(dec.out, /renamed-value/);
  assert.equal((await run(join(dir, 'old.yaml'), '--framework', 'astuner')).code, 2);
});
