// core/swarm without a server: answer validation, the adaptive poller (never stacks, backs off,
// stops), the reward history across weight syncs, SwarmClient(...) and enable_swarm_mode detection.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withUpstream } from '../util/upstream';
import { SwarmApi, SwarmError, normalizeSwarmUrl, type PoolInfo } from '../../core/swarm/api';
import { AdaptivePoller } from '../../core/swarm/poller';
import { RewardHistory, progress, taskRows } from '../../core/swarm/model';
import { findSwarmClientCalls, stringConstants, swarmModeLine } from '../../core/swarm/source';
import { llmCallApi } from '../../core/protocol/swarm';

const answer = (body: unknown, status = 200): typeof fetch =>
  (async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status })) as typeof fetch;

test('answers are validated: a wrong shape, non-JSON and HTTP errors become one-line SwarmErrors', async () => {
  await assert.rejects(
    new SwarmApi('http://h:1', { fetchImpl: answer({ engine_status: 3 }) }).engineStatus(),
    (e: SwarmError) => e.kind === 'invalid' && /engine_status/.test(e.message),
  );
  await assert.rejects(
    new SwarmApi('http://h:1', { fetchImpl: answer('<html>') }).pool(),
    (e: SwarmError) => e.kind === 'invalid' && !e.message.includes('\n'),
  );
  await assert.rejects(
    new SwarmApi('http://h:1', { fetchImpl: answer({ detail: 'boom\nx' }, 500) }).pool(),
    (e: SwarmError) => e.kind === 'http' && /HTTP 500: boom x/.test(e.message),
  );
  assert.equal(
    await new SwarmApi('http://h:1', { fetchImpl: answer({ detail: 'No LLM call has been made yet' }, 404) }).latestLlmCall(),
    undefined,
  );
  const pool = await new SwarmApi('http://h:1', { fetchImpl: answer({ engine_status: 'ENGINE.ROLLING', future_field: 1 }) }).pool();
  assert.equal(pool.engine_status, 'ENGINE.ROLLING');
  assert.equal(pool.completed_episodes, 0);
  assert.deepEqual(pool.swarm_client_instruction.active_clients, []);
});

test('the latest LLM call says which API took it (Responses and Messages after 0.0.4; none means chat completions)', async () => {
  const call = async (body: unknown) => llmCallApi((await new SwarmApi('http://h:1', { fetchImpl: answer(body) }).latestLlmCall())?.format);
  assert.equal(await call({ input: { messages: [] }, output: { choices: [] } }), 'chat');
  assert.equal(await call({ input: { input: 'hi' }, output: { output: [] }, format: 'responses' }), 'responses');
  assert.equal(await call({ input: { messages: [] }, output: { content: [] }, format: 'messages' }), 'messages');
  assert.equal(await call({ input: {}, output: {}, format: 'future' }), 'other');
  await assert.rejects(
    new SwarmApi('http://h:1', { fetchImpl: answer({ input: {}, output: {}, format: 3 }) }).latestLlmCall(),
    (e: SwarmError) => e.kind === 'invalid',
  );
});

test('URLs: host:port gets http://, other schemes are refused', () => {
  assert.equal(normalizeSwarmUrl('localhost:10086/'), 'http://localhost:10086');
  assert.equal(normalizeSwarmUrl(' https://x.y:1/base/ '), 'https://x.y:1/base');
  assert.throws(() => normalizeSwarmUrl('file:///etc/passwd'), SwarmError);
});

test('the poller never runs two ticks at once, however often it is poked', async () => {
  let running = 0;
  let max = 0;
  let release: (() => void) | undefined;
  const p = new AdaptivePoller(
    async () => {
      running++;
      max = Math.max(max, running);
      await new Promise<void>((r) => (release = r));
      running--;
      return false;
    },
    { fastMs: 1, slowMs: 1 },
  );
  p.start();
  for (let i = 0; i < 20; i++) p.poke();
  assert.equal(p.ticks, 1);
  release!();
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(max, 1);
  assert.ok(p.ticks <= 2, `${p.ticks}`);
  p.stop();
  release?.();
});

test('the poller is fast after a change, slow when calm, backs off on failures, and stops', async () => {
  let now = 0;
  const timers: { fn: () => void; ms: number }[] = [];
  let fail = false;
  let changed = true;
  const p = new AdaptivePoller(
    async () => {
      if (fail) throw new Error('down');
      return changed;
    },
    {
      fastMs: 1000,
      slowMs: 5000,
      calmAfterMs: 30_000,
      maxBackoffMs: 30_000,
      now: () => now,
      setTimer: (fn, ms) => timers.push({ fn, ms }),
      clearTimer: () => undefined,
    },
  );
  p.start();
  await p.idle();
  assert.equal(timers.at(-1)!.ms, 1000);
  changed = false;
  now = 40_000;
  timers.at(-1)!.fn();
  await p.idle();
  assert.equal(timers.at(-1)!.ms, 5000);
  fail = true;
  for (let i = 0; i < 6; i++) {
    timers.at(-1)!.fn();
    await p.idle();
  }
  assert.equal(timers.at(-1)!.ms, 30_000);
  p.stop();
  const n = p.ticks;
  p.poke();
  assert.equal(p.ticks, n, 'a stopped poller does not poll');
});

const pool = (rewards: Record<string, number[]>, eps?: Record<string, string[]>): PoolInfo =>
  ({
    sample_collection_method: 'rollout_until_finish_enough_tasks',
    completed_episodes: 0,
    completed_episode_target: 4,
    completed_tasks: 0,
    completed_task_target: 2,
    completed_non_dummy_tasks: 0,
    completed_non_dummy_task_target: 2,
    task_expected_num_repeat: 2,
    completed_tasks_details: eps ?? Object.fromEntries(Object.entries(rewards).map(([k, v]) => [k, v.map((_, i) => `${k}-e${i}`)])),
    completed_tasks_rewards: rewards,
    completed_tasks_client_uuids: {},
    swarm_client_instruction: { active_clients: [] },
  }) as PoolInfo;

test('reward history: one point per step, kept across weight syncs, a stale pool is not counted for the next step', () => {
  const h = new RewardHistory();
  assert.equal(h.record(1, pool({ a: [1, 0] })), true);
  assert.equal(h.record(1, pool({ a: [1, 0] })), false);
  // The server still holds step 1's pool when step 2 begins.
  assert.equal(h.record(2, pool({ a: [1, 0] })), false);
  assert.equal(h.record(2, pool({ b: [1, 1] })), true);
  assert.equal(h.record(null, pool({ c: [1] })), false);
  assert.deepEqual(h.points(), [
    { step: 1, mean: 0.5, episodes: 2 },
    { step: 2, mean: 1, episodes: 2 },
  ]);
});

test('task rows and progress follow what overwatch shows', () => {
  const rows = taskRows(pool({ a: [1, 0], b: [1] }));
  assert.deepEqual(
    rows.map((r) => [r.taskId, r.episodes, r.mean, r.std]),
    [
      ['a', 2, 0.5, 0.5],
      ['b', 1, 1, 0],
    ],
  );
  assert.equal(progress(pool({}))[0]!.label, 'tasks');
});

test('SwarmClient(...) calls and their URL literals; comments and the class itself are skipped', () => {
  const src = [
    'from ajet.tuner_lib.experimental.swarm_client import SwarmClient',
    'c = SwarmClient("http://localhost:10086")',
    "d = SwarmClient(server_url='http://10.0.0.2:10086/')",
    'e = SwarmClient(AJET_SWARM_URL, auto_start_swarm_server=True)',
    '# x = SwarmClient("http://commented:1")',
    'class SwarmClient(SwarmClientBase):',
  ].join('\n');
  const calls = findSwarmClientCalls(src);
  assert.deepEqual(
    calls.map((c) => [c.line, c.url]),
    [
      [1, 'http://localhost:10086'],
      [2, 'http://10.0.0.2:10086'],
      [3, undefined],
    ],
  );
});

test('SwarmClient(NAME): a name the file assigns one constant URL (or an os.getenv default) gives the server', () => {
  const src = [
    'import os',
    'AJET_SWARM_URL = os.getenv("AJET_SWARM_URL", "http://localhost:10086")',
    'REMOTE_7B: str = "http://22.16.208.79:10086"  # change to yours',
    'CHANGED = "http://a:1"',
    'CHANGED = "http://b:2"',
    'BUILT = "http://c:3"',
    'BUILT += "/x"',
    'NOT_URL = "ftp://d:4"',
    'a = SwarmClient(AJET_SWARM_URL, auto_start_swarm_server=True)',
    'b = SwarmClient(REMOTE_7B)',
    'c = SwarmClient(CHANGED)',
    'd = SwarmClient(BUILT)',
    'e = SwarmClient(NOT_URL)',
    'f = SwarmClient(UNDEFINED)',
    'g = SwarmClient(self.swarm_url)',
  ].join('\n');
  assert.deepEqual(stringConstants(src).get('REMOTE_7B'), 'http://22.16.208.79:10086');
  assert.deepEqual(
    findSwarmClientCalls(src).map((c) => [c.line, c.url, c.via]),
    [
      [8, 'http://localhost:10086', 'AJET_SWARM_URL'],
      [9, 'http://22.16.208.79:10086', 'REMOTE_7B'],
      [10, undefined, undefined],
      [11, undefined, undefined],
      [12, undefined, undefined],
      [13, undefined, undefined],
      [14, undefined, undefined],
    ],
  );
});

test('property: any text is scanned without throwing, calls point at SwarmClient', () => {
  // A small deterministic generator (mulberry32), as the config fuzz tests do.
  let seed = 20261125;
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const parts = [
    'SwarmClient(',
    '"http://a:1"',
    "'",
    ')',
    '#',
    '\n',
    ' ',
    'x',
    'server_url=',
    'class ',
    '  enable_swarm_mode: true',
    '\u00e9',
  ];
  for (let i = 0; i < 2000; i++) {
    const text = Array.from({ length: Math.floor(rnd() * 30) }, () => parts[Math.floor(rnd() * parts.length)]).join('');
    const lines = text.split('\n');
    for (const c of findSwarmClientCalls(text)) assert.equal(lines[c.line]!.slice(c.column, c.endColumn), 'SwarmClient');
    const l = swarmModeLine(text);
    if (l !== undefined) assert.match(lines[l]!, /enable_swarm_mode/);
  }
});

test('enable_swarm_mode: true is found under ajet, false is not', () => {
  assert.equal(swarmModeLine('ajet:\n  enable_interchange_server: True\n  enable_swarm_mode: True  # train in cloud\n'), 2);
  assert.equal(swarmModeLine('ajet:\n  enable_swarm_mode: false\n'), undefined);
});

test('the swarm template: a client, tasks and a launch configuration; the client is valid Python', async () => {
  const { renderTemplate, findTemplate } = await import('../../core/templates');
  const { spawnSync } = await import('node:child_process');
  assert.equal(findTemplate('swarm')?.workflowFile, 'swarm_client.py');
  const files = renderTemplate('swarm', 'my swarm');
  assert.deepEqual(Object.keys(files).sort(), ['.vscode/launch.json', 'README.md', 'data/train.jsonl', 'swarm_client.py']);
  const src = files['swarm_client.py']!;
  assert.match(src, /SwarmClient\(AJET_SWARM_URL\)/);
  assert.match(src, /def compute_reward/);
  assert.match(src, /experiment_name="my_swarm"/);
  for (const line of files['data/train.jsonl']!.trim().split('\n')) assert.ok((JSON.parse(line) as { task_id: string }).task_id);
  const r = spawnSync('python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], { input: src, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

test('local ajet-swarm start processes and their ports are found in a process list', async () => {
  const { localSwarmPorts } = await import('../../core/swarm/source');
  assert.deepEqual(
    localSwarmPorts([
      { args: '/venv/bin/python /venv/bin/ajet-swarm start --swarm-port 10090 --conf a.yaml' },
      { args: 'python -m ajet.swarm_cli start' },
      { args: 'python -m ajet.swarm_cli start --swarm-port=10091' },
      { args: 'ajet-swarm overwatch --swarm-url http://localhost:10092' },
      { args: 'vim ajet-swarm start --swarm-port 10093' },
    ]),
    [10086, 10090, 10091],
  );
  assert.deepEqual(localSwarmPorts([{ args: 'ajet-swarm start' }, { args: 'less ajet-swarm start' }, { args: 'ajet-swarm top' }]), [10086]);
});

test(
  "AgentJet's own swarm clients name their servers through constants: they are found",
  withUpstream('agentjet-c68c154', (dir) => {
    const urls = new Set<string>();
    for (const f of [
      'tutorial/example_math_swarm/math.py',
      'tutorial/example_train_multi_model/trans_roll.py',
      'tutorial/opencode_build_appworld_react/agent_roll.py',
    ])
      for (const c of findSwarmClientCalls(readFileSync(join(dir, f), 'utf8'))) if (c.url) urls.add(c.url);
    assert.deepEqual([...urls].sort(), ['http://22.14.56.6:10086', 'http://22.16.208.79:10086', 'http://localhost:10086']);
  }),
);
