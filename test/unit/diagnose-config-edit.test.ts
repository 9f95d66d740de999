// A cause's config edit as a text edit of the config the run came from (the quick fix of its
// Problem), and the causes a failed launch's record keeper hands to the editor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { configTextEdit, nextValue } from '../../core/diagnose/configEdit';
import { LaunchRecordKeeper } from '../../core/launch/record';
import { FAILURE_CASES } from '../gen/failures';
import { checkProperty, fc } from '../util/prop';

const apply = (text: string, key: string, value: number | boolean | string) => {
  const e = configTextEdit(text, { key, value });
  assert.ok(e, `an edit of ${key}`);
  return text.slice(0, e.start) + e.newText + text.slice(e.end);
};
const get = (text: string, key: string): unknown =>
  key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], parse(text));

const CONFIG = `# my run
ajet:
  project_name: p   # a comment
  rollout:
    gpu_memory_utilization: 0.9
    max_env_worker: 32
  data:
    train_batch_size: 8
trainer:
  nnodes: 1
`;

test('config edit: a written value is lowered, raised or set in place; comments and order stay', () => {
  const lowered = apply(CONFIG, 'ajet.rollout.gpu_memory_utilization', 'lower');
  assert.equal(get(lowered, 'ajet.rollout.gpu_memory_utilization'), 0.8);
  assert.equal(lowered.replace('0.8', '0.9'), CONFIG, 'only the value changed');
  assert.equal(get(apply(CONFIG, 'ajet.rollout.gpu_memory_utilization', 'raise'), 'ajet.rollout.gpu_memory_utilization'), 0.95);
  assert.equal(get(apply(CONFIG, 'ajet.rollout.max_env_worker', 'lower'), 'ajet.rollout.max_env_worker'), 16);
  assert.equal(configTextEdit(CONFIG, { key: 'ajet.rollout.gpu_memory_utilization', value: 'lower' })!.line, 4);
});

test("config edit: a missing key is added under the deepest section the config has, from AgentJet's default", () => {
  const a = apply(CONFIG, 'ajet.rollout.max_model_len', 9000);
  assert.equal(get(a, 'ajet.rollout.max_model_len'), 9000);
  assert.equal(get(a, 'trainer.nnodes'), 1);
  const b = apply(CONFIG, 'ajet.trainer_common.fsdp_config.param_offload', true);
  assert.equal(get(b, 'ajet.trainer_common.fsdp_config.param_offload'), true);
  assert.equal(get(b, 'ajet.data.train_batch_size'), 8);
  const c = apply('ajet:\n  project_name: p\n', 'ajet.rollout.gpu_memory_utilization', 'lower');
  assert.equal(get(c, 'ajet.rollout.gpu_memory_utilization'), 0.75, 'lowered from the default 0.85');
  // What cannot take it: not YAML, a flow map, a section where a value should be.
  assert.equal(configTextEdit('ajet: {rollout: {}}\n', { key: 'ajet.rollout.max_model_len', value: 1 }), undefined);
  assert.equal(configTextEdit('ajet: [\n', { key: 'ajet.x', value: 1 }), undefined);
  assert.equal(
    configTextEdit('ajet:\n  rollout:\n    max_model_len:\n      a: 1\n', { key: 'ajet.rollout.max_model_len', value: 1 }),
    undefined,
  );
});

test('property: lowering a fraction stays in [0.1, 1), lowering a count stays >= 1, and the result parses with the rest unchanged', async () => {
  await checkProperty(
    fc.property(fc.oneof(fc.double({ min: 0.05, max: 1, noNaN: true }), fc.integer({ min: 1, max: 1_000_000 })), (v) => {
      const n = nextValue({ key: 'k', value: 'lower' }, v) as number;
      if (v <= 1) assert.ok(n >= 0.1 && n < 1, String(n));
      else assert.ok(n >= 1 && n < v, String(n));
      const text = `ajet:\n  rollout:\n    gpu_memory_utilization: ${v}\n  other: 1\n`;
      const out = apply(text, 'ajet.rollout.gpu_memory_utilization', 'lower');
      assert.equal(get(out, 'ajet.rollout.gpu_memory_utilization'), n);
      assert.equal(get(out, 'ajet.other'), 1);
    }),
    200,
  );
});

test("a failed launch's output gives causes with their config edits; a success or the user's stop gives none", () => {
  const k = new LaunchRecordKeeper();
  k.push(FAILURE_CASES.find((c) => c.code === 'cuda-oom')!.log, 'stderr', undefined);
  k.exitCode = 1;
  const causes = k.causes();
  assert.deepEqual(
    causes.map((c) => c.code),
    ['cuda-oom'],
  );
  assert.equal(causes[0]!.edits?.[0]?.key, 'ajet.rollout.gpu_memory_utilization');
  k.stopRequestedMs = Date.now();
  assert.deepEqual(k.causes(), []);
  const ok = new LaunchRecordKeeper();
  ok.push(FAILURE_CASES[0]!.log, 'stdout', undefined);
  ok.exitCode = 0;
  assert.deepEqual(ok.causes(), []);
});
