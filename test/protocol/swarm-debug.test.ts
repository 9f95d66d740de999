// Debugging a swarm client (`"swarmClient": "client.py"`) over DAP against AgentJet 0.0.4's REAL
// swarm server (test/util/swarmLocal.ts), inside a loopback-only network namespace because the
// server binds 0.0.0.0. The client script is AgentJet's real SwarmClient running one episode; the
// test stops in its workflow function while the episode is open on the server, then lets it end.
// Also: a server that is not there refuses the launch with the reason, and nothing starts.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { adapterJs, lineOf } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { listProcesses } from '../../core/launch/processes';
import { loopbackOnly, netnsUnavailable, NETNS_ENV, rerunInNetns } from '../util/rayLocal';
import { freePort } from '../util/net';
import { UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import { SwarmApi } from '../../core/swarm/api';
import { claimedEpisodesFromOutput, clientPrefixesFromThreads, resolveEditorClients } from '../../core/swarm/editorClient';
import { startEngine, startSwarmServer, swarmFixture, swarmTrees, SWARM_TREE, type Engine, type SwarmServer } from '../util/swarmLocal';
import { skipForEnvironment } from '../util/envSkip';

const TIMEOUT = 60_000;

/** A swarm client as users write it: SwarmClient("http://…") literal, a workflow, one episode. */
function clientScript(dir: string, url: string): string {
  const trees = swarmTrees()!;
  const file = join(dir, 'my_swarm_client.py');
  writeFileSync(
    file,
    [
      'import sys',
      `sys.path.insert(0, ${JSON.stringify(swarmFixture)})`,
      'from common import client_standins, setup',
      `setup(${JSON.stringify(trees.agentjet)}, ${JSON.stringify(trees.beast)})`,
      'client_standins()',
      'import httpx',
      'from ajet.schema.task import Task, WorkflowOutput',
      'from ajet.tuner_lib.experimental.swarm_client import SwarmClient',
      '',
      '',
      'def workflow(task, base_url, api_key):',
      '    resp = httpx.post(f"{base_url}/chat/completions", json={"model": "any", "messages": [{"role": "user", "content": task.main_query}]},',
      '                      headers={"Authorization": f"Bearer {api_key}"}, timeout=30)',
      '    answer = resp.json()["choices"][0]["message"]["content"]',
      '    reward = 1.0 if "\\\\boxed{4}" in answer else 0.0  # BREAK',
      '    return WorkflowOutput(reward=reward, metadata={"answer": answer})',
      '',
      '',
      `client = SwarmClient(${JSON.stringify(url)})`,
      'task = Task(task_id="dbg-0", main_query="2 + 2 = ?", metadata={"answer": "4"})',
      'episode_uuid, key = client.begin_episode(discard_episode_timeout=60)',
      'out = workflow(task, key.base_url, key.api_key)',
      'client.end_episode(task, episode_uuid, out)',
      'print(f"ENDED {episode_uuid} {out.reward}", flush=True)',
      '',
    ].join('\n'),
  );
  return file;
}

function client(): DebugClient {
  const dc = new DebugClient('node', adapterJs, 'agentjet');
  dc.defaultTimeout = TIMEOUT;
  return dc;
}

if (!swarmTrees()) {
  test('swarm client debugging', (t) => void skipForEnvironment(t, `${UPSTREAM_SKIP_TAG} ${SWARM_TREE} missing; ${UPSTREAM_SKIP}`));
} else if (!loopbackOnly() && process.env[NETNS_ENV] !== '1') {
  test('swarm client debugging on the real swarm server (re-run in a loopback-only network namespace)', { timeout: 180_000 }, async (t) => {
    if (skipForEnvironment(t, netnsUnavailable())) return;
    assert.equal((await rerunInNetns(__filename)).code, 0, 'the swarm client debug tests failed in the namespace (output above)');
  });
} else {
  describe('debugging a swarm client (real AgentJet 0.0.4 server)', { timeout: 150_000 }, () => {
    const python = ensureTestPython().python;
    let server: SwarmServer;
    let engine: Engine;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'aj-swdbg-'));
      server = await startSwarmServer(python);
      engine = startEngine(python, server);
    });
    after(async () => {
      await engine?.dispose();
      await server?.dispose();
      rmSync(dir, { recursive: true, force: true });
    });

    test('stops in the workflow while the episode is open on the server; the engine state is in the Debug Console; continue ends it', async () => {
      await engine.state('ENGINE.ROLLING', 3);
      assert.ok((await engine.send({ op: 'batch', method: 'rollout_until_finish_enough_tasks', tasks: 1, repeat: 1 })).ok);
      assert.equal((await engine.send({ op: 'register', n: 1 })).episodes?.length, 1);
      const script = clientScript(dir, server.url);
      const line = lineOf(script, '# BREAK');
      const dc = client();
      const outputs: DebugProtocol.OutputEvent[] = [];
      dc.on('output', (e: DebugProtocol.OutputEvent) => outputs.push(e));
      const threadEvents: DebugProtocol.ThreadEvent[] = [];
      dc.on('thread', (e: DebugProtocol.ThreadEvent) => threadEvents.push(e));
      await dc.start();
      try {
        await dc.hitBreakpoint({ swarmClient: script, cwd: dir, python }, { path: script, line });
        const text = outputs.map((o) => o.body.output).join('');
        assert.match(text, new RegExp(`Swarm server ${server.url.replace(/[.:/]/g, '\\$&')}`));
        assert.match(text, /ENGINE\.ROLLING/);
        assert.match(text, new RegExp(`my_swarm_client\\.py  \\(cwd ${dir.replace(/[.:/]/g, '\\$&')}`));
        const threadId = (await dc.threadsRequest()).body.threads[0]!.id;
        const top = (await dc.stackTraceRequest({ threadId })).body.stackFrames[0]!;
        assert.equal(top.name, 'workflow');
        assert.equal(top.line, line);
        assert.equal(top.source?.path, script);
        const ev = await dc.evaluateRequest({ expression: 'answer', frameId: top.id, context: 'repl' });
        assert.match(ev.body.result, /boxed\{4\}/, 'the LLM answer relayed by the real server');
        // While stopped the episode is still running on the server.
        const pool = (await (await fetch(`${server.url}/get_current_batch_rollout_pool_information`)).json()) as {
          completed_episodes: number;
        };
        assert.equal(pool.completed_episodes, 0);
        // Which client is this session's (what the overwatch marks): debugpy's thread list names
        // SwarmClient's poll thread with the uuid prefix, the client logged its claim, and the
        // server's pool names the client of the running episode; all three agree.
        const threads = (await dc.threadsRequest()).body.threads;
        const prefixes = clientPrefixesFromThreads(threads.map((x) => x.name));
        assert.equal(prefixes.length, 1, JSON.stringify(threads.map((x) => x.name)));
        assert.ok(
          threadEvents.some((e) => e.body.reason === 'started'),
          'debugpy reports thread starts (the extension asks for names then)',
        );
        const live = await new SwarmApi(server.url).pool();
        const running = Object.entries(live.running_episode_details ?? {});
        assert.equal(running.length, 1);
        const [episode, detail] = running[0]!;
        assert.ok(String(detail.client_uuid).startsWith(prefixes[0]!));
        assert.deepEqual(resolveEditorClients(live, { prefixes, episodes: [] }), [detail.client_uuid]);
        const claimed = claimedEpisodesFromOutput(outputs.map((o) => o.body.output).join(''));
        assert.deepEqual(claimed, [episode], 'the client logged its claim');
        assert.deepEqual(resolveEditorClients(live, { prefixes: [], episodes: claimed }), [detail.client_uuid]);
        await Promise.all([dc.continueRequest({ threadId }), dc.waitForEvent('terminated')]);
        assert.equal((await engine.send({ op: 'wait_done', n: 1, timeout: 30 })).done, 1);
        assert.match(outputs.map((o) => o.body.output).join(''), /ENDED \S+ 1\.0/);
      } finally {
        await dc.stop();
      }
    });

    test("Run Without Debugging: the client's claim log reaches the Debug Console (what names the client without debugpy)", async () => {
      assert.ok((await engine.send({ op: 'register', n: 1 })).episodes?.length === 1);
      const script = clientScript(dir, server.url);
      const dc = client();
      const outputs: DebugProtocol.OutputEvent[] = [];
      dc.on('output', (e: DebugProtocol.OutputEvent) => outputs.push(e));
      await dc.start();
      try {
        await Promise.all([dc.launch({ swarmClient: script, cwd: dir, python, noDebug: true }), dc.waitForEvent('terminated')]);
        const text = outputs.map((o) => o.body.output).join('');
        const ended = /ENDED (\S+) 1\.0/.exec(text)?.[1];
        assert.ok(ended, text.slice(-3000));
        assert.deepEqual(claimedEpisodesFromOutput(text), [ended]);
      } finally {
        await dc.stop();
      }
    });

    test('a server that is not there: the launch is refused with the URL and the reason, and nothing starts', async () => {
      const port = await freePort();
      const script = clientScript(dir, `http://127.0.0.1:${port}`);
      const dc = client();
      await dc.start();
      try {
        const t0 = Date.now();
        await assert.rejects(dc.launch({ swarmClient: script, cwd: dir, python }), (e: Error) =>
          new RegExp(`127\\.0\\.0\\.1:${port} is not reachable .*connection refused.*Nothing was launched`).test(e.message),
        );
        assert.ok(Date.now() - t0 < 10_000, 'refused within seconds');
        const procs = await listProcesses();
        assert.deepEqual(
          procs.filter((p) => p.args.includes(script)),
          [],
          'the client script never ran',
        );
      } finally {
        await dc.stop();
      }
    });
  });
}
