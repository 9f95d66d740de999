// Editor breakpoints in Ray workers on ANOTHER NODE, on the real Ray (pip), in a loopback-only
// network namespace. A two-node cluster runs on this machine with one temp dir per node, so the
// second node's worker logs are not in the session the extension watches, as on another machine.
// The rollout and reward workers are pinned to that node. They are found the way the extension finds
// them there: from the doorbell lines Ray relays to the launch's console (core/ray/driverDoorbells.ts,
// with Ray's log de-duplication left on: the launch environment keeps those lines apart), their
// names asked of their doorbells; then our adapter rings and attaches, and gutter breakpoints set
// afterwards stop both, with no debug call in the code (test/fixtures/ray-training/train/gutter.py).
// Then the same for AgentJet's bp("ROLLOUT") (--debug ROLLOUT): two rollout workers of the far node
// pause, and the console alone (core/ray/consolePaused.ts) says where they wait.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import { attachDoorbells, attachWorker, frameLocals, stopAllAt, topFrame } from '../util/rayDap';
import { ensureTestPython } from '../harness/python';
import { SessionLogWatcher } from '../../core/ray/watcher';
import {
  DEFAULT_WORKER_PATTERNS,
  ensureHookDir,
  hookSource,
  rayBreakpointsEnv,
  selectWorkers,
  type ListeningWorker,
} from '../../core/ray/breakpoints';
import { DriverDoorbells, mergeListeners } from '../../core/ray/driverDoorbells';
import { ConsolePaused } from '../../core/ray/consolePaused';
import { rayLaunchAdditions } from '../../core/ray/tags';
import { waitFor } from '../util/poll';
import {
  killRayProcesses,
  lineIn,
  rayFixture,
  rayFixtureRollout,
  startFixtureRun,
  startTwoNodeRay,
  type RayRun,
  type TwoNodeRay,
  outsideLoopbackNetns,
  testInLoopbackNetns,
} from '../util/rayLocal';

const TIMEOUT = 90_000;
const gutterPy = join(rayFixture, 'train', 'gutter.py');

if (outsideLoopbackNetns()) {
  testInLoopbackNetns(__filename, 'editor breakpoints in Ray workers on another node of a real Ray cluster', 600_000);
} else {
  describe(
    'gutter breakpoints in Ray workers of another node, found through the console (real Ray, two nodes)',
    { timeout: 400_000 },
    () => {
      let cluster: TwoNodeRay | undefined;
      let run: RayRun | undefined;
      let watcher: SessionLogWatcher | undefined;
      const doorbells = new DriverDoorbells();
      let fed = 0;
      let goDir = '';
      let go = '';
      const clients: DebugClient[] = [];
      const src = readFileSync(gutterPy, 'utf8');
      const rolloutLine = lineIn(src, '# gutter: rollout');
      const rewardLine = lineIn(src, '# gutter: reward');
      let chosen: ListeningWorker[] = [];

      /** Feeds the console lines printed since the last call, as the extension's output tracker does. */
      const feedConsole = (): void => {
        const lines = run!.output().split('\n');
        lines.pop();
        for (; fed < lines.length; fed++) doorbells.feed(lines[fed]!);
      };

      before(async () => {
        const py = ensureTestPython();
        cluster = startTwoNodeRay(py.python);
        goDir = mkdtempSync('/tmp/ajr-go-');
        go = join(goDir, 'go');
        const hookDir = ensureHookDir(await hookSource());
        run = startFixtureRun(py.python, {
          env: {
            ...rayBreakpointsEnv(hookDir, { PYTHONPATH: rayFixture }),
            RAY_ADDRESS: cluster.address,
            // Ray's default: lines that differ only in numbers are folded in the console.
            RAY_DEDUP_LOGS: '1',
            AJ_RAY_PROGRAM: 'gutter',
            AJ_RAY_PIN: 'far',
            AJ_RAY_GO: go,
            AJ_RAY_ROLLOUTS: '2',
          },
        });
        const dir = (await run.waitOutput(/ray session: (\S+)/))[1]!;
        assert.ok(dir.startsWith(cluster.headTemp), `the driver joined the head node's session (${dir})`);
        watcher = new SessionLogWatcher(dir, { intervalMs: 200 }).start();
      });
      after(async () => {
        for (const dc of clients) await dc.stop().catch(() => undefined);
        watcher?.dispose();
        if (run) {
          await run.dispose();
          assert.deepEqual(await killRayProcesses(run.tempDir), [], 'the driver ended');
        }
        if (cluster) {
          await cluster.dispose();
          assert.deepEqual(await killRayProcesses(cluster.headTemp), [], 'every process of the head node ended');
          assert.deepEqual(await killRayProcesses(cluster.farTemp), [], 'every process of the second node ended');
        }
        if (goDir) rmSync(goDir, { recursive: true, force: true });
      });

      test("the far node's rollout and reward workers are found in the console and named by their doorbells, not in the logs here", async () => {
        chosen = await waitFor(
          async () => {
            feedConsole();
            await doorbells.refresh(new Set(), { timeoutMs: 5_000 });
            const all = mergeListeners(watcher!.hookListeners, doorbells.list());
            const sel = selectWorkers(all, DEFAULT_WORKER_PATTERNS, 8, 0, new Set());
            const rollouts = sel.attach.filter((w) => w.names.includes('rollout_task'));
            const actor = sel.attach.find((w) => w.names.includes('RewardWorker'));
            return rollouts.length >= 2 && actor && [...rollouts, actor];
          },
          () =>
            `two rollout_task workers and the RewardWorker among ${JSON.stringify(doorbells.list())} (console:\n${run!.output().slice(-3000)})`,
          TIMEOUT,
          250,
        );
        const here = new Set(watcher!.hookListeners.map((w) => w.key));
        for (const w of chosen) {
          assert.ok(!here.has(w.key), `${w.key} (${w.names.join(', ')}) is not in the logs of this machine's session`);
          assert.ok(w.pid && w.pid > 1, 'the console gives the worker pid');
        }
        assert.equal(new Set(chosen.map((w) => w.key)).size, 3, 'three different doorbells (none folded by de-duplication)');
      });

      test('breakpoints set after attaching stop both rollout tasks and the actor on the far node; Continue lets the run finish', async () => {
        clients.push(...(await attachDoorbells(chosen)));
        const stopped = await stopAllAt(clients, gutterPy, [rolloutLine, rewardLine], () => writeFileSync(go, 'go'));
        const seen: string[] = [];
        for (let i = 0; i < clients.length; i++) {
          const dc = clients[i]!;
          const f = await topFrame(dc, stopped[i]!.body.threadId!);
          assert.equal(f.source?.path, gutterPy);
          const v = await frameLocals(dc, f.id);
          seen.push(
            f.line === rolloutLine ? `rollout:${v.get('task_id')}` : f.line === rewardLine ? `reward:${v.get('x')}` : `line ${f.line}`,
          );
        }
        assert.deepEqual(seen.sort(), ['reward:1', 'rollout:0', 'rollout:1']);
        for (let i = 0; i < clients.length; i++) await clients[i]!.continueRequest({ threadId: stopped[i]!.body.threadId! });
        await run!.waitOutput(/scores: \[1, 3\]/);
        await run!.waitOutput(/reward: 1\.5/);
        for (const dc of clients) {
          await dc.disconnectRequest({});
          await dc.stop();
        }
        clients.length = 0;
        await run!.waitOutput(/training step done/);
        assert.equal(await run!.exited, 0, run!.output().slice(-2000));
      });
    },
  );

  describe('workers paused at bp() on another node, found through the console (real Ray, two nodes)', { timeout: 400_000 }, () => {
    let cluster: TwoNodeRay | undefined;
    let run: RayRun | undefined;
    let watcher: SessionLogWatcher | undefined;
    const consolePaused = new ConsolePaused('console');
    let fed = 0;
    const clients: DebugClient[] = [];
    const bpLine = lineIn(readFileSync(rayFixtureRollout, 'utf8'), '    bp("ROLLOUT")');

    before(async () => {
      const py = ensureTestPython();
      cluster = startTwoNodeRay(py.python);
      run = startFixtureRun(py.python, {
        tags: 'ROLLOUT',
        env: {
          ...rayLaunchAdditions(true, ['ROLLOUT'], []).env,
          RAY_ADDRESS: cluster.address,
          RAY_DEDUP_LOGS: '1',
          AJ_RAY_PIN: 'far',
          AJ_RAY_ROLLOUTS: '2',
        },
      });
      const dir = (await run.waitOutput(/ray session: (\S+)/))[1]!;
      watcher = new SessionLogWatcher(dir, { intervalMs: 200 }).start();
    });
    after(async () => {
      for (const dc of clients) await dc.stop().catch(() => undefined);
      watcher?.dispose();
      if (run) await run.dispose();
      if (cluster) {
        await cluster.dispose();
        assert.deepEqual(await killRayProcesses(cluster.headTemp), [], 'every process of the head node ended');
        assert.deepEqual(await killRayProcesses(cluster.farTemp), [], 'every process of the second node ended');
      }
    });

    test('both paused rollout workers of the far node are listed from the console, none from the logs here; each attaches and stops at bp()', async () => {
      const paused = await waitFor(
        () => {
          const lines = run!.output().split('\n');
          lines.pop();
          for (; fed < lines.length; fed++) consolePaused.feed(lines[fed]!);
          const list = consolePaused.list();
          return list.length >= 2 && list;
        },
        () => `two paused workers in the console:\n${run!.output().slice(-3000)}`,
        TIMEOUT,
        200,
      );
      assert.equal(new Set(paused.map((w) => `${w.host}:${w.port}`)).size, 2, 'two listeners (no line folded by de-duplication)');
      assert.deepEqual(await watcher!.scan(), [], "no log of this machine's session has them");
      const seen: string[] = [];
      for (const w of paused) {
        assert.equal(w.source, 'output');
        assert.equal(w.name, 'rollout');
        const a = await attachWorker(w, { uncaught: true });
        const dc = a.dc;
        clients.push(dc);
        const stopped = await a.stopped;
        const st = await dc.stackTraceRequest({ threadId: stopped.body.threadId!, startFrame: 0, levels: 5 });
        const f = st.body.stackFrames.find((x) => x.source?.path === rayFixtureRollout)!;
        assert.ok(f, JSON.stringify(st.body.stackFrames.map((x) => `${x.name} ${x.source?.path}:${x.line}`)));
        assert.equal(stopped.body.reason, 'bp("ROLLOUT")');
        assert.equal(f.line, bpLine);
        seen.push((await frameLocals(dc, f.id)).get('task_id') ?? '?');
        await dc.continueRequest({ threadId: stopped.body.threadId! });
      }
      assert.deepEqual(seen.sort(), ['3', '4']);
      await run!.waitOutput(/training step done/);
      for (const dc of clients) {
        await dc.disconnectRequest({}).catch(() => undefined);
        await dc.stop();
      }
      clients.length = 0;
      assert.equal(await run!.exited, 0, run!.output().slice(-2000));
    });
  });
}
