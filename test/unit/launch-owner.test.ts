// The launch's owner (core/launch/owner.ts) and the platform parts of a stop (core/launch/treeKill.ts):
// the pure command builders for every platform, and the owner's promises with real processes here.
import { test, describe } from 'node:test';
import * as assert from 'node:assert/strict';
import { LaunchOwner, LaunchStopped } from '../../core/launch/owner';
import { killActions, spawnShape, stopPlatform, taskkillCommand } from '../../core/launch/treeKill';
import { isAlive, listProcesses } from '../../core/launch/processes';
import { waitFor } from '../util/poll';
import { GroupFreezer } from '../../core/launch/freeze';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('treeKill: what a stop does on each platform', () => {
  test('Windows: taskkill /T for the tree, /F only in the forced phase', () => {
    assert.deepEqual(taskkillCommand(4242, false), { command: 'taskkill', args: ['/PID', '4242', '/T'] });
    assert.deepEqual(taskkillCommand(4242, true), { command: 'taskkill', args: ['/PID', '4242', '/T', '/F'] });
    assert.throws(() => taskkillCommand(0, true));
    assert.throws(() => taskkillCommand(-5, true));
    assert.throws(() => taskkillCommand(1.5, true));
  });

  test('Windows: one taskkill per tree root, groups ignored (there are none), duplicates and bad pids dropped', () => {
    const a = killActions('win32', { pids: [10, 10, 11, 0, 1, -3], pgids: [10, 99] }, true);
    assert.deepEqual(a, [
      { kind: 'run', cmd: { command: 'taskkill', args: ['/PID', '10', '/T', '/F'] } },
      { kind: 'run', cmd: { command: 'taskkill', args: ['/PID', '11', '/T', '/F'] } },
    ]);
  });

  test('POSIX: groups as negative targets first, then single processes; SIGTERM politely, SIGKILL forced; never group 0/1', () => {
    assert.deepEqual(killActions('posix', { pids: [7, 8], pgids: [7, 1, 0] }, false), [
      { kind: 'signal', target: -7, signal: 'SIGTERM' },
      { kind: 'signal', target: 7, signal: 'SIGTERM' },
      { kind: 'signal', target: 8, signal: 'SIGTERM' },
    ]);
    assert.deepEqual(
      killActions('posix', { pids: [], pgids: [9] }, true).map((x) => (x.kind === 'signal' ? x.signal : '')),
      ['SIGKILL'],
    );
  });

  test('spawn shape: own group on POSIX, no console window on Windows; the platform names', () => {
    assert.deepEqual(spawnShape('posix'), { detached: true, windowsHide: true });
    assert.deepEqual(spawnShape('win32'), { detached: false, windowsHide: true });
    assert.equal(stopPlatform('win32'), 'win32');
    assert.equal(stopPlatform('darwin'), 'posix');
    assert.equal(stopPlatform('linux'), 'posix');
  });
});

describe('LaunchOwner: the user stop wins over every step', () => {
  test('a stop before a step: the step does not run', async () => {
    const owner = new LaunchOwner({ watchdog: false });
    owner.requestStop();
    let ran = false;
    await assert.rejects(
      owner.step('plan', () => {
        ran = true;
        return 1;
      }),
      LaunchStopped,
    );
    assert.equal(ran, false);
    assert.ok(owner.stopRequestedMs !== undefined);
  });

  test('a stop during a step that never ends: given up at once, its work told through the signal', async () => {
    const owner = new LaunchOwner({ watchdog: false });
    let seen: AbortSignal | undefined;
    const step = owner.step('preflight', (signal) => {
      seen = signal;
      return new Promise<never>(() => undefined);
    });
    await waitFor(() => seen, 'the step to start');
    owner.requestStop();
    await assert.rejects(step, (e: unknown) => e instanceof LaunchStopped && e.stage === 'preflight');
    assert.equal(seen?.aborted, true);
  });

  test('a stop while a step finishes: what follows is refused', async () => {
    const owner = new LaunchOwner({ watchdog: false });
    await assert.rejects(
      owner.step('plan', async () => {
        owner.requestStop();
        return 1;
      }),
      LaunchStopped,
    );
    assert.throws(() => owner.check('launcher'), LaunchStopped);
  });

  test('spawn after the stop starts nothing', async () => {
    const owner = new LaunchOwner({ watchdog: false });
    owner.requestStop();
    const marker = `ajowner-refused-${process.pid}`;
    assert.throws(
      () => owner.spawn(process.execPath, ['-e', `setTimeout(() => {}, 60000) // ${marker}`], { cwd: process.cwd(), env: process.env }),
      LaunchStopped,
    );
    assert.equal((await listProcesses()).filter((p) => p.args.includes(marker)).length, 0);
  });
});

describe('LaunchOwner: end() ends the whole tree', { skip: process.platform === 'win32' ? 'POSIX process groups' : false }, () => {
  test('the launcher, its child in the same group and a grandchild that left for its own group all end', async () => {
    const owner = new LaunchOwner({ watchdog: false, graceMs: 500 });
    const marker = `ajowner-tree-${process.pid}`;
    // The child leaves the group (detached: its own session), as a re-grouping child would.
    const script = [
      "const { spawn } = require('child_process');",
      `spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300000) // ${marker}-regrouped'], { detached: true, stdio: 'ignore' });`,
      `spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300000) // ${marker}-same'], { stdio: 'ignore' });`,
      "console.log('ready');",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const child = owner.spawn(process.execPath, ['-e', `${script} // ${marker}`], { cwd: process.cwd(), env: process.env });
    let out = '';
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    const mine = async () => (await listProcesses()).filter((p) => p.args.includes(marker) && !/\bps -eo\b/.test(p.args));
    try {
      await waitFor(async () => out.includes('ready') && (await mine()).length === 3, 'the launcher and both children', 20_000);
      const left = await owner.end();
      assert.deepEqual(left, []);
      assert.deepEqual(
        (await mine()).map((p) => p.args),
        [],
      );
      assert.equal(owner.stage, 'ended');
      // A full end happens once; a spawn after it is refused.
      assert.throws(() => owner.spawn(process.execPath, ['-e', '0'], { cwd: process.cwd(), env: process.env }), LaunchStopped);
    } finally {
      for (const p of await mine()) if (isAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
    }
  });

  test('a stop freezes the launch before it reads the process list: nothing of it runs after the freeze, and all of it ends', async () => {
    const lines: string[] = [];
    const owner = new LaunchOwner({ watchdog: false, graceMs: 500, trace: (l) => lines.push(l) });
    const marker = `ajowner-freeze-${process.pid}`;
    const dir = mkdtempSync(join(tmpdir(), 'aj-freeze-'));
    const ticks = join(dir, 'ticks');
    // The launcher and its child (same group) each write the time every 2 ms, as a workflow would
    // start work; no SIGTERM handler, so the SIGTERM pending at the thaw ends them before any tick.
    const tick = `setInterval(() => require('fs').appendFileSync(${JSON.stringify(ticks)}, Date.now() + '\\n'), 2)`;
    const script = [
      "const { spawn } = require('child_process');",
      `spawn(process.execPath, ['-e', ${JSON.stringify(`${tick} // ${marker}-child`)}], { stdio: 'ignore' });`,
      `${tick};`,
    ].join('\n');
    owner.spawn(process.execPath, ['-e', `${script} // ${marker}`], { cwd: process.cwd(), env: process.env });
    const mine = async () => (await listProcesses()).filter((p) => p.args.includes(marker) && !/\bps -eo\b/.test(p.args));
    try {
      await waitFor(async () => (await mine()).length === 2 && existsSync(ticks), 'the launcher and its child ticking', 20_000);
      assert.deepEqual(await owner.stop(), []);
      const frozeAt = lines.map((l) => /^froze groups \S+ at (\d+)$/.exec(l)?.[1]).find(Boolean);
      assert.ok(frozeAt, `the stop froze the launch first:\n${lines.join('\n')}`);
      assert.ok(
        lines.findIndex((l) => l.startsWith('froze')) < lines.findIndex((l) => l.startsWith('end:')),
        `frozen before the process list was read:\n${lines.join('\n')}`,
      );
      const late = readFileSync(ticks, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number)
        .filter((t) => t > Number(frozeAt) + 1);
      assert.deepEqual(late, [], `ticks after the freeze at ${frozeAt}`);
      assert.deepEqual(await mine(), []);
    } finally {
      for (const p of await mine()) if (isAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the freeze spares the groups companions name and thaws what it froze at the latest after its limit', async () => {
    const sent: [number, string][] = [];
    const f = new GroupFreezer((target, sig) => (sent.push([target, sig]), true), 30);
    assert.deepEqual(f.freeze([5, 6, 7, 1, 0], new Set([6])), [5, 7]);
    assert.deepEqual(f.freeze([5], new Set()), [], 'frozen once');
    assert.deepEqual(sent, [
      [-5, 'SIGSTOP'],
      [-7, 'SIGSTOP'],
    ]);
    await waitFor(() => f.groups.length === 0, 'the thaw after the limit', 5_000, 5);
    assert.deepEqual(sent.slice(2), [
      [-5, 'SIGCONT'],
      [-7, 'SIGCONT'],
    ]);
  });
});

describe('launch record of a launcher that names no folder (issue 27 item 5)', () => {
  for (const [stopped, status] of [
    [true, 'stopped'],
    [false, 'finished'],
  ] as const)
    test(`nothing made under the log root: the record alone is a run that reads "${status}"`, async () => {
      const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const { resolveAttributes } = await import('../../core/launch/attributes');
      const { planLaunch } = await import('../../core/launch/lifecycle');
      const { LaunchRecordKeeper } = await import('../../core/launch/record');
      const { inspectExperiment, listExperiments } = await import('../../core/runs/discover');
      const { nodeFs } = await import('../../core/fs/seam');
      const dir = mkdtempSync(join(tmpdir(), 'aj-norecord-'));
      try {
        const config = join(dir, 'quiet.yaml');
        writeFileSync(config, 'ajet:\n  experiment_name: quiet_run\n');
        const r = resolveAttributes({ config, cwd: dir, python: process.execPath, noDebug: true });
        const planned = await planLaunch(r, { lint: false });
        assert.ok(planned.ok);
        const keeper = new LaunchRecordKeeper();
        keeper.command = ['python', '-m', 'ajet.launcher'];
        keeper.startedAt = Date.now() - 2000;
        keeper.push('a launcher that prints something else\n', 'stdout', r);
        keeper.exitCode = stopped ? 143 : 0;
        if (stopped) {
          keeper.exitSignal = 'SIGTERM';
          keeper.stopRequestedMs = Date.now() - 500;
        }
        const body = await keeper.finish(
          r,
          planned.plan,
          4242,
          () => assert.fail('no experiment event for a folder nobody made'),
          (m) => assert.fail(m),
          'task',
        );
        assert.equal(body.experimentFolder, null);
        const fs = nodeFs();
        const { experiments } = await listExperiments(fs, join(dir, 'saved_experiments'));
        assert.deepEqual(
          experiments.map((e) => e.name),
          ['quiet_run'],
        );
        const info = await inspectExperiment(fs, experiments[0]!);
        assert.equal(info.status, status, JSON.stringify(info.evidence));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
});
