// Ray debugging on the REAL Ray (pip `ray`, from test/harness/requirements.txt): a local instance
// bound to 127.0.0.1 inside a loopback-only network namespace, a task that stops at AgentJet's
// `bp("ROLLOUT")` (AgentJet's real vsdb.py from the upstream tree, in the stand-in launcher of
// test/fixtures/ray-training/README.md) and one that raises
// (post-mortem). Checks that the session-log watcher lists both workers and that the agentjet
// adapter's attach path stops with the right stack and variables; Stop detaches and the run ends.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { attachWorker, frameLocals } from '../util/rayDap';
import { ensureTestPython } from '../harness/python';
import { SessionLogWatcher } from '../../core/ray/watcher';
import type { PausedWorker } from '../../core/ray/types';
import { EVENT_RAY_PAUSE, type RayPauseEventBody } from '../../core/protocol/ray';
import { waitFor } from '../util/poll';
import {
  killRayProcesses,
  lineIn,
  rayFixtureRollout,
  startFixtureRun,
  type RayRun,
  outsideLoopbackNetns,
  testInLoopbackNetns,
} from '../util/rayLocal';

const TIMEOUT = 90_000;

const until = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string): Promise<T> =>
  waitFor(probe, what, TIMEOUT, 100);

/** Attaches our adapter to a paused worker; resolves with the client, its first stop and the pause event. */
async function attach(
  w: PausedWorker,
): Promise<{ dc: DebugClient; stopped: DebugProtocol.StoppedEvent; pause: Promise<RayPauseEventBody> }> {
  let pause: Promise<RayPauseEventBody> | undefined;
  const a = await attachWorker(w, {
    uncaught: true,
    before: (dc) => {
      pause = dc.waitForEvent(EVENT_RAY_PAUSE, TIMEOUT).then((e) => e.body as RayPauseEventBody);
    },
  });
  return { dc: a.dc, stopped: await a.stopped, pause: pause! };
}

if (outsideLoopbackNetns()) {
  testInLoopbackNetns(__filename, 'Ray debugging on the real Ray', 600_000);
} else {
  describe('Ray workers paused in the debugger (real Ray, loopback only)', { timeout: 400_000 }, () => {
    let run: RayRun;
    let watcher: SessionLogWatcher | undefined;
    let sessionDir = '';
    const rolloutSrc = readFileSync(rayFixtureRollout, 'utf8');

    before(async () => {
      const py = ensureTestPython();
      run = startFixtureRun(py.python, { tags: 'ROLLOUT', fail: true });
      sessionDir = (await run.waitOutput(/ray session: (\S+)/))[1]!;
    });
    after(async () => {
      watcher?.dispose();
      if (run) {
        await run.dispose();
        const left = await killRayProcesses(run.tempDir);
        assert.deepEqual(left, [], 'every process of the test Ray instance ended');
      }
    });

    test('the session-log watcher lists the bp("ROLLOUT") worker and the post-mortem worker', async () => {
      watcher = new SessionLogWatcher(sessionDir, { intervalMs: 200 }).start();
      const paused = await until(() => {
        const p = watcher!.paused;
        return p.length >= 2 && p;
      }, 'two paused workers in the session logs');
      const names = paused.map((p) => p.name).sort();
      assert.deepEqual(names, ['judge', 'rollout']);
      for (const p of paused) {
        assert.equal(p.host, '127.0.0.1');
        assert.ok(p.port > 0 && p.pid && p.pid > 0, `listener and pid of ${p.name}`);
        assert.equal(p.role, 'task');
        assert.equal(p.origin, sessionDir);
      }
    });

    test('attaching to the rollout worker stops at the bp("ROLLOUT") line with its locals; Stop detaches and the task finishes', async () => {
      const w = watcher!.paused.find((p) => p.name === 'rollout')!;
      const { dc, stopped, pause } = await attach(w);
      try {
        // Named after the tag: VS Code then focuses the bp line, not the helper frame (see attach.ts).
        assert.equal(stopped.body.reason, 'bp("ROLLOUT")');
        const stack = await dc.stackTraceRequest({ threadId: stopped.body.threadId!, startFrame: 0, levels: 20 });
        const frames = stack.body.stackFrames;
        // bp() itself is AgentJet's helper: marked deemphasize so the editor shows the caller.
        const first = frames.find((f) => f.source?.presentationHint !== 'deemphasize')!;
        assert.equal(first.name, 'rollout');
        assert.equal(first.source?.path, rayFixtureRollout);
        assert.equal(first.line, lineIn(rolloutSrc, `    bp("ROLLOUT")`));
        assert.ok(frames.indexOf(first) > 0, 'the helper frame above it is there, deemphasized');
        const vars = await frameLocals(dc, first.id);
        assert.equal(vars.get('task_id'), '3');
        assert.equal(vars.get('reward'), '0.75');
        assert.equal(vars.get('trajectory'), "['obs-3', 'act-3']");
        const body = await pause;
        assert.deepEqual({ kind: body.kind, tag: body.tag, line: body.line }, { kind: 'breakpoint', tag: 'ROLLOUT', line: first.line });
        const terminated = dc.waitForEvent('terminated');
        await dc.disconnectRequest({});
        await terminated;
      } finally {
        await dc.stop();
      }
      await run.waitOutput(/result: 2\.75/);
      await until(
        async () => !(await watcher!.scan()).some((p) => p.name === 'rollout') || undefined,
        'the rollout worker to leave the paused list',
      );
    });

    test('the post-mortem worker stops on the exception in judge with its locals', async () => {
      const w = await until(async () => (await watcher!.scan()).find((p) => p.name === 'judge'), 'the judge worker');
      const { dc, stopped, pause } = await attach(w);
      try {
        assert.equal(stopped.body.reason, 'exception');
        const stack = await dc.stackTraceRequest({ threadId: stopped.body.threadId!, startFrame: 0, levels: 30 });
        const judge = stack.body.stackFrames.find((f) => f.name === 'judge' && f.source?.path === rayFixtureRollout);
        assert.ok(judge, `a judge frame in ${stack.body.stackFrames.map((f) => `${f.name}@${f.source?.path}:${f.line}`).join(', ')}`);
        assert.equal(judge.line, lineIn(rolloutSrc, 'raise ValueError'));
        const vars = await frameLocals(dc, judge.id);
        assert.equal(vars.get('verdict'), "'wrong:42'");
        const info = await dc.customRequest('exceptionInfo', { threadId: stopped.body.threadId });
        assert.match(JSON.stringify(info.body), /ValueError/);
        assert.equal((await pause).kind, 'post-mortem');
        await dc.disconnectRequest({});
      } finally {
        await dc.stop();
      }
      await run.waitOutput(/training step done/);
      assert.equal(await run.exited, 0, `the driver ended cleanly:\n${run.output().slice(-2000)}`);
    });
  });
}
