// Which swarm client is the editor's (core/swarm/editorClient.ts): the poll thread's uuid prefix,
// the `Claimed episode` log line, and the rollout pool in the shape AgentJet 0.0.4's server sends
// (CurrentBatchRolloutPoolInformation). The end-to-end checks against the real server and debugpy
// are in test/protocol/swarm*.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  claimedEpisodesFromOutput,
  clientOfEpisode,
  clientPrefixesFromThreads,
  isEditorClient,
  resolveEditorClients,
  serverKey,
} from '../../core/swarm/editorClient';
import { episodesByClient } from '../../core/swarm/model';
import type { PoolInfo } from '../../core/swarm/api';

const A = '1a2b3c4d-0000-4000-8000-00000000000a';
const B = '9f8e7d6c-0000-4000-8000-00000000000b';

function pool(p: Partial<PoolInfo>): PoolInfo {
  return {
    sample_collection_method: 'rollout_until_finish_enough_tasks',
    completed_episodes: 0,
    completed_episode_target: 8,
    completed_tasks: 0,
    completed_task_target: 4,
    completed_non_dummy_tasks: 0,
    completed_non_dummy_task_target: 4,
    task_expected_num_repeat: 2,
    completed_tasks_details: {},
    completed_tasks_rewards: {},
    completed_tasks_client_uuids: {},
    running_episode_details: null,
    engine_status: 'ENGINE.ROLLING',
    global_step: 1,
    booting_start_time: null,
    training_model_path: null,
    swarm_client_instruction: { active_clients: [] },
    ...p,
  };
}

const running = (client: string, task = '') => ({
  episode_status: 'claimed',
  time_since_last_activity: '1.0s',
  discard_episode_timeout: '60.0s',
  llm_call_count: '2',
  client_uuid: client,
  optional_task_id: task || null,
});

test('thread names: the 8-character prefix of every SwarmClient poll thread, nothing else', () => {
  assert.deepEqual(
    clientPrefixesFromThreads([
      'MainThread',
      `SwarmClient-EngineStatusPoll-${A.slice(0, 8)}`,
      'SwarmClient-EngineStatusPoll-zzzzzzzz',
      'SwarmClient-EngineStatusPoll-12',
      `SwarmClient-EngineStatusPoll-${B.slice(0, 8).toUpperCase()}`,
      `SwarmClient-EngineStatusPoll-${A.slice(0, 8)}`,
    ]),
    [A.slice(0, 8), B.slice(0, 8)],
  );
});

test('log lines: the episodes of `Claimed episode …` (loguru decorations around it), not of other lines', () => {
  const text = [
    '2026-05-01 10:00:00.000 | INFO | ajet...swarm_client:logger_info:193 - Claimed episode 0f1e2d3c4b5a69788796a5b4c3d2e1f0, current global step: 3',
    'Ended episode 0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    '\u001b[32mClaimed episode abcdef0123456789, current global step: unknown\u001b[0m',
    'Claimed episode x',
  ].join('\n');
  assert.deepEqual(claimedEpisodesFromOutput(text), ['0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'abcdef0123456789']);
});

test('property: any output parses without throwing, and every embedded claim is found', () => {
  fc.assert(
    fc.property(fc.string(), fc.array(fc.stringMatching(/^[0-9a-f]{32}$/), { maxLength: 5 }), (noise, eps) => {
      const clean = noise.replace(/Claimed episode/g, '');
      const text = eps.map((e) => `${clean}\nClaimed episode ${e}, current global step: 1\n`).join('') + clean;
      assert.deepEqual(claimedEpisodesFromOutput(text), eps);
    }),
  );
});

test('resolution: a prefix or a running episode names the client; an ended one only when its task had one client', () => {
  const p = pool({
    running_episode_details: { e1: running(A, 't0'), e2: running(B) },
    completed_tasks_details: { t1: ['e3', 'e4'], t2: ['e5', 'e6'] },
    completed_tasks_rewards: { t1: [1, 0], t2: [0.5, 0.5] },
    completed_tasks_client_uuids: { t1: [A, A], t2: [A, B] },
  });
  assert.deepEqual(resolveEditorClients(p, { prefixes: [A.slice(0, 8)], episodes: [] }), [A]);
  assert.deepEqual(resolveEditorClients(p, { prefixes: [], episodes: ['e2'] }), [B]);
  assert.equal(clientOfEpisode(p, 'e3'), A);
  assert.equal(clientOfEpisode(p, 'e5'), undefined, 'two clients on t2: no way to tell');
  assert.deepEqual(resolveEditorClients(p, { prefixes: ['ffffffff'], episodes: ['nope'] }), []);
  assert.equal(isEditorClient(A, [], [A.slice(0, 8)]), true);
  assert.equal(isEditorClient(B, [A], []), false);
  assert.equal(isEditorClient('', [''], ['']), false);
});

test('episodes by client: running from the server, completions only as reported, exact for known episodes', () => {
  // No throttle policy: the server reports no client of an ended episode.
  const p = pool({
    completed_episodes: 3,
    running_episode_details: { e1: running(A), e2: running(B, 'tb') },
    completed_tasks_details: { t1: ['e3', 'e4'], t2: ['e5'] },
    completed_tasks_rewards: { t1: [1, 0], t2: [0.25] },
    swarm_client_instruction: { active_clients: [{ client_uuid: B, last_activity_at: 1, allowed_sync_weight: true }] },
  });
  const rows = episodesByClient(p);
  assert.deepEqual(
    rows.map((r) => [r.client, r.running, r.completed, r.tasks, r.llmCalls, r.active, r.agreed]),
    [
      [A, 1, undefined, 0, 2, false, false],
      [B, 1, undefined, 1, 2, true, true],
    ],
  );
  const known = episodesByClient(p, new Map([[A, ['e3', 'e5', 'e4']]])).find((r) => r.client === A)!;
  assert.deepEqual([known.completed, known.tasks, known.rewarded, known.mean, known.lastReward], [3, 2, 3, 1.25 / 3, 0]);
  // With a throttle policy: per-task clients; rewards only for a task with one client.
  const q = pool({
    completed_episodes: 4,
    completed_tasks_details: { t1: ['e3', 'e4'], t2: ['e5', 'e6'] },
    completed_tasks_rewards: { t1: [1, 0], t2: [0.5, 0.5] },
    completed_tasks_client_uuids: { t1: [A, A], t2: [A, B] },
  });
  const r2 = episodesByClient(q);
  assert.deepEqual(
    r2.map((r) => [r.client, r.completed, r.tasks, r.mean, r.rewarded]),
    [
      [A, 3, 2, 0.5, 2],
      [B, 1, 1, undefined, 0],
    ],
  );
  // An empty batch: zero, not "not reported".
  assert.deepEqual(
    episodesByClient(pool({ running_episode_details: { e1: running(A) } })).map((r) => r.completed),
    [0],
  );
});

test('server keys: loopback names are one machine, ports and hosts are not', () => {
  assert.equal(serverKey('http://localhost:10086'), serverKey('http://127.0.0.1:10086/'));
  assert.equal(serverKey('http://0.0.0.0:10086'), serverKey('http://[::1]:10086'));
  assert.notEqual(serverKey('http://localhost:10086'), serverKey('http://localhost:10087'));
  assert.notEqual(serverKey('http://gpu-a:10086'), serverKey('http://gpu-b:10086'));
  assert.equal(serverKey('not a url'), 'not a url');
});
