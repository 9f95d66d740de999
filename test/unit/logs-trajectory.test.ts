import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseTrajectory } from '../../core/logs/trajectory';
import { fixtures } from '../gen';

test('fixture trajectories parse into timelines of messages with tool calls and results', () => {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/[\\/]trajectory[\\/].*\.json$/.test(p)) files.push(p);
    }
  };
  walk(join(fixtures().workspace, 'saved_experiments'));
  assert.ok(files.length > 0);
  for (const f of files) {
    const r = parseTrajectory(readFileSync(f, 'utf8'));
    assert.ok(r.ok, f);
    assert.ok(r.data.taskId && r.data.timelines.length > 0 && r.data.timelines[0]!.length > 0);
    assert.ok(['success', 'failure', 'half_success'].includes(r.data.tag ?? ''), r.data.tag);
  }
  const r = parseTrajectory(
    readFileSync(
      files.find((f) => readFileSync(f, 'utf8').includes('tool_calls'))!,
      'utf8',
    ),
  );
  assert.ok(r.ok);
  const msgs = r.data.timelines[0]!;
  const call = msgs.find((m) => m.toolCalls.length > 0)!;
  assert.equal(call.role, 'assistant');
  assert.equal(call.toolCalls[0]!.name, 'execute_python_code');
  assert.match(call.toolCalls[0]!.arguments, /\n/, 'JSON arguments are pretty-printed');
  assert.equal(msgs.find((m) => m.role === 'tool')?.toolCallId, call.toolCalls[0]!.id);
  assert.ok(r.data.rewards.some(([k]) => k === 'raw_reward'));
});

test('bad trajectory files give a message, not a throw', () => {
  assert.match((parseTrajectory('{') as { error: string }).error, /invalid JSON/);
  assert.match((parseTrajectory('[1]') as { error: string }).error, /expected a JSON object/);
  assert.match((parseTrajectory('{"task_id": "x"}') as { error: string }).error, /no "traj"/);
  const flat = parseTrajectory(JSON.stringify({ task_id: 7, traj: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, 'odd'] }));
  assert.ok(flat.ok);
  assert.equal(flat.data.taskId, '7');
  assert.equal(flat.data.timelines.length, 1);
  assert.equal(flat.data.timelines[0]![0]!.content, 'hi');
  assert.equal(flat.data.timelines[0]![1]!.role, 'unknown');
});
