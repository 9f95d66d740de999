// Swarm mode against AgentJet 0.0.4's REAL swarm server (test/fixtures/swarm, started the way
// `ajet-swarm start` does), inside a loopback-only network namespace because it binds 0.0.0.0.
// The engine's side is played over the server's HTTP API with AgentJet's own functions, episodes
// are run by AgentJet's real SwarmClient. Covers: every engine state through `agentjet swarm
// status --format json`, a batch with rewards, stop engine, two servers, a server that dies
// mid-watch, a refused port and a server that never answers.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { renderTemplate } from '../../core/templates';
import { ensureTestPython } from '../harness/python';
import { runSwarm } from '../../cli/swarm';
import { ENGINE_STATES, SwarmApi, type SwarmStatus } from '../../core/swarm/api';
import { SwarmWatcher } from '../../core/swarm/watcher';
import { episodesByClient, taskRows } from '../../core/swarm/model';
import { claimedEpisodesFromOutput, clientOfEpisode, resolveEditorClients } from '../../core/swarm/editorClient';
import { loopbackOnly, netnsUnavailable, NETNS_ENV, rerunInNetns } from '../util/rayLocal';
import { freePort } from '../util/net';
import { waitFor } from '../util/poll';
import { UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import {
  runSwarmClient,
  runSwarmScript,
  startEngine,
  startSwarmServer,
  swarmTrees,
  SWARM_TREE,
  type Engine,
  type SwarmServer,
} from '../util/swarmLocal';
import { skipForEnvironment } from '../util/envSkip';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string; ms: number }> {
  let out = '';
  let err = '';
  const t0 = Date.now();
  const code = await runSwarm(
    args,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err, ms: Date.now() - t0 };
}

async function statusJson(url: string): Promise<SwarmStatus> {
  const r = await cli(['status', '--url', url, '--format', 'json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as SwarmStatus;
}

if (!swarmTrees()) {
  test('swarm server tests', (t) => void skipForEnvironment(t, `${UPSTREAM_SKIP_TAG} ${SWARM_TREE} missing; ${UPSTREAM_SKIP}`));
} else if (!loopbackOnly() && process.env[NETNS_ENV] !== '1') {
  test('swarm mode on the real swarm server (re-run in a loopback-only network namespace)', { timeout: 300_000 }, async (t) => {
    if (skipForEnvironment(t, netnsUnavailable())) return;
    assert.equal((await rerunInNetns(__filename)).code, 0, 'the swarm tests failed in the namespace (output above)');
  });
} else {
  describe('swarm server (real AgentJet 0.0.4)', { timeout: 240_000 }, () => {
    const python = ensureTestPython().python;
    let a: SwarmServer;
    let engine: Engine;
    const docs: Record<string, SwarmStatus> = {};

    before(async () => {
      a = await startSwarmServer(python);
      engine = startEngine(python, a);
    });
    after(async () => {
      await engine?.dispose();
      await a?.dispose();
      if (process.env.AGENTJET_SWARM_DOCS) writeFileSync(process.env.AGENTJET_SWARM_DOCS, JSON.stringify(docs, null, 2));
    });

    test('a fresh server is ENGINE.OFFLINE, with an empty pool and no experiment folder', async () => {
      const s = await statusJson(a.url);
      assert.equal(s.engine_status, 'ENGINE.OFFLINE');
      assert.equal(s.global_step, null);
      assert.equal(s.server_experiment_dir, null);
      assert.equal(s.pool.completed_episodes, 0);
      assert.deepEqual(s.pool.swarm_client_instruction.active_clients, []);
      docs['ENGINE.OFFLINE'] = s;
      const text = await cli(['status', '--url', a.url]);
      assert.equal(text.code, 0);
      assert.match(text.out, /ENGINE\.OFFLINE/);
    });

    test('every engine state the trainer sets is what status reports, with its global step', async () => {
      let step = 0;
      for (const st of ENGINE_STATES) {
        if (st === 'ENGINE.OFFLINE') continue;
        if (st === 'ENGINE.WEIGHT_SYNCING') step++;
        await engine.state(st, step, st === 'ENGINE.BOOTING' ? 'loading model' : undefined);
        const s = await statusJson(a.url);
        assert.equal(s.engine_status, st);
        assert.equal(s.global_step, step);
        assert.equal(s.pool.engine_status, st);
        if (st !== 'ENGINE.ROLLING') docs[st] = s;
      }
      await engine.state('ENGINE.OFFLINE', 0);
      assert.equal((await statusJson(a.url)).engine_status, 'ENGINE.OFFLINE');
    });

    test('a batch run by the real SwarmClient: progress, per-task rewards, active client, reward history across a weight sync', async () => {
      const w = new SwarmWatcher(a.url, { fastMs: 100, slowMs: 100 });
      w.start();
      try {
        await engine.state('ENGINE.ROLLING', 1);
        assert.ok((await engine.send({ op: 'batch', method: 'rollout_until_finish_enough_tasks', tasks: 2, repeat: 2 })).ok);
        const reg = await engine.send({ op: 'register', n: 4 });
        assert.equal(reg.episodes?.length, 4, reg.error);
        assert.ok((await engine.send({ op: 'log', tag: 'update_policy', message: 'step 1 <b>not html</b>' })).ok);
        const client = runSwarmClient(python, a.url, 4);
        const done = await client.done;
        assert.equal(done.code, 0, done.output.slice(-3000));
        assert.equal((await engine.send({ op: 'wait_done', n: 4, timeout: 30 })).done, 4);
        const s = await waitFor(
          async () => {
            const x = await statusJson(a.url);
            return x.pool.completed_episodes === 4 ? x : undefined;
          },
          'the pool to show 4 episodes',
          20_000,
          100,
        );
        assert.equal(s.engine_status, 'ENGINE.ROLLING');
        assert.equal(s.pool.completed_tasks, 2);
        assert.equal(s.pool.completed_task_target, 2);
        assert.deepEqual(
          s.pool.swarm_client_instruction.active_clients.map((c) => c.client_uuid),
          [done.clientUuid],
        );
        const rows = taskRows(s.pool);
        assert.deepEqual(
          rows.map((r) => [r.taskId, r.episodes, r.mean]),
          [
            ['task-0', 2, 0.5],
            ['task-1', 2, 0.5],
          ],
        );
        docs['ENGINE.ROLLING'] = s;
        const api = new SwarmApi(a.url);
        const llm = await api.latestLlmCall();
        assert.ok(llm, 'the server relayed an LLM call');
        assert.match(JSON.stringify(llm.output), /boxed\{4\}/);
        assert.deepEqual(
          (await api.verboseLogs()).map((e) => [e.tag, e.message]),
          [['update_policy', 'step 1 <b>not html</b>']],
        );
        await waitFor(() => w.model.rewards.points().length === 1 || undefined, 'a reward point for step 1', 10_000, 50);
        // Weight sync: the server resets the batch; the history keeps step 1.
        await engine.state('ENGINE.ROLLING_POST', 1);
        await engine.state('ENGINE.WEIGHT_SYNCING', 2);
        await engine.state('ENGINE.ROLLING', 2);
        await waitFor(
          () => (w.model.engineState === 'ENGINE.ROLLING' && w.model.status?.global_step === 2) || undefined,
          'step 2',
          10_000,
          50,
        );
        assert.deepEqual(w.model.rewards.points(), [{ step: 1, mean: 0.5, episodes: 4 }]);
        const after = await statusJson(a.url);
        assert.deepEqual(after.pool.swarm_client_instruction.active_clients, [], 'leaving ROLLING resets the active clients');
      } finally {
        w.stop();
      }
    });

    test('the `swarm` project template runs as written: its episodes end on the real server', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ajsw-tpl-'));
      try {
        for (const [rel, text] of Object.entries(renderTemplate('swarm', 'tpl'))) {
          mkdirSync(dirname(join(dir, rel)), { recursive: true });
          writeFileSync(join(dir, rel), text);
        }
        const before = (await statusJson(a.url)).pool.completed_episodes;
        assert.equal((await engine.send({ op: 'register', n: 2 })).episodes?.length, 2);
        const r = await runSwarmScript(python, a.url, join(dir, 'swarm_client.py'), ['--episodes', '2']);
        assert.equal(r.code, 0, r.output.slice(-3000));
        assert.match(r.output, /episode 2: task add-1 reward 0\.0/);
        await waitFor(
          async () => (await statusJson(a.url)).pool.completed_episodes === before + 2 || undefined,
          'two more episodes',
          20_000,
          100,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('two real SwarmClients at once: episodes by client, and each client found from its own log or its uuid prefix', async () => {
      await engine.state('ENGINE.ROLLING', 3);
      // Targets above what the clients complete: the batch stays open and the pool keeps its episodes.
      assert.ok((await engine.send({ op: 'batch', method: 'rollout_until_finish_enough_tasks', tasks: 4, repeat: 2 })).ok);
      const before = (await engine.send({ op: 'wait_done', n: 0, timeout: 0 })).done ?? 0;
      assert.equal((await engine.send({ op: 'register', n: 4 })).episodes?.length, 4);
      const [ours, theirs] = await Promise.all([
        runSwarmClient(python, a.url, 2, 'ours').done,
        runSwarmClient(python, a.url, 2, 'theirs').done,
      ]);
      assert.equal(ours.code, 0, ours.output.slice(-3000));
      assert.equal(theirs.code, 0, theirs.output.slice(-3000));
      assert.notEqual(ours.clientUuid, theirs.clientUuid);
      assert.equal((await engine.send({ op: 'wait_done', n: before + 4, timeout: 30 })).done, before + 4);
      const s = await waitFor(
        async () => {
          const x = await statusJson(a.url);
          return x.pool.completed_episodes === 4 ? x : undefined;
        },
        'the pool to show the 4 episodes',
        // Read from the real server: on a loaded 2-core machine it once took over 20 s.
        60_000,
        100,
      );
      // The client's verbose log names the episodes it claimed; the pool names their client.
      const claimed = claimedEpisodesFromOutput(ours.output);
      assert.equal(claimed.length, 2, ours.output.slice(-3000));
      assert.deepEqual(
        claimed.map((e) => clientOfEpisode(s.pool, e)),
        [undefined, undefined],
        'without a throttle policy the server keeps no client of an ended episode',
      );
      assert.deepEqual(s.pool.completed_tasks_client_uuids, {});
      // Per client, what the server reports: both active, nothing running, completions not said.
      const rows = episodesByClient(s.pool);
      for (const c of [ours, theirs]) {
        const row = rows.find((r) => r.client === c.clientUuid);
        assert.ok(row, `a row for ${c.clientUuid}: ${JSON.stringify(rows)}`);
        assert.deepEqual(
          { running: row.running, completed: row.completed, active: row.active, mean: row.mean },
          { running: 0, completed: undefined, active: true, mean: undefined },
        );
      }
      // The editor's client, its episodes known from its log: completions, task and rewards are exact
      // (the trainer's episode uuids and rewards per task), rewards 1 then 0.
      const mine = episodesByClient(s.pool, new Map([[ours.clientUuid, claimed]])).find((r) => r.client === ours.clientUuid);
      assert.deepEqual(
        { completed: mine?.completed, tasks: mine?.tasks, mean: mine?.mean, rewarded: mine?.rewarded, lastReward: mine?.lastReward },
        { completed: 2, tasks: 1, mean: 0.5, rewarded: 2, lastReward: 0 },
      );
      // The uuid prefix in the name of its poll thread (what debugpy reports) finds the same client.
      assert.deepEqual(resolveEditorClients(s.pool, { prefixes: [ours.clientUuid.slice(0, 8)], episodes: [] }), [ours.clientUuid]);
      assert.deepEqual(resolveEditorClients(s.pool, { prefixes: ['00000000'], episodes: ['not-an-episode'] }), []);
    });

    test('stop engine brings the server back to ENGINE.OFFLINE', async () => {
      await new SwarmApi(a.url).stopEngine();
      assert.equal((await statusJson(a.url)).engine_status, 'ENGINE.OFFLINE');
    });

    test('two servers are watched independently; one dying mid-watch ends `swarm watch` with exit 1 and one line', async () => {
      const b = await startSwarmServer(python);
      const eb = startEngine(python, b);
      try {
        await eb.state('ENGINE.BOOTING', 0);
        const wa = new SwarmWatcher(a.url, { fastMs: 100 });
        const wb = new SwarmWatcher(b.url, { fastMs: 100 });
        wa.start();
        wb.start();
        await waitFor(() => (wa.model.engineState && wb.model.engineState) || undefined, 'both servers', 10_000, 50);
        assert.equal(wa.model.engineState, 'ENGINE.OFFLINE');
        assert.equal(wb.model.engineState, 'ENGINE.BOOTING');
        wa.stop();
        wb.stop();
        let out = '';
        let err = '';
        const watching = runSwarm(
          ['watch', '--url', b.url, '--interval', '0.2'],
          (s) => (out += s),
          (s) => (err += s),
        );
        await waitFor(() => out.includes('ENGINE.BOOTING') || undefined, 'watch to show BOOTING', 10_000, 50);
        await eb.state('ENGINE.ROLLING', 0);
        await waitFor(() => out.includes('ENGINE.ROLLING') || undefined, 'watch to show ROLLING', 10_000, 50);
        const t0 = Date.now();
        await b.dispose();
        assert.equal(await watching, 1);
        assert.ok(Date.now() - t0 < 10_000, 'watch noticed within seconds');
        assert.match(err, /stopped answering/);
        assert.equal(err.trim().split('\n').length, 1, err);
      } finally {
        await eb.dispose();
        await b.dispose();
      }
    });
  });
}

describe('swarm CLI without a server', () => {
  let slow: Server | undefined;
  after(() => slow?.close());

  test('a refused connection: exit 1 within seconds, one line', async () => {
    const port = await freePort();
    const r = await cli(['status', '--url', `http://127.0.0.1:${port}`]);
    assert.equal(r.code, 1);
    assert.match(r.err, /connection refused/);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.ok(r.ms < 5000, `${r.ms} ms`);
    const w = await cli(['watch', '--url', `http://127.0.0.1:${port}`]);
    assert.equal(w.code, 1);
    assert.match(w.err, /connection refused/);
  });

  test('a server that never answers: exit 1 after the timeout; the poller never stacks requests', async () => {
    let received = 0;
    let open = 0;
    slow = createServer((req) => {
      received++;
      open++;
      req.on('close', () => open--);
    });
    await new Promise<void>((r) => slow!.listen(0, '127.0.0.1', r));
    const port = (slow.address() as { port: number }).port;
    const r = await cli(['status', '--url', `http://127.0.0.1:${port}`, '--timeout', '1']);
    assert.equal(r.code, 1);
    assert.match(r.err, /no answer within 1000 ms/);
    assert.ok(r.ms < 4000, `${r.ms} ms`);
    await waitFor(() => open === 0 || undefined, 'the timed-out request to close', 5000, 20);
    received = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const counting: typeof fetch = async (input, init) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const w = new SwarmWatcher(`http://127.0.0.1:${port}`, { fastMs: 10, slowMs: 10, timeoutMs: 600, fetchImpl: counting });
    const t0 = Date.now();
    w.start();
    for (let i = 0; i < 50; i++) {
      w.refresh();
      await new Promise((res) => setTimeout(res, 10));
    }
    await waitFor(() => w.model.reachability === 'error' || undefined, 'the timeout', 5000, 20);
    w.stop();
    const elapsed = Date.now() - t0;
    assert.equal(maxInFlight, 1, 'one request at a time');
    // Each request waits out its 600 ms before the next starts, however slowly this machine ran the
    // 50 refreshes: no more than one per 600 ms (500 here for timer slack), never one per refresh.
    assert.ok(received <= 1 + Math.floor(elapsed / 500), `${received} requests in ${elapsed} ms`);
    assert.match(w.model.error ?? '', /no answer/);
  });

  test('bad usage: exit 2', async () => {
    assert.equal((await cli(['status', '--url', 'ftp://x'])).code, 2);
    assert.equal((await cli(['status', '--format', 'xml'])).code, 2);
    assert.equal((await cli(['nope'])).code, 2);
  });
});
