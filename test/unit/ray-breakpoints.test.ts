// Editor breakpoints in Ray workers: the pure parts (core/ray/breakpoints.ts, the listener lines in
// core/ray/workerLog.ts). The real-Ray path is test/protocol/ray-breakpoints.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_WORKER_PATTERNS,
  ensureHookDir,
  globToRegExp,
  HOOK_FUNCTION,
  LISTENER_MARKER,
  maxSessions,
  rayBreakpointsEnv,
  DEDUP_ALLOW,
  selectWorkers,
  workerPatterns,
  type ListeningWorker,
} from '../../core/ray/breakpoints';
import { driverPrefix, listenerFromLog, parseDriverLine, WorkerLogState } from '../../core/ray/workerLog';
import { parseDoorbellAnswer, parseNamesAnswer, ringDoorbell, type WorkerNames } from '../../core/ray/doorbell';
import { DriverDoorbells, mergeListeners } from '../../core/ray/driverDoorbells';
import { createServer, type AddressInfo, type Server } from 'node:net';

const w = (key: string, names: string[]): ListeningWorker => ({ key, host: '10.0.0.1', port: Number(key), pid: 1, names, role: 'task' });

test('globs: whole name, case-insensitive, regex characters literal', () => {
  assert.ok(globToRegExp('*rollout*').test('Env_Rollout_Worker'));
  assert.ok(globToRegExp('TaskRunner*').test('TaskRunner'));
  assert.ok(!globToRegExp('TaskRunner').test('MyTaskRunner'));
  assert.ok(globToRegExp('a.b?').test('a.bc'));
  assert.ok(!globToRegExp('a.b').test('axb'));
});

test('patterns and cap from launch attributes: defaults for absent or invalid values', () => {
  assert.deepEqual(workerPatterns(undefined), [...DEFAULT_WORKER_PATTERNS]);
  assert.deepEqual(workerPatterns(['', 3]), [...DEFAULT_WORKER_PATTERNS]);
  assert.deepEqual(workerPatterns([' Foo* ']), ['Foo*']);
  assert.equal(maxSessions(2), 2);
  assert.equal(maxSessions(0), 8);
  assert.equal(maxSessions('3'), 8);
});

test('selection: matching names attach up to the cap, others are skipped with the reason, unnamed wait', () => {
  const list = [w('1', ['rollout_task']), w('2', ['helper_task']), w('3', []), w('4', ['RewardWorker']), w('5', ['TaskRunner'])];
  const sel = selectWorkers(list, DEFAULT_WORKER_PATTERNS, 2, 0, new Set());
  assert.deepEqual(
    sel.attach.map((x) => x.key),
    ['1', '4'],
  );
  assert.deepEqual(
    sel.skipped.map((s) => `${s.worker.key}:${s.reason}`),
    ['2:name', '5:cap'],
  );
  // Already decided workers are not looked at again; live sessions count against the cap.
  const again = selectWorkers(list, DEFAULT_WORKER_PATTERNS, 2, 1, new Set(['1', '2', '4']));
  assert.deepEqual(
    again.attach.map((x) => x.key),
    ['5'],
  );
  // A worker skipped for its names is looked at again once it runs something else.
  const skipped = new Set([`2|helper_task`]);
  assert.equal(selectWorkers([w('2', ['helper_task'])], DEFAULT_WORKER_PATTERNS, 8, 0, skipped).skipped.length, 0);
  assert.equal(selectWorkers([w('2', ['helper_task', 'rollout_task'])], DEFAULT_WORKER_PATTERNS, 8, 0, skipped).attach.length, 1);
  // A pooled worker that ran a non-matching task and then a matching one is attached.
  assert.equal(selectWorkers([w('6', ['helper_task', 'rollout_task'])], DEFAULT_WORKER_PATTERNS, 8, 0, new Set()).attach.length, 1);
});

test('the launch environment: hook first on PYTHONPATH, a user RAY_RUNTIME_ENV_HOOK chained', () => {
  const env = rayBreakpointsEnv('/h', { PYTHONPATH: '/a:/b', RAY_RUNTIME_ENV_HOOK: 'mine.hook' }, ':');
  assert.equal(env.PYTHONPATH, '/h:/a:/b');
  assert.equal(env.RAY_RUNTIME_ENV_HOOK, HOOK_FUNCTION);
  assert.equal(env.AGENTJET_RAY_BP_PREV_HOOK, 'mine.hook');
  assert.equal(rayBreakpointsEnv('/h', {}, ':').PYTHONPATH, '/h');
  assert.equal(rayBreakpointsEnv('/h', { RAY_RUNTIME_ENV_HOOK: HOOK_FUNCTION }, ':').AGENTJET_RAY_BP_PREV_HOOK, undefined);
});

test('the hook file is written once per content, in a folder AgentJet --autokill spares', () => {
  const root = mkdtempSync(join(tmpdir(), 'aj-hook-'));
  try {
    const a = ensureHookDir('print(1)\n', root);
    assert.equal(ensureHookDir('print(1)\n', root), a);
    assert.match(a, /agentjet-vscode-raybp-/);
    assert.equal(readFileSync(join(a, 'agentjet_ray_breakpoints.py'), 'utf8'), 'print(1)\n');
    assert.notEqual(ensureHookDir('print(2)\n', root), a);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("worker log: the hook's listener line (not Ray's own) and every task/actor name", () => {
  const s = new WorkerLogState();
  const log = { workerId: 'ab', jobId: '01', pid: 7, stream: 'err' as const };
  s.feed(`Ray debugger is listening on 127.0.0.1:4567`, 1);
  assert.equal(listenerFromLog(s, log), undefined, "Ray's own listener (a bp() pause) is not the hook's");
  s.feed(`\x1b[36mRay debugger is listening on 127.0.0.1:4567 ${LISTENER_MARKER}\x1b[0m`, 1);
  s.feed(':task_name:helper_task', 2);
  s.feed(':task_name:rollout_task', 3);
  s.feed(':task_name:rollout_task', 4);
  assert.deepEqual(listenerFromLog(s, log), {
    key: '127.0.0.1:4567',
    host: '127.0.0.1',
    port: 4567,
    pid: 7,
    names: ['helper_task', 'rollout_task'],
    role: 'task',
  });
  assert.equal(s.paused, false, 'a hook listener is not a paused worker');
  const v6 = new WorkerLogState();
  v6.feed(`Ray debugger is listening on [::1]:99 ${LISTENER_MARKER}`, 1);
  assert.equal(listenerFromLog(v6, log)?.key, '[::1]:99');
});

test("worker log: a later Ray debugger line (bp() after the doorbell) leaves the doorbell as the worker's key", () => {
  const s = new WorkerLogState();
  const log = { workerId: 'ab', jobId: '01', pid: 7, stream: 'err' as const };
  s.feed(`Ray debugger is listening on 127.0.0.1:4567 ${LISTENER_MARKER}`, 1);
  s.feed(':task_name:rollout_task', 2);
  s.feed('Ray debugger is already open on 5555', 3);
  s.feed('Waiting for debugger to attach...', 4);
  assert.equal(listenerFromLog(s, log)?.key, '127.0.0.1:4567');
  assert.equal(s.paused, true);
  assert.equal(s.port, 5555, "the paused worker is attached on debugpy's port");
});

test('doorbell answers: a port, an error, anything else', () => {
  assert.deepEqual(parseDoorbellAnswer('41234\n'), { port: 41234 });
  assert.deepEqual(parseDoorbellAnswer('error RuntimeError()'), { error: 'RuntimeError()' });
  assert.ok('error' in parseDoorbellAnswer('70000'));
  assert.ok('error' in parseDoorbellAnswer(''));
  assert.ok('error' in parseDoorbellAnswer('HTTP/1.1 400'));
});

async function serve(onLine: (line: string, reply: (s: string) => void) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((c) => {
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => {
      buf += d;
      if (buf.includes('\n')) onLine(buf.split('\n')[0]!, (x) => c.end(x));
    });
    c.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

test('ringing the doorbell: asks for debugpy, resolves with the port, rejects on an error, silence or no listener', async () => {
  const seen: string[] = [];
  const ok = await serve((line, reply) => {
    seen.push(line);
    reply('5678\n');
  });
  const bad = await serve((_l, reply) => reply("error RuntimeError('no')\n"));
  const mute = await serve(() => undefined);
  try {
    assert.equal(await ringDoorbell('127.0.0.1', ok.port), 5678);
    assert.deepEqual(seen, ['debugpy']);
    await assert.rejects(ringDoorbell('127.0.0.1', bad.port), /RuntimeError\('no'\)/);
    await assert.rejects(ringDoorbell('127.0.0.1', mute.port, 300), /within 300 ms/);
    const closed = mute.port;
    mute.server.close();
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(ringDoorbell('127.0.0.1', closed, 2000));
  } finally {
    ok.server.close();
    bad.server.close();
    mute.server.close();
  }
});

test('the hook source ends up in the bundle and as a file for tsx', () => {
  const py = readFileSync(join(__dirname, '..', '..', 'core', 'ray', 'hook', 'agentjet_ray_breakpoints.py'), 'utf8');
  assert.ok(py.includes(LISTENER_MARKER), 'the worker prints the marker the log parser looks for');
  assert.ok(py.includes('def runtime_env_hook('));
});

test("the launch environment keeps the hook's console lines out of Ray's de-duplication, with a user's own pattern kept", () => {
  assert.equal(rayBreakpointsEnv('/h', {}, ':').RAY_DEDUP_LOGS_ALLOW_REGEX, DEDUP_ALLOW);
  assert.equal(
    rayBreakpointsEnv('/h', { RAY_DEDUP_LOGS_ALLOW_REGEX: 'keep me' }, ':').RAY_DEDUP_LOGS_ALLOW_REGEX,
    `(?:keep me)|${DEDUP_ALLOW}`,
  );
  const twice = rayBreakpointsEnv('/h', { RAY_DEDUP_LOGS_ALLOW_REGEX: `(?:keep me)|${DEDUP_ALLOW}` }, ':');
  assert.equal(twice.RAY_DEDUP_LOGS_ALLOW_REGEX, `(?:keep me)|${DEDUP_ALLOW}`, 'not added twice');
  // The doorbell line itself matches it (Python `re.search` and JS agree on this plain text).
  assert.ok(new RegExp(DEDUP_ALLOW).test(`Ray debugger is listening on 10.0.0.5:4242 ${LISTENER_MARKER}`));
});

test('console lines: a doorbell relayed before the first task has no name; the prefix of later lines names the worker', () => {
  const door = parseDriverLine(`\x1b[36m(pid=19821, ip=10.0.0.5)\x1b[0m Ray debugger is listening on 10.0.0.5:36263 ${LISTENER_MARKER}`);
  assert.deepEqual(door, {
    name: undefined,
    pid: 19821,
    ip: '10.0.0.5',
    event: 'listening',
    host: '10.0.0.5',
    port: 36263,
    doorbell: true,
  });
  assert.equal(parseDriverLine('(rollout pid=7) Ray debugger is listening on 127.0.0.1:5')?.doorbell, undefined, "Ray's own listener");
  assert.deepEqual(driverPrefix('(rollout_task pid=7, ip=10.0.0.5) hello'), {
    name: 'rollout_task',
    pid: 7,
    ip: '10.0.0.5',
    rest: 'hello',
  });
  assert.equal(driverPrefix('no prefix here'), undefined);
});

test('names answers: JSON of names, role and pid; anything else is an error, never a throw', () => {
  assert.deepEqual(parseNamesAnswer('names {"names": ["rollout_task", 3, ""], "role": "task", "pid": 12}'), {
    names: ['rollout_task'],
    role: 'task',
    pid: 12,
  });
  assert.deepEqual(parseNamesAnswer('names {"names": "x", "role": "boss", "pid": -1}'), { names: [], role: undefined, pid: undefined });
  assert.deepEqual(parseNamesAnswer('error boom'), { error: 'boom' });
  for (const bad of ['names {', 'names 3', '4242', '']) assert.ok('error' in parseNamesAnswer(bad), bad);
});

test('console doorbells: found once each, named by the prefix and by asking the doorbell; attached ones are not asked; dead ones go', async () => {
  let now = 0;
  const asked: string[] = [];
  const answers = new Map<string, WorkerNames | Error>([
    ['10.0.0.5:1', { names: ['rollout_task'], role: 'task', pid: 11 }],
    ['10.0.0.5:2', { names: ['RewardWorker'], role: 'actor', pid: 12 }],
    ['10.0.0.6:3', new Error('ECONNREFUSED')],
  ]);
  const d = new DriverDoorbells(
    async (host, port) => {
      asked.push(`${host}:${port}`);
      const a = answers.get(`${host}:${port}`)!;
      if (a instanceof Error) throw a;
      return a;
    },
    () => now,
  );
  const line = (pid: number, host: string, port: number) =>
    `(pid=${pid}, ip=${host}) Ray debugger is listening on ${host}:${port} ${LISTENER_MARKER}`;
  assert.equal(d.feed(line(11, '10.0.0.5', 1)), true);
  assert.equal(d.feed(line(11, '10.0.0.5', 1)), false, 'the same doorbell again');
  d.feed(line(12, '10.0.0.5', 2));
  d.feed(line(13, '10.0.0.6', 3));
  d.feed('(pid=99) Ray debugger is listening on 10.0.0.9:9'); // Ray's own debugger: not a doorbell
  assert.deepEqual(
    d.list().map((w) => w.key),
    ['10.0.0.5:1', '10.0.0.5:2', '10.0.0.6:3'],
  );
  assert.equal(d.feed('(helper_task pid=11, ip=10.0.0.5) some output'), true);
  assert.deepEqual(d.list()[0]!.names, ['helper_task']);
  assert.equal(await d.refresh(new Set(['10.0.0.5:2'])), true);
  assert.deepEqual(asked.sort(), ['10.0.0.5:1', '10.0.0.6:3'], 'the attached doorbell is not asked');
  assert.deepEqual(d.list()[0], {
    key: '10.0.0.5:1',
    host: '10.0.0.5',
    port: 1,
    pid: 11,
    names: ['helper_task', 'rollout_task'],
    role: 'task',
  });
  asked.length = 0;
  assert.equal(await d.refresh(new Set(['10.0.0.5:2'])), false, 'asked again only after a while');
  assert.deepEqual(asked, []);
  for (let i = 0; i < 3; i++) {
    now += 10_000;
    await d.refresh(new Set());
  }
  assert.deepEqual(
    d.list().map((w) => w.key),
    ['10.0.0.5:1', '10.0.0.5:2'],
    'a doorbell that refused three times in a row is gone',
  );
});

test('merging the workers of the logs here and of the console: one per doorbell, names of both', () => {
  const a = w('1', ['rollout_task']);
  const b = { ...w('1', ['helper_task', 'rollout_task']), pid: undefined };
  assert.deepEqual(mergeListeners([a], [b, w('2', [])]), [{ ...a, names: ['rollout_task', 'helper_task'] }, w('2', [])]);
});
