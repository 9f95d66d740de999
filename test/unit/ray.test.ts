// Ray debugging cores: worker-log parsing (lines as Ray 2.58.0 writes them, checked on the real Ray
// in test/protocol/ray.test.ts), incremental watching, session lookup, bp() tags, launch additions,
// and the state-API client against a STAND-IN HTTP server on 127.0.0.1 that answers like Ray's
// dashboard (`{"result", "msg", "data": {"result": {"result": [...]}}}`): Ray's dashboard cannot run
// here (aiohttp_cors is missing from the wheel mirror).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDriverLine, parseWorkerLogName, WorkerLogState } from '../../core/ray/workerLog';
import { DEBUGGER_LINES } from '../../core/ray/dedup';
import { ConsolePaused } from '../../core/ray/consolePaused';
import { DriverDoorbells } from '../../core/ray/driverDoorbells';
import { LISTENER_MARKER } from '../../core/ray/breakpoints';
import { check, fc } from '../util/fc';
import { SessionLogWatcher } from '../../core/ray/watcher';
import {
  dashboardFromOutput,
  defaultDashboardFor,
  latestSession,
  latestSessionAsync,
  parseRayAddress,
  rayTempRoot,
  sessionForRun,
  sessionForRunAsync,
  sessionFromOutput,
} from '../../core/ray/session';
import { debugTagsArg, findBpCalls, insideDebugTags, rayLaunchAdditions, tagOnLine } from '../../core/ray/tags';
import { listPausedWorkers, nodesAlive, rowsOf, StateApiError } from '../../core/ray/stateApi';
import { waitedFor } from '../../core/ray/types';
import { waitFor } from '../util/poll';

const WAIT = 'Waiting for debugger to attach (see https://docs.ray.io/en/latest/ray-observability/ray-distributed-debugger.html)...';

test('worker log names and the pause state machine', () => {
  assert.deepEqual(parseWorkerLogName('worker-b11c7596d33f-01000000-10754.err'), {
    workerId: 'b11c7596d33f',
    jobId: '01000000',
    pid: 10754,
    stream: 'err',
  });
  assert.equal(parseWorkerLogName('python-core-worker-abc_1.log'), undefined);
  assert.equal(parseWorkerLogName('raylet.err'), undefined);
  const s = new WorkerLogState();
  for (const l of [
    ':job_id:01000000',
    ':task_name:rollout',
    '0.00s - Debugger warning: frozen modules',
    'Ray debugger is listening on 127.0.0.1:36321',
  ])
    s.feed(l, 1);
  assert.equal(s.paused, false, 'listening alone is not a pause');
  s.feed(WAIT, 5);
  assert.deepEqual([s.paused, s.name, s.role, s.host, s.port, s.waitingSince], [true, 'rollout', 'task', '127.0.0.1', 36321, 5]);
  s.feed('Debugger client is connected', 6);
  assert.equal(s.paused, false);
  s.feed('Ray debugger is already open on 36321', 7);
  s.feed(WAIT, 8);
  assert.deepEqual([s.paused, s.host, s.port, s.waitingSince], [true, '127.0.0.1', 36321, 8]);
  s.feed(':actor_name:Collector', 9);
  assert.deepEqual([s.paused, s.name, s.role], [false, 'Collector', 'actor'], 'a new task or actor ends the old pause');
  const v6 = new WorkerLogState();
  v6.feed('2026-01-01 INFO debugpy.py:64 -- Ray debugger is listening on [::1]:5678', 1);
  v6.feed(`\x1b[36mINFO\x1b[0m ${WAIT}`, 2);
  assert.deepEqual([v6.paused, v6.host, v6.port], [true, '::1', 5678], 'prefixes, colours and IPv6 are tolerated');
});

test('driver console lines relayed from workers', () => {
  assert.deepEqual(parseDriverLine('\x1b[36m(rollout pid=20434)\x1b[0m Ray debugger is listening on 127.0.0.1:54903'), {
    name: 'rollout',
    pid: 20434,
    ip: undefined,
    event: 'listening',
    host: '127.0.0.1',
    port: 54903,
  });
  assert.equal(parseDriverLine('(Actor pid=1, ip=10.0.0.5) Waiting for debugger to attach ...')?.ip, '10.0.0.5');
  assert.equal(parseDriverLine('(rollout pid=1) some other output'), undefined);
  assert.equal(parseDriverLine('Ray debugger is listening on 1.2.3.4:5'), undefined);
});

test('the watcher reads logs incrementally, merges .out/.err, drops dead workers and re-reads truncated files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-raylog-'));
  try {
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    const err = join(logs, `worker-aa11-01000000-${process.pid}.err`);
    writeFileSync(join(logs, `worker-aa11-01000000-${process.pid}.out`), ':job_id:01000000\n:task_name:rollout\n');
    writeFileSync(err, ':job_id:01000000\n:task_name:rollout\nRay debugger is listening on 127.0.0.1:40');
    const dead = 2 ** 22 + 12345;
    writeFileSync(join(logs, `worker-bb22-01000000-${dead}.err`), `:task_name:judge\nRay debugger is listening on 127.0.0.1:41\n${WAIT}\n`);
    let t = 1000;
    const w = new SessionLogWatcher(dir, { alive: (pid) => pid === process.pid, now: () => t });
    const changes: number[] = [];
    w.on('change', (p: unknown[]) => changes.push(p.length));
    assert.deepEqual(await w.scan(), [], 'a half-written line is not read; the dead worker is not listed');
    appendFileSync(err, `123\n${WAIT}\n`);
    t = 2000;
    const [p] = await w.scan();
    assert.deepEqual(
      { name: p!.name, port: p!.port, pid: p!.pid, since: p!.since, worker: p!.workerId },
      { name: 'rollout', port: 40123, pid: process.pid, since: 2000, worker: 'aa11' },
    );
    appendFileSync(err, 'Debugger client is connected\n');
    assert.deepEqual(await w.scan(), []);
    writeFileSync(err, `:task_name:again\nRay debugger is listening on 127.0.0.1:9\n${WAIT}\n`);
    assert.equal((await w.scan())[0]?.name, 'again', 'a truncated file is read from the start');
    assert.deepEqual(changes, [1, 0, 1]);
    w.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the watcher is incremental: a file event reads only the log it names, passes run one at a time, a burst is one pass', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-raylog-'));
  const logs = join(dir, 'logs');
  mkdirSync(logs);
  const dead = 2 ** 22 + 500;
  for (let i = 0; i < 200; i++) writeFileSync(join(logs, `worker-${(0x100 + i).toString(16)}-01000000-${dead + i}.out`), ':task_name:t\n');
  const mine = join(logs, `worker-aa11-01000000-${process.pid}.err`);
  writeFileSync(mine, ':task_name:rollout\n');
  // A poll that never comes during the test: only the first pass and the file events run.
  const w = new SessionLogWatcher(dir, { intervalMs: 3_600_000, fullEveryMs: 3_600_000, alive: (pid) => pid === process.pid });
  try {
    const changed = new Promise<unknown[]>((resolve) => w.on('change', resolve));
    // Several scans asked at once share passes (never two at a time) and all resolve.
    const all = await Promise.all([w.start().scan(), w.scan(), w.scan()]);
    assert.deepEqual(all, [[], [], []]);
    assert.ok(w.stats.fullPasses <= 3, `${w.stats.fullPasses} full passes for 3 requests and the start`);
    const reads = w.stats.reads;
    assert.equal(reads, 201, 'every log is read once');
    appendFileSync(mine, `Ray debugger is listening on 127.0.0.1:40\n${WAIT}\n`);
    const [p] = (await changed) as { port: number }[];
    assert.equal(p?.port, 40, 'the file event alone found the pause');
    assert.equal(w.stats.reads - reads, 1, 'only the log that changed was read again');
    assert.ok(w.stats.partialPasses >= 1);
    const before = w.stats.fullPasses;
    await waitFor(() => w.stats.fullPasses === before && w.paused.length === 1, 'no full pass for a file event');
  } finally {
    w.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('which session and dashboard a run uses', async () => {
  assert.equal(rayTempRoot({ RAY_TMPDIR: '/x' }), '/x/ray');
  assert.equal(rayTempRoot({ TMPDIR: '/y' }, 'linux'), '/y/ray');
  assert.equal(rayTempRoot({}, 'linux'), '/tmp/ray');
  const root = mkdtempSync(join(tmpdir(), 'aj-rayroot-'));
  try {
    assert.equal(latestSession(root), undefined);
    const name = 'session_2026-11-23_13-49-10_475145_20055';
    mkdirSync(join(root, name));
    symlinkSync(name, join(root, 'session_latest'));
    assert.equal(latestSession(root), join(root, name));
    const started = new Date(2026, 10, 23, 13, 49, 10).getTime();
    assert.equal(sessionForRun(root, started - 1000, false), join(root, name));
    assert.equal(sessionForRun(root, started + 60_000, false), undefined, "an older session is not the run's own");
    assert.equal(sessionForRun(root, started + 60_000, true), join(root, name), 'unless the run joins an existing Ray');
    // The extension host's versions answer the same without blocking.
    assert.equal(await latestSessionAsync(root), join(root, name));
    assert.equal(await sessionForRunAsync(root, started - 1000, false), join(root, name));
    assert.equal(await sessionForRunAsync(root, started + 60_000, false), undefined);
    assert.equal(await sessionForRunAsync(root, started + 60_000, true), join(root, name));
    assert.equal(await latestSessionAsync(join(root, 'none')), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  assert.equal(
    sessionFromOutput('ray session: /tmp/ajr-x/session_2026-11-23_13-49-10_475145_20055'),
    '/tmp/ajr-x/session_2026-11-23_13-49-10_475145_20055',
  );
  assert.equal(
    dashboardFromOutput(
      '2026 INFO worker.py:2024 -- Started a local Ray instance. View the dashboard at \x1b[1m\x1b[32mhttp://127.0.0.1:8265 \x1b[39m\x1b[22m',
    ),
    'http://127.0.0.1:8265',
  );
  assert.equal(dashboardFromOutput('Started a local Ray instance.'), undefined);
  assert.deepEqual(parseRayAddress('http://head:8265/'), { dashboard: 'http://head:8265', gcs: undefined, local: false });
  assert.deepEqual(parseRayAddress('10.0.0.1:6379'), { dashboard: undefined, gcs: '10.0.0.1:6379', local: false });
  assert.equal(parseRayAddress('auto').local, true);
  assert.equal(defaultDashboardFor('10.0.0.1:6379'), 'http://10.0.0.1:8265');
});

test('bp() tags in Python source and what a Ray debug launch adds', () => {
  const src =
    'from ajet import bp\n# bp("OLD")\nx = 1; bp("ROLLOUT")\n    bp(\'JUDGE\')  # bp("NOT")\nvscode_conditional_breakpoint(tag="V")\nbp(name)\n';
  assert.deepEqual(
    findBpCalls(src).map((c) => [c.tag, c.line]),
    [
      ['ROLLOUT', 2],
      ['JUDGE', 3],
      ['V', 4],
    ],
  );
  assert.equal(tagOnLine('    bp("ROLLOUT")'), 'ROLLOUT');
  assert.equal(debugTagsArg(['A', 'B', 'A', ' ', 'x|y', 3]), 'A|B');
  assert.equal(debugTagsArg('A|B'), 'A|B');
  const allow = { RAY_DEDUP_LOGS_ALLOW_REGEX: DEBUGGER_LINES };
  assert.deepEqual(rayLaunchAdditions(true, undefined, []), { env: { RAY_DEBUG: '1', ...allow }, args: [] });
  assert.deepEqual(rayLaunchAdditions(undefined, ['T1', 'T2'], []), {
    env: { RAY_DEBUG: '1', ...allow, DEBUG_TAGS: 'T1|T2', RAY_DEBUG_POST_MORTEM: '1' },
    args: ['--debug', 'T1|T2'],
  });
  assert.equal(
    rayLaunchAdditions(true, [], [], { RAY_DEDUP_LOGS_ALLOW_REGEX: 'mine' }).env.RAY_DEDUP_LOGS_ALLOW_REGEX,
    `(?:mine)|${DEBUGGER_LINES}`,
    "the user's own pattern is kept",
  );
  assert.deepEqual(rayLaunchAdditions(true, ['T'], ['--debug=X']).args, [], 'an explicit --debug wins');
  assert.deepEqual(rayLaunchAdditions(false, [], []), { env: {}, args: [] });
  const launch = '{ "configurations": [{ "rayDebug": true, "debugTags": ["A", ';
  assert.equal(insideDebugTags(launch, launch.length), true);
  assert.equal(insideDebugTags(`${launch}"B"], "args": [`, launch.length + 16), false, 'after the array closed');
  assert.equal(insideDebugTags('{ "args": [', 11), false);
  assert.equal(waitedFor(0, 5_000), '5 s');
  assert.equal(waitedFor(0, 3_900_000), '1 h 5 min');
});

/** STAND-IN for Ray's dashboard state API (not Ray): fixed answers in Ray 2.58's shapes. */
function standInDashboard(
  routes: Record<string, (q: URLSearchParams) => unknown>,
  delayMs = 0,
): Promise<{ url: string; server: Server; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push(`${u.pathname}?${u.searchParams.toString()}`);
    const route = routes[u.pathname];
    const send = (): void => {
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('404: Not Found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(route(u.searchParams)));
    };
    if (delayMs) setTimeout(send, delayMs);
    else send();
  });
  return new Promise((res) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      res({ url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`, server, seen });
    }),
  );
}

const wrap = (rows: unknown[]): unknown => ({
  result: true,
  msg: '',
  data: {
    result: {
      total: rows.length,
      num_after_truncation: rows.length,
      num_filtered: rows.length,
      result: rows,
      partial_failure_warning: null,
      warnings: null,
    },
  },
});

test('state API (stand-in dashboard): paused workers joined with their tasks, nodes alive, errors', async () => {
  const { url, server, seen } = await standInDashboard({
    '/api/v0/workers': () =>
      wrap([
        {
          worker_id: 'w1',
          is_alive: true,
          worker_type: 'WORKER',
          node_id: 'n1',
          ip: '10.0.0.7',
          pid: 4242,
          debugger_port: 51000,
          num_paused_threads: 1,
          extra_future_field: 1,
        },
        {
          worker_id: 'w2',
          is_alive: true,
          worker_type: 'WORKER',
          node_id: 'n1',
          ip: '10.0.0.7',
          pid: 4243,
          debugger_port: null,
          num_paused_threads: 0,
        },
        { worker_id: 'w3', is_alive: true, node_id: 'n2', ip: '10.0.0.8', pid: 77, debugger_port: 51001, num_paused_threads: 0 },
      ]),
    '/api/v0/tasks': () =>
      wrap([
        {
          task_id: 't1',
          name: 'Collector.add',
          func_or_class_name: 'Collector.add',
          actor_id: 'a1',
          type: 'ACTOR_TASK',
          worker_id: 'w1',
          worker_pid: 4242,
          is_debugger_paused: true,
          start_time_ms: 1000,
        },
      ]),
    '/api/v0/nodes': () =>
      wrap([
        { node_id: 'n1', state: 'ALIVE' },
        { node_id: 'n2', state: 'ALIVE' },
        { node_id: 'n3', state: 'DEAD' },
      ]),
  });
  try {
    const paused = await listPausedWorkers(url, { timeoutMs: 2000 });
    assert.deepEqual(
      paused.map((p) => ({
        name: p.name,
        role: p.role,
        host: p.host,
        port: p.port,
        pid: p.pid,
        node: p.node,
        since: p.since,
        source: p.source,
      })),
      [{ name: 'Collector.add', role: 'actor', host: '10.0.0.7', port: 51000, pid: 4242, node: 'n1', since: 1000, source: 'state-api' }],
    );
    assert.ok(
      seen.some((s) => s.startsWith('/api/v0/tasks?') && s.includes('filter_keys=is_debugger_paused')),
      'asks for paused tasks',
    );
    assert.equal(await nodesAlive(url), 2);
  } finally {
    server.close();
  }
  // A dashboard without the state API, a slow one, and none at all: clear errors, no hang.
  const bare = await standInDashboard({});
  try {
    await assert.rejects(listPausedWorkers(bare.url), (e: Error) => e instanceof StateApiError && /HTTP 404|not JSON/.test(e.message));
  } finally {
    bare.server.close();
  }
  const slow = await standInDashboard({ '/api/v0/workers': () => wrap([]) }, 1500);
  try {
    await assert.rejects(listPausedWorkers(slow.url, { timeoutMs: 200 }), /no answer within 200 ms/);
  } finally {
    slow.server.closeAllConnections();
    slow.server.close();
  }
  await assert.rejects(nodesAlive('http://127.0.0.1:1', { timeoutMs: 1000 }), /not reachable/);
  assert.match(String(rowsOf({ result: false, msg: 'DataSourceUnavailable' })), /refused: DataSourceUnavailable/);
  assert.match(String(rowsOf({ result: true, data: {} })), /no data.result list/);
});

test('console: a worker paused at bp() on another node, from the lines Ray relays; it resumes on "connected" or a new task', () => {
  let now = 1000;
  const c = new ConsolePaused('console', () => now);
  const ip = ', ip=10.0.0.7';
  assert.equal(c.feed(`\x1b[36m(rollout pid=42${ip})\x1b[0m Ray debugger is listening on 10.0.0.7:5678`), false, 'listening is not paused');
  assert.equal(c.feed(`(rollout pid=42${ip}) Waiting for debugger to attach (see https://docs.ray.io/...)...`), true);
  assert.deepEqual(c.list(), [
    {
      id: 'output:42:10.0.0.7:5678',
      source: 'output',
      name: 'rollout',
      role: undefined,
      node: '10.0.0.7',
      pid: 42,
      workerId: undefined,
      host: '10.0.0.7',
      port: 5678,
      kind: 'unknown',
      tag: undefined,
      since: 1000,
      origin: 'console',
    },
  ]);
  assert.equal(c.feed(`(rollout pid=42${ip}) some print while waiting`), false);
  assert.equal(c.feed(`(rollout pid=42${ip}) Debugger client is connected`), true);
  assert.deepEqual(c.list(), []);
  // Paused again later: "already open on PORT" (no host: the prefix's ip).
  now = 2000;
  c.feed(`(judge pid=42${ip}) Ray debugger is already open on 5678`);
  assert.equal(c.feed(`(judge pid=42${ip}) Waiting for debugger to attach...`), true);
  assert.equal(c.list()[0]!.name, 'judge');
  assert.equal(c.list()[0]!.since, 2000);
  assert.equal(c.feed(`(next_task pid=42${ip}) hello`), true, 'a line under another task: it runs again');
  assert.deepEqual(c.list(), []);
  // Workers on the driver's node have no ip; doorbells and unprefixed lines are not paused workers.
  c.feed(`(rollout pid=7) Ray debugger is listening on 127.0.0.1:4000 (agentjet: editor breakpoints, doorbell)`);
  c.feed('Waiting for debugger to attach');
  assert.deepEqual(c.list(), []);
});

test('property: any console lines (relayed Ray lines mixed with junk) never throw; paused rows and doorbells are well-formed', () => {
  const piece = fc.oneof(
    fc.constantFrom(
      '(rollout pid=42) ',
      '(pid=7, ip=10.0.0.7) ',
      '\x1b[36m(judge pid=9, ip=[::1])\x1b[0m ',
      'Ray debugger is listening on 10.0.0.7:5678',
      'Ray debugger is listening on [::1]:99999',
      'Ray debugger is already open on 5678',
      'Waiting for debugger to attach',
      'Debugger client is connected',
      ` ${LISTENER_MARKER}`,
      ' [repeated 3x across cluster]',
      '\r',
    ),
    fc.string({ maxLength: 20 }),
  );
  const line = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
  check(
    fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
      const paused = new ConsolePaused('console', () => 1);
      const doors = new DriverDoorbells(async () => ({ names: [], role: undefined, pid: undefined }));
      for (const l of lines) {
        paused.feed(l);
        doors.feed(l);
      }
      for (const w of paused.list())
        assert.ok(Number.isInteger(w.port) && w.port >= 1 && w.port <= 65535 && w.host !== '' && w.pid! >= 0, JSON.stringify(w));
      for (const d of doors.list()) assert.ok(d.port >= 1 && d.port <= 65535, JSON.stringify(d));
      const keys = doors.list().map((d) => d.key);
      assert.equal(new Set(keys).size, keys.length, 'one row per doorbell');
    }),
    300,
  );
});
