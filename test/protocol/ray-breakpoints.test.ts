// Editor (gutter) breakpoints in Ray workers on the REAL Ray (pip), inside a loopback-only network
// namespace: the launch environment of `rayBreakpoints` (core/ray/breakpoints.ts, the same function
// the debug adapter uses) makes every worker open a doorbell at start-up (no debugger yet, no pause).
// The session-log watcher lists the doorbells with their task/actor names; the selection attaches
// the rollout and reward workers; our adapter rings each doorbell (the worker then starts debugpy)
// and attaches to it (DebugClient over DAP, attach path with rayDoorbell).
// The program is test/fixtures/ray-training/train/gutter.py: NO bp() or breakpoint() in it. The
// breakpoints are set only after the workers started and the sessions attached; then two rollout
// tasks (two workers) and an actor method hit them at once.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import { attachDoorbells, frameLocals, stopAllAt, topFrame } from '../util/rayDap';
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
import { listProcesses } from '../../core/launch/processes';
import { ringDoorbell } from '../../core/ray/doorbell';
import { waitFor } from '../util/poll';
import {
  killRayProcesses,
  lineIn,
  rayFixture,
  startFixtureRun,
  type RayRun,
  outsideLoopbackNetns,
  testInLoopbackNetns,
} from '../util/rayLocal';

const TIMEOUT = 90_000;
const gutterPy = join(rayFixture, 'train', 'gutter.py');

if (outsideLoopbackNetns()) {
  testInLoopbackNetns(__filename, 'editor breakpoints in Ray workers on the real Ray', 600_000);
} else {
  describe('gutter breakpoints in Ray workers, no debug call in the code (real Ray, loopback only)', { timeout: 400_000 }, () => {
    let run: RayRun;
    let watcher: SessionLogWatcher | undefined;
    let go = '';
    let goDir = '';
    const clients: DebugClient[] = [];
    const src = readFileSync(gutterPy, 'utf8');
    const rolloutLine = lineIn(src, '# gutter: rollout');
    const rewardLine = lineIn(src, '# gutter: reward');
    let chosen: ListeningWorker[] = [];
    let debugpyPorts: number[] = [];

    before(async () => {
      const py = ensureTestPython();
      goDir = mkdtempSync('/tmp/ajr-go-');
      go = join(goDir, 'go');
      const hookDir = ensureHookDir(await hookSource());
      run = startFixtureRun(py.python, {
        env: { ...rayBreakpointsEnv(hookDir, { PYTHONPATH: rayFixture }), AJ_RAY_PROGRAM: 'gutter', AJ_RAY_GO: go, AJ_RAY_ROLLOUTS: '2' },
      });
      const dir = (await run.waitOutput(/ray session: (\S+)/))[1]!;
      watcher = new SessionLogWatcher(dir, { intervalMs: 200 }).start();
    });
    after(async () => {
      for (const dc of clients) await dc.stop().catch(() => undefined);
      watcher?.dispose();
      if (run) {
        await run.dispose();
        assert.deepEqual(await killRayProcesses(run.tempDir), [], 'every process of the test Ray instance ended');
      }
      rmSync(goDir, { recursive: true, force: true });
    });

    test('each worker announces a listener that does not wait; the rollout and reward workers are chosen', async () => {
      chosen = await waitFor(
        () => {
          const sel = selectWorkers(watcher!.hookListeners, DEFAULT_WORKER_PATTERNS, 8, 0, new Set());
          const rollouts = sel.attach.filter((w) => w.names.includes('rollout_task'));
          const actor = sel.attach.find((w) => w.names.includes('RewardWorker'));
          return rollouts.length >= 2 && actor && sel.attach;
        },
        () => `two rollout_task workers and the RewardWorker among ${JSON.stringify(watcher!.hookListeners)}`,
        TIMEOUT,
        100,
      );
      for (const w of chosen) assert.equal(w.host, '127.0.0.1');
      assert.equal(watcher!.paused.length, 0, 'nothing is paused: the listeners do not wait');
      assert.match(run.output(), /reward worker pid: \d+/);
      // Idle workers run no debugger: no debugpy adapter under any worker until its doorbell rings.
      const pids = new Set(chosen.map((w) => w.pid));
      assert.deepEqual(
        (await listProcesses()).filter((p) => pids.has(p.ppid) && /debugpy/.test(p.args)).map((p) => p.args),
        [],
        'no debugpy in a worker before the doorbell rings',
      );
    });

    test('breakpoints set after the workers started bind; two rollout workers and the actor stop at once; Continue resumes', async () => {
      clients.push(...(await attachDoorbells(chosen)));
      // Ringing again answers the port debugpy already listens on (the one each session attached to).
      debugpyPorts = await Promise.all(chosen.map((w) => ringDoorbell(w.host, w.port, 10_000)));
      assert.ok(
        debugpyPorts.every((p, i) => p !== chosen[i]!.port),
        'the debugpy port is not the doorbell',
      );
      const stopped = await stopAllAt(clients, gutterPy, [rolloutLine, rewardLine], () => writeFileSync(go, 'go'));
      const seen: string[] = [];
      for (let i = 0; i < clients.length; i++) {
        const dc = clients[i]!;
        assert.equal(stopped[i]!.body.reason, 'breakpoint');
        const f = await topFrame(dc, stopped[i]!.body.threadId!);
        assert.equal(f.source?.path, gutterPy);
        const vars = await frameLocals(dc, f.id);
        if (f.line === rolloutLine) {
          assert.equal(f.name, 'score_of');
          seen.push(`rollout:${vars.get('task_id')}`);
        } else {
          assert.equal(f.line, rewardLine);
          assert.equal(vars.get('x'), '1');
          seen.push('reward');
        }
      }
      assert.deepEqual(seen.sort(), ['reward', 'rollout:0', 'rollout:1'], 'two rollout workers and the actor stopped at the same time');
      for (let i = 0; i < clients.length; i++) await clients[i]!.continueRequest({ threadId: stopped[i]!.body.threadId! });
      await run.waitOutput(/scores: \[1, 3\]/);
      await run.waitOutput(/reward: 1\.5/);
    });

    test('detaching leaves the run to finish; no worker or debugpy adapter is left', async () => {
      for (const dc of clients) {
        await dc.disconnectRequest({});
        await dc.stop();
      }
      clients.length = 0;
      await run.waitOutput(/training step done/);
      assert.equal(await run.exited, 0, run.output().slice(-2000));
      await waitFor(
        async () =>
          !(await listProcesses()).some((p) => /debugpy/.test(p.args) && debugpyPorts.some((port) => p.args.includes(`--port ${port}`))),
        "the workers' debugpy adapters to end",
        30_000,
        200,
      );
    });
  });
}
