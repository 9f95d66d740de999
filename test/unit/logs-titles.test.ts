// Record titles, nested keys and rotated siblings as AgentJet / ASTune / loguru really write them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseNestedKey, parseRecordTitle } from '../../core/logs/record';
import { decodeRecord, summarizePrefix } from '../../core/logs/decode';
import { LogIndex, rotationKey } from '../../core/logs/index';
import { exportRow } from '../../core/logs/stats';

const HEADER = '2026-01-05 10:00:00.000 | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - \n';
const rec = (obj: unknown) => Buffer.from(HEADER + 'base64:' + deflateSync(Buffer.from(JSON.stringify(obj))).toString('base64') + '\n');

/** A record as AgentJet's generate_log writes it (header f-string, key task.outcome.index). */
function agentjet(task: string, outcome = '1.0', step: number | string = 3) {
  return {
    header: `[${step}] Task ${task} (Reward 1.000)`,
    color: '#337711',
    content: 'This is the main content of the nested JSON',
    attach: 'copy this',
    nested: true,
    nested_json: {
      [`${task}.${outcome}.0`]: {
        content: { text: ['a', 'b'], title: ['N/A', '-0.2500'], count: ['1', '2'], color: ['#d98510', '#09abcf'] },
        item_id: 'item',
        outcome,
        len_prompt_ids: 1,
        len_response_ids: 1,
        len_input_ids: 2,
        raw_reward: '1.000',
        step_reward: '1.000',
        step_advantage: '0.500',
        step_advantage_simple: '0.500',
      },
    },
  };
}

test('an empty task id (the JSONL reader default "") is the empty task, not "(Reward"', () => {
  assert.deepEqual(parseRecordTitle('[3] Task  (Reward 1.000)'), { step: 3, taskId: '', reward: 1 });
  const r = decodeRecord(rec(agentjet('')));
  assert.ok(r.ok);
  assert.equal(r.record.taskId, '');
  assert.equal(r.record.timelines[0]!.taskId, '');
  assert.equal(r.record.timelines[0]!.outcome, '1.0');
  assert.equal(summarizePrefix(rec(agentjet(''))).taskId, '');
});

test('a dotted task id is kept whole in the list, the timeline and the export', () => {
  assert.equal(parseRecordTitle('[3] Task gsm8k.test.17 (Reward 1.000)').taskId, 'gsm8k.test.17');
  const r = decodeRecord(rec(agentjet('gsm8k.test.17', '0.5')));
  assert.ok(r.ok);
  const t = r.record.timelines[0]!;
  assert.deepEqual([t.taskId, t.outcome, t.index], ['gsm8k.test.17', '0.5', 0]);
  assert.equal(exportRow(0, r.record, t).task, 'gsm8k.test.17');
  const s = summarizePrefix(rec(agentjet('gsm8k.test.17', '0.5')));
  assert.deepEqual([s.taskId, s.outcome], ['gsm8k.test.17', '0.5']);
});

test('a task id with spaces, brackets or "(Reward" inside is read whole', () => {
  assert.equal(parseRecordTitle('[3] Task write a poem (Reward 0.000)').taskId, 'write a poem');
  assert.equal(parseRecordTitle('[3] Task x (Reward y) z (Reward -0.500)').taskId, 'x (Reward y) z');
  assert.deepEqual(parseRecordTitle('[NA] Task t1 (Reward nan)'), { taskId: 't1' });
  const r = decodeRecord(rec(agentjet('write a poem')));
  assert.ok(r.ok);
  assert.equal(r.record.taskId, 'write a poem');
  assert.equal(exportRow(0, r.record, r.record.timelines[0]!).task, 'write a poem');
  // Hand-written titles keep the old best effort, never taking the reward for the task.
  assert.deepEqual(parseRecordTitle('[12] Task (Reward 0.5)'), { step: 12, reward: 0.5 });
  assert.deepEqual(parseRecordTitle('gsm8k_test'), {});
});

test('nested keys split from the end: by the item outcome, then the title task, then the float shape', () => {
  assert.deepEqual(parseNestedKey('gsm8k.test.17.1.0.2', { outcome: '1.0' }), {
    taskId: 'gsm8k.test.17',
    outcome: '1.0',
    index: 2,
    shape: 'indexed',
  });
  assert.deepEqual(parseNestedKey('gsm8k.test.17.1.0', { outcome: '1.0' }), {
    taskId: 'gsm8k.test.17',
    outcome: '1.0',
    index: 0,
    shape: 'linear',
  });
  assert.deepEqual(parseNestedKey('gsm8k.test.17.1.0', { taskId: 'gsm8k.test.17' }), {
    taskId: 'gsm8k.test.17',
    outcome: '1.0',
    index: 0,
    shape: 'linear',
  });
  assert.deepEqual(parseNestedKey('gsm8k.test.17.1.0.3', { taskId: 'gsm8k.test.17' }), {
    taskId: 'gsm8k.test.17',
    outcome: '1.0',
    index: 3,
    shape: 'indexed',
  });
  assert.deepEqual(parseNestedKey('gsm8k.test.17.0.5.1'), { taskId: 'gsm8k.test.17', outcome: '0.5', index: 1, shape: 'indexed' });
  assert.deepEqual(parseNestedKey('.0.0.0'), { taskId: '', outcome: '0.0', index: 0, shape: 'indexed' });
  assert.deepEqual(parseNestedKey('t.success.4'), { taskId: 't', outcome: 'success', index: 4, shape: 'indexed' });
  assert.equal(parseNestedKey('nodots'), undefined);
});

test('ASTune basic-tracker records (title = token text, key task.outcome) are read as such: no logprobs', () => {
  const text = ['<|im_start|>', '-0.5', 'Hi'];
  const astune = {
    header: '[NA] Task 7 (Reward 0.000)',
    color: '#337711',
    content: 'This is the main content of the nested JSON',
    attach: null,
    nested: true,
    nested_json: {
      '7.0.0': {
        content: { text, title: text, count: ['1', '2', '3'], color: ['#D98510', '#09ABCF', '#09ABCF'] },
        item_id: 'item',
        outcome: '0.0',
        len_prompt_ids: 1,
        len_response_ids: 2,
        len_input_ids: 3,
        raw_reward: '0.000',
        step_reward: '0.000',
        step_advantage: '0.000',
        step_advantage_simple: '0.000',
      },
    },
  };
  const r = decodeRecord(rec(astune));
  assert.ok(r.ok);
  const t = r.record.timelines[0]!;
  assert.equal(t.titles, 'text');
  assert.deepEqual(t.logprobs, [null, null, null], 'the title "-0.5" is token text, not a logprob');
  assert.deepEqual([t.taskId, t.outcome, t.index], ['7', '0.0', 0]);
  assert.deepEqual(t.mask, [0, 1, 1]);
  assert.equal(r.record.step, undefined);
  const aj = decodeRecord(rec(agentjet('7')));
  assert.ok(aj.ok);
  assert.equal(aj.record.timelines[0]!.titles, 'logprob');
  assert.deepEqual(aj.record.timelines[0]!.logprobs, [null, -0.25]);
});

test('rotated siblings: <date>.2.log comes after <date>.log, before later dates and the live file', async () => {
  assert.deepEqual(rotationKey('rollout.json.log', 'rollout.json.2026-01-05_10-00-00_000000.2.log'), {
    date: '2026-01-05_10-00-00_000000',
    n: 2,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ajrot-'));
  try {
    const names = [
      'rollout.json.2026-01-05_10-00-00_000000.2.log',
      'rollout.json.2026-01-05_11-00-00_000000.log',
      'rollout.json.2026-01-05_10-00-00_000000.log',
      'rollout.json.2026-01-05_10-00-00_000000.10.log',
      'rollout.json.log',
    ];
    for (const n of names) writeFileSync(join(dir, n), '');
    const ix = new LogIndex(join(dir, 'rollout.json.log'));
    await ix.update();
    assert.deepEqual(
      ix.files.map((f) => basename(f.path)),
      [
        'rollout.json.2026-01-05_10-00-00_000000.log',
        'rollout.json.2026-01-05_10-00-00_000000.2.log',
        'rollout.json.2026-01-05_10-00-00_000000.10.log',
        'rollout.json.2026-01-05_11-00-00_000000.log',
        'rollout.json.log',
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
