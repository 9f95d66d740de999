// Table of seeded mistakes: each mutation of the demo config must produce the expected code at
// the exact range, and where a quick fix exists, applying it must give the expected text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lintText } from '../../core/config/lint';
import { parseConfig } from '../../core/config/parse';
import { codeActions } from '../../core/config/features';
import { demoConfig, demoDir, rangeOf, replaceOnce, applyEdits } from './config-helpers';

interface Case {
  name: string;
  mutate: (t: string) => string;
  code: string;
  /** Text whose occurrence (nth) is the expected range. */
  at: string;
  nth?: number;
  /** Look for `at` inside the first occurrence of this text. */
  within?: string;
  severity?: string;
  /** Expected text of the line after applying the preferred fix. */
  fixedLine?: string;
}

const R = replaceOnce;
const cases: Case[] = [
  {
    name: 'typo in a section name',
    mutate: (t) => R(t, '  rollout:\n', '  rollot:\n'),
    code: 'unknown-key',
    at: 'rollot',
    fixedLine: '  rollout:',
  },
  {
    name: 'typo at depth 2',
    mutate: (t) => R(t, 'temperature: 0.9', 'temprature: 0.9'),
    code: 'unknown-key',
    at: 'temprature',
    fixedLine: '    temperature: 0.9',
  },
  {
    name: 'typo at depth 3',
    mutate: (t) => R(t, '      training:\n', '      trainig:\n'),
    code: 'unknown-key',
    at: 'trainig',
    fixedLine: '      training:',
  },
  {
    name: 'typo at depth 4',
    mutate: (t) => R(t, 'file_path: data/train.jsonl', 'file_pth: data/train.jsonl'),
    code: 'unknown-key',
    at: 'file_pth',
    fixedLine: '        file_path: data/train.jsonl',
  },
  {
    name: 'key in the wrong section',
    mutate: (t) => R(t, '    train_batch_size: 8\n', '    train_batch_size: 8\n    max_num_seqs: 10\n'),
    code: 'unknown-key',
    at: 'max_num_seqs',
    severity: 'warning',
  },
  { name: 'typo at the top level', mutate: (t) => R(t, 'hydra:\n', 'hyrda:\n'), code: 'unknown-key', at: 'hyrda', fixedLine: 'hydra:' },
  {
    name: 'string where an integer goes',
    mutate: (t) => R(t, 'num_repeat: 4', 'num_repeat: four'),
    code: 'type-mismatch',
    at: 'four',
    severity: 'error',
  },
  {
    name: 'quoted number',
    mutate: (t) => R(t, 'num_repeat: 4', 'num_repeat: "4"'),
    code: 'type-mismatch',
    at: '"4"',
    fixedLine: '    num_repeat: 4',
  },
  {
    name: 'float where an integer goes',
    mutate: (t) => R(t, 'max_model_len: 8000', 'max_model_len: 8000.5'),
    code: 'type-mismatch',
    at: '8000.5',
  },
  {
    name: 'integer written as float',
    mutate: (t) => R(t, 'train_batch_size: 8', 'train_batch_size: 8.0'),
    code: 'type-mismatch',
    at: '8.0',
  },
  {
    name: 'word where a boolean goes',
    mutate: (t) => R(t, '    logger: console\n', '    logger: console\n    val_before_train: maybe\n'),
    code: 'type-mismatch',
    at: 'maybe',
  },
  {
    name: 'mapping where a number goes',
    mutate: (t) => R(t, 'temperature: 0.9', 'temperature: {a: 1}'),
    code: 'type-mismatch',
    at: '{a: 1}',
  },
  {
    name: 'None string',
    mutate: (t) => R(t, '    tensor_model_parallel_size: 1\n', '    tensor_model_parallel_size: 1\n    compute_madness_checklist: None\n'),
    code: 'type-mismatch',
    at: 'None',
    severity: 'warning',
    fixedLine: '    compute_madness_checklist: null',
  },
  {
    name: 'bad backbone',
    mutate: (t) => R(t, '  project_name: math_demo\n', '  project_name: math_demo\n  backbone: verll\n'),
    code: 'enum',
    at: 'verll',
    severity: 'error',
    fixedLine: '  backbone: verl',
  },
  {
    name: 'bad task reader type',
    mutate: (t) => R(t, 'type: jsonl_dataset_file', 'type: jsonl_datset_file'),
    code: 'enum',
    at: 'jsonl_datset_file',
    fixedLine: '    type: jsonl_dataset_file',
  },
  {
    name: 'bad rollout engine',
    mutate: (t) => R(t, '    num_repeat: 4\n', '    num_repeat: 4\n    name: vlm\n'),
    code: 'enum',
    at: 'vlm',
    fixedLine: '    name: vllm',
  },
  {
    name: 'unknown logger (soft enum)',
    mutate: (t) => R(t, 'logger: console', 'logger: consol'),
    code: 'enum',
    at: 'consol',
    severity: 'warning',
    fixedLine: '    logger: console',
  },
  {
    name: 'bad wrapper type',
    mutate: (t) => R(t, '  debug:\n', '  task_runner:\n    wrapper_type: asyncio-gc\n  debug:\n'),
    code: 'enum',
    at: 'asyncio-gc',
  },
  {
    name: 'ASTuner workflow key in an AgentJet file',
    mutate: (t) => R(t, 'user_workflow:', 'agentscope_workflow:'),
    code: 'renamed-key',
    at: 'agentscope_workflow',
    fixedLine: '    user_workflow: math_demo.workflow->MathWorkflow',
  },
  {
    name: 'ASTuner reader spelling',
    mutate: (t) => R(R(t, 'type: jsonl_dataset_file', 'type: dataset_file'), '    jsonl_dataset_file:\n', '    dataset_file:\n'),
    code: 'renamed-value',
    at: 'dataset_file',
    fixedLine: '    type: jsonl_dataset_file',
  },
  {
    name: 'ASTuner reader section',
    mutate: (t) => R(t, '    jsonl_dataset_file:\n', '    dataset_file:\n'),
    code: 'renamed-key',
    at: 'dataset_file',
    nth: 1,
    fixedLine: '    jsonl_dataset_file:',
  },
  {
    name: 'ASTuner judge spelling',
    mutate: (t) => R(t, '  task_judge:\n', '  task_judge:\n    judge_type: customized_protocal\n'),
    code: 'renamed-value',
    at: 'customized_protocal',
    fixedLine: '    judge_type: customized_protocol',
  },
  {
    name: 'key AgentJet no longer reads',
    mutate: (t) => R(t, '    num_repeat: 4\n', '    num_repeat: 4\n    use_agentscope_protocol: true\n'),
    code: 'deprecated-key',
    at: 'use_agentscope_protocol',
  },
  {
    name: 'AgentJet key in an ASTuner file',
    mutate: (t) => R(t, 'ajet:\n', 'astuner:\n'),
    code: 'renamed-key',
    at: 'user_workflow',
    fixedLine: '    agentscope_workflow: math_demo.workflow->MathWorkflow',
  },
  {
    name: 'missing class',
    mutate: (t) => R(t, '->MathWorkflow', '->MathWorkflw'),
    code: 'class-ref/missing-class',
    at: 'MathWorkflw',
    severity: 'error',
    fixedLine: '    user_workflow: math_demo.workflow->MathWorkflow',
  },
  {
    name: 'missing module',
    mutate: (t) => R(t, 'math_demo.workflow->', 'math_demo.workflows->'),
    code: 'class-ref/missing-module',
    at: 'math_demo.workflows',
    severity: 'error',
  },
  {
    name: 'missing file',
    mutate: (t) => R(t, 'math_demo.judge->MathAnswerJudge', 'math_demo/judges.py->MathAnswerJudge'),
    code: 'class-ref/missing-file',
    at: 'math_demo/judges.py',
    severity: 'error',
  },
  {
    name: 'missing class in a file reference',
    mutate: (t) => R(t, 'math_demo.judge->MathAnswerJudge', '"math_demo/judge.py->MathJudge"'),
    code: 'class-ref/missing-class',
    at: 'MathJudge',
    fixedLine: '    judge_protocol: "math_demo/judge.py->MathAnswerJudge"',
  },
  {
    name: 'class reference without arrow',
    mutate: (t) => R(t, 'math_demo.workflow->MathWorkflow', 'math_demo.workflow.MathWorkflow'),
    code: 'class-ref/syntax',
    at: 'math_demo.workflow.MathWorkflow',
  },
  {
    name: 'bad interpolation',
    mutate: (t) => R(t, 'max_model_len: 8000', 'max_model_len: ${ajet.data.max_prompt_lenght}'),
    code: 'bad-interpolation',
    at: '${ajet.data.max_prompt_lenght}',
    fixedLine: '    max_model_len: ${ajet.data.max_prompt_length}',
  },
  {
    name: 'interpolation into a missing section',
    mutate: (t) => R(t, 'experiment_name: math_demo', 'experiment_name: "${ajet.nothing.here}-run"'),
    code: 'bad-interpolation',
    at: '${ajet.nothing.here}',
  },
  {
    name: 'unclosed interpolation',
    mutate: (t) => R(t, 'experiment_name: math_demo', 'experiment_name: ${ajet.project_name'),
    code: 'bad-interpolation',
    at: '${ajet.project_name',
  },
  {
    name: 'placeholder path',
    mutate: (t) => R(t, 'path: Qwen/Qwen2.5-1.5B-Instruct', 'path: /path/to/model/Qwen'),
    code: 'placeholder',
    at: '/path/to/model/Qwen',
  },
  {
    name: 'prompt + response over max_model_len',
    mutate: (t) => R(t, 'max_model_len: 8000', 'max_model_len: 5000'),
    code: 'cross-field/max-model-len',
    at: '5000',
    severity: 'error',
  },
  {
    name: 'more inference GPUs than the job has',
    mutate: (t) => R(t, 'n_vllm_engine: 1', 'n_vllm_engine: 4'),
    code: 'cross-field/gpus',
    at: '4',
    within: 'n_vllm_engine: 4',
  },
  {
    name: 'debug TP over GPUs per node',
    mutate: (t) => R(t, 'debug_tensor_parallel_size: 1', 'debug_tensor_parallel_size: 8'),
    code: 'cross-field/debug-tp',
    at: '8',
    within: 'debug_tensor_parallel_size: 8',
  },
  {
    name: 'rubrics grader without its section',
    mutate: (t) => R(t, '  task_judge:\n', '  task_judge:\n    judge_type: rubrics_auto_grader\n'),
    code: 'cross-field/rubrics-section',
    at: 'rubrics_auto_grader',
  },
  {
    name: 'default judge with a JSONL reader',
    mutate: (t) => R(t, '    judge_protocol: math_demo.judge->MathAnswerJudge\n', '    judge_type: customized_protocol\n'),
    code: 'cross-field/judge',
    at: 'task_judge',
  },
  {
    name: 'no model path',
    mutate: (t) => R(t, '    path: Qwen/Qwen2.5-1.5B-Instruct\n', '    trust: 1\n'),
    code: 'missing-required',
    at: 'model',
    severity: 'error',
  },
  {
    name: 'no workflow',
    mutate: (t) => R(t, '    user_workflow: math_demo.workflow->MathWorkflow\n', ''),
    code: 'missing-required',
    at: 'rollout',
    within: '  rollout:\n',
  },
  {
    name: 'reader section missing',
    mutate: (t) => R(t, 'type: jsonl_dataset_file', 'type: env_service'),
    code: 'missing-required',
    at: 'env_service',
  },
  {
    name: 'empty value',
    mutate: (t) => R(t, 'max_model_len: 8000', 'max_model_len:'),
    code: 'empty-value',
    at: 'max_model_len',
    fixedLine: '    max_model_len: 18000',
  },
  {
    name: 'missing data file',
    mutate: (t) => R(t, 'data/val.jsonl', 'data/missing.jsonl'),
    code: 'path-missing',
    at: 'data/missing.jsonl',
    severity: 'warning',
  },
  { name: 'tab indentation', mutate: (t) => R(t, '    temperature: 0.9\n', '\ttemperature: 0.9\n'), code: 'yaml-syntax', at: '\t' },
  {
    name: 'duplicate key',
    mutate: (t) => R(t, '    num_repeat: 4\n', '    num_repeat: 4\n    num_repeat: 5\n'),
    code: 'yaml-syntax',
    at: 'num_repeat',
    nth: 1,
  },
  {
    name: 'typo in the defaults list',
    mutate: (t) => R(t, '  - ajet_default\n', '  - ajet_defualt\n'),
    code: 'enum',
    at: 'ajet_defualt',
    severity: 'warning',
    fixedLine: '  - ajet_default',
  },
  {
    name: 'ASTuner defaults entry in an AgentJet file',
    mutate: (t) => R(t, '  - ajet_default\n', '  - astuner_default\n'),
    code: 'renamed-value',
    at: 'astuner_default',
    fixedLine: '  - ajet_default',
  },
  { name: 'second YAML document', mutate: (t) => t + '---\nother: 1\n', code: 'multi-document', at: '---', within: '---\nother' },
];

test(`table of ${cases.length} seeded mistakes: code, exact range and quick fix`, () => {
  assert.ok(cases.length >= 30);
  for (const c of cases) {
    const text = c.mutate(demoConfig);
    const { diagnostics } = lintText(text, { root: demoDir });
    const want = c.within
      ? (() => {
          const base = text.indexOf(c.within as string);
          const off = (c.within as string).indexOf(c.at);
          const r = rangeOf(
            text.slice(0, base + off) + '\u0000'.repeat(c.at.length) + text.slice(base + off + c.at.length),
            '\u0000'.repeat(c.at.length),
          );
          return r;
        })()
      : rangeOf(text, c.at, c.nth ?? 0);
    const hit = diagnostics.find((d) => d.code === c.code && JSON.stringify(d.range) === JSON.stringify(want));
    assert.ok(
      hit,
      `${c.name}: expected ${c.code} at ${JSON.stringify(want)}, got\n${diagnostics.map((d) => `  ${d.code} ${JSON.stringify(d.range)} ${d.message}`).join('\n')}`,
    );
    if (c.severity) assert.equal(hit.severity, c.severity, c.name);
    if (c.fixedLine !== undefined) {
      const actions = codeActions(parseConfig(text), [hit]).filter((a) => a.kind === 'quickfix');
      const fix = actions.find((a) => a.preferred) ?? actions[0];
      assert.ok(fix, `${c.name}: no quick fix`);
      const fixed = applyEdits(text, fix.edits);
      const line = fixed.split('\n')[hit.range.start.line];
      assert.equal(line, c.fixedLine, c.name);
      // The fix removes this diagnostic.
      assert.ok(
        !lintText(fixed, { root: demoDir }).diagnostics.some((d) => d.code === c.code && d.range.start.line === hit.range.start.line),
        `${c.name}: fix did not clear the diagnostic`,
      );
    }
  }
});

test('the unmutated demo config has none of the seeded codes', () => {
  const codes = new Set<string>(lintText(demoConfig, { root: demoDir }).diagnostics.map((d) => d.code));
  for (const c of cases) assert.ok(!codes.has(c.code), c.code);
});
