// Issue 27: Stop always stops on the other paths that start AgentJet, with a backbone shaped like
// AgentJet's (the workflow in the launcher's child process, holding):
// - the task/terminal launch (core/launch/launcherRun.ts, what LauncherTerminal runs in the
//   extension host; here in this process, which outlives the launch as the extension host does):
//   a Stop 0, 50, 100, 150 and 300 ms after the start and while the workflow holds ends everything
//   within 10 s, starts nothing after it, and the run reads "stopped" ("finished" for a run that
//   ended by itself); the owner's process killed (a reloaded or crashed extension host) ends the
//   launch through its watchdog;
// - `agentjet debug-task`: SIGINT, SIGTERM and SIGHUP end the whole launch and the run reads
//   "stopped"; SIGKILL of the CLI ends it through the watchdog; the CLI exits 128 + the signal's number.
// - issue 39 R10: a daemon the workflow left (fork, setsid, fork) and a `setsid` child are ended by
//   every stop (SIGINT, SIGTERM, SIGHUP, the Stop of the task path) and by the watchdog when the CLI
//   is killed: they carry the launch's token (core/launch/launchToken.ts); a process of another
//   launch (another token) and one of the user's own are left alone.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { demoCopy, standInBackbone, type DemoCopy } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { waitFor } from '../util/poll';
import { repoRoot } from '../util/paths';
import { holdConfig, killLeft, lateStarts, launchAlive, runRow, startsOf, waitQuiet } from '../util/holdLaunch';
import { descendants, listProcesses, type ProcInfo } from '../../core/launch/processes';
import { companionFolder, readCompanions } from '../../core/launch/companions';
import { resolveAttributes } from '../../core/launch/attributes';
import { LauncherRun } from '../../core/launch/launcherRun';
import { probeProcess } from '../../core/agentjet/liveness';
import { LAUNCH_TOKEN_VAR } from '../../core/launch/launchToken';

const python = ensureTestPython().python;
const cliJs = join(repoRoot, 'dist', 'cli.js');
const env = { PYTHONPATH: standInBackbone, AJET_STANDIN_CHILD_PROCESS: '1' };

/** Alive and not a zombie. */
const living = (pid: number): boolean => {
  const f = probeProcess(pid);
  return f !== undefined && f.zombie !== true;
};

/** The pids the daemonizing workflow wrote (holdConfig's `daemons`), once both are written. */
async function daemonPids(w: DemoCopy, marker: string): Promise<{ daemon: number; setsid: number }> {
  const file = (k: string) => join(w.dir, `${marker}.${k}`);
  await waitFor(() => existsSync(file('daemon')) && existsSync(file('setsid')), 'the daemon and the setsid child to start', 30_000);
  return { daemon: Number(readFileSync(file('daemon'), 'utf8')), setsid: Number(readFileSync(file('setsid'), 'utf8')) };
}

/** Waits until none of `pids` lives; says which did. */
const waitGone = async (pids: Record<string, number>): Promise<void> => {
  await waitFor(
    () => Object.values(pids).every((p) => !living(p)),
    () => `these to end: ${JSON.stringify(Object.fromEntries(Object.entries(pids).filter(([, p]) => living(p))))}`,
    10_000,
  );
};

const killAll = (pids: Record<string, number> | undefined): void => {
  for (const p of Object.values(pids ?? {}))
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
};

/** A process of the user's own (`token` undefined) or of another launch, which no stop of ours may end. */
function bystander(token?: string): ChildProcess {
  const e: NodeJS.ProcessEnv = { ...process.env };
  delete e[LAUNCH_TOKEN_VAR];
  if (token) e[LAUNCH_TOKEN_VAR] = token;
  return spawn(python, ['-c', 'import time; time.sleep(600) # ajbystander'], { env: e, stdio: 'ignore', detached: true });
}

describe('Stop always stops: the task path and agentjet debug-task', { timeout: 600_000 }, () => {
  let w: DemoCopy;
  let spare = new Set<number>();
  let baseline = new Set<number>();
  before(async () => {
    baseline = new Set(descendants(process.pid, await listProcesses()).map((p) => p.pid));
    w = await demoCopy('aj-stoptask-');
    // The companion (the stand-in vLLM server) is started once and spared by every Stop.
    const { config } = holdConfig(w, 'ajwarmtask', 0);
    const end = await new LauncherRun({
      launch: resolveAttributes({ config, cwd: w.dir, python, noDebug: true, env }),
      via: 'task',
    }).start();
    assert.equal(end.exitCode, 0);
    spare = new Set(readCompanions(companionFolder(w.dir, 'saved_experiments')).map((c) => c.pgid));
    assert.ok(spare.size > 0, 'the companion runs');
  });
  after(async () => {
    await w?.dispose();
  });

  const ours = (marker: string, root?: number): Promise<ProcInfo[]> => launchAlive(w, marker, spare, baseline, root);

  const taskRun = (config: string, out?: (text: string) => void): LauncherRun =>
    new LauncherRun(
      { launch: resolveAttributes({ config, cwd: w.dir, python, noDebug: true, env }), via: 'task' },
      out ? { output: (text) => out(text) } : {},
    );

  for (const delay of [0, 50, 100, 150, 300])
    test(`task: a Stop ${delay} ms after the start ends everything and starts nothing after it`, async () => {
      const marker = `ajtask${delay}`;
      const { started } = holdConfig(w, marker);
      const run = taskRun(join(w.dir, `${marker}.yaml`));
      try {
        const done = run.start();
        // The moment of the Stop is the test's input, not a wait for a state.
        await new Promise((r) => setTimeout(r, delay));
        const stopMs = Date.now();
        // What runs as the Stop is sent (ps starts now, beside the Stop).
        const atStop = listProcesses();
        await run.stop();
        const answeredMs = Date.now();
        const end = await done;
        assert.equal(end.stopped, true);
        await waitQuiet(() => ours(marker));
        assert.deepEqual(lateStarts(started, stopMs, answeredMs, await atStop), [], 'no workflow started after the Stop');
        const row = runRow(w.dir, marker);
        if (end.started) assert.ok(row, 'the started launch is a run');
        if (row) assert.equal(row.status, 'stopped', JSON.stringify(row.evidence));
      } finally {
        killLeft(await ours(marker));
      }
    });

  test('task: a Stop while the workflow holds in the child process ends the whole tree; the run reads "stopped"', async () => {
    const marker = 'ajtaskhold';
    const { config, started } = holdConfig(w, marker);
    let out = '';
    const run = taskRun(config, (text) => (out += text));
    try {
      const done = run.start();
      await waitFor(() => out.includes('hold workflow running'), 'the workflow to run', 60_000);
      assert.ok((await ours(marker)).length >= 2, 'the launcher and its child run');
      const stopMs = Date.now();
      await run.stop();
      const end = await done;
      assert.equal(end.started, true);
      await waitQuiet(() => ours(marker));
      assert.equal(startsOf(started).filter((t) => t > stopMs).length, 0);
      assert.equal(runRow(w.dir, marker)?.status, 'stopped');
    } finally {
      killLeft(await ours(marker));
    }
  });

  test('task: a run that ended by itself reads "finished"; a Stop after it ends nothing more', async () => {
    const marker = 'ajtaskend';
    const { config } = holdConfig(w, marker, 0);
    const run = taskRun(config);
    const end = await run.start();
    assert.equal(end.exitCode, 0);
    await run.stop();
    await waitQuiet(() => ours(marker));
    assert.ok(
      readCompanions(companionFolder(w.dir, 'saved_experiments')).some((c) => c.alive),
      'the companion is spared',
    );
    assert.equal(runRow(w.dir, marker)?.status, 'finished');
  });

  /** A process that starts the launch (the task path in a stand-in extension host, or the CLI) and its output. */
  function owner(args: string[]): { proc: ChildProcess; out: () => string; exited: Promise<number | null> } {
    // From the repository, where `--import tsx` resolves (the launch's own cwd is in its attributes).
    const proc = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    return { proc, out: () => out, exited };
  }

  test("task: the extension host going away (its process killed) ends the launch through the owner's watchdog; the companion stays", async () => {
    const marker = 'ajtaskhost';
    const { config } = holdConfig(w, marker);
    const host = owner([
      '--import',
      'tsx',
      join(repoRoot, 'test', 'protocol', 'drivers', 'launcherRun.ts'),
      JSON.stringify({ config, cwd: w.dir, python, noDebug: true, env }),
    ]);
    try {
      await waitFor(
        () => host.out().includes('hold workflow running'),
        () => `the workflow to run: ${host.out()}`,
        60_000,
      );
      host.proc.kill('SIGKILL');
      await host.exited;
      await waitQuiet(() => ours(marker));
      assert.ok(
        readCompanions(companionFolder(w.dir, 'saved_experiments')).some((c) => c.alive),
        'the companion is spared',
      );
    } finally {
      host.proc.kill('SIGKILL');
      killLeft(await ours(marker));
    }
  });

  const debugTask = (marker: string) =>
    owner([cliJs, 'debug-task', '--config', join(w.dir, `${marker}.yaml`), '--task-id', 'demo-001', '--cwd', w.dir, '--python', python]);

  /** The row of the run debug-task derived from `marker`'s config (`<marker>_task_demo-001_<stamp>`). */
  const derivedRow = (marker: string) => runRow(w.dir, (e) => e.startsWith(`${marker}_task_demo-001`));

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    test(`agentjet debug-task: ${sig} while the workflow holds ends the whole launch; the run reads "stopped"`, async () => {
      const marker = `ajdt${sig.toLowerCase()}`;
      const { started } = holdConfig(w, marker);
      const cli = debugTask(marker);
      try {
        await waitFor(
          () => cli.out().includes('hold workflow running'),
          () => `the workflow to run: ${cli.out()}`,
          60_000,
        );
        const stopMs = Date.now();
        cli.proc.kill(sig);
        assert.equal(await cli.exited, 128 + constants.signals[sig], `the shell's code for ${sig}`);
        await waitQuiet(() => ours(marker));
        assert.equal(startsOf(started).filter((t) => t > stopMs).length, 0);
        const row = derivedRow(marker);
        assert.ok(row, 'the launch is a run');
        assert.equal(row.status, 'stopped', JSON.stringify(row.evidence));
      } finally {
        cli.proc.kill('SIGKILL');
        killLeft(await ours(marker));
      }
    });

  test('agentjet debug-task: SIGKILL of the CLI ends the launch through the watchdog', async () => {
    const marker = 'ajdtkill';
    holdConfig(w, marker);
    const cli = debugTask(marker);
    try {
      await waitFor(
        () => cli.out().includes('hold workflow running'),
        () => `the workflow to run: ${cli.out()}`,
        60_000,
      );
      cli.proc.kill('SIGKILL');
      await cli.exited;
      await waitQuiet(() => ours(marker));
    } finally {
      killLeft(await ours(marker));
    }
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    test(`R10 agentjet debug-task: ${sig} ends the daemon and the setsid child the workflow left; exit ${128 + constants.signals[sig]}`, async () => {
      const marker = `ajdd${sig.toLowerCase()}`;
      holdConfig(w, marker, 60, { daemons: true });
      const cli = debugTask(marker);
      let pids: Record<string, number> | undefined;
      try {
        await waitFor(
          () => cli.out().includes('hold workflow running'),
          () => `the workflow to run: ${cli.out()}`,
          60_000,
        );
        pids = await daemonPids(w, marker);
        assert.ok(living(pids.daemon!) && living(pids.setsid!), 'the daemon and the setsid child run');
        cli.proc.kill(sig);
        const code = await cli.exited;
        await waitGone(pids);
        await waitQuiet(() => ours(marker));
        assert.equal(code, 128 + constants.signals[sig]);
      } finally {
        cli.proc.kill('SIGKILL');
        killAll(pids);
        killLeft(await ours(marker));
      }
    });

  test("R10 task: the Stop ends the daemon and the setsid child; another launch's process and the user's own are left alone", async () => {
    const marker = 'ajddstop';
    const { config } = holdConfig(w, marker, 60, { daemons: true });
    let out = '';
    const run = taskRun(config, (text) => (out += text));
    const others = [bystander('0123456789abcdef0123456789abcdef'), bystander()];
    let pids: Record<string, number> | undefined;
    try {
      const done = run.start();
      await waitFor(() => out.includes('hold workflow running'), 'the workflow to run', 60_000);
      pids = await daemonPids(w, marker);
      await run.stop();
      assert.equal((await done).stopped, true);
      await waitGone(pids);
      const otherPids = new Set(others.map((o) => o.pid));
      await waitQuiet(async () => (await ours(marker)).filter((p) => !otherPids.has(p.pid)));
      for (const o of others) assert.ok(living(o.pid!), `bystander ${o.pid} lives`);
    } finally {
      for (const o of others) o.kill('SIGKILL');
      await waitFor(() => others.every((o) => o.exitCode !== null || o.signalCode !== null), 'the bystanders to end', 10_000);
      killAll(pids);
      killLeft(await ours(marker));
    }
  });

  test('R10 agentjet debug-task: SIGKILL of the CLI: the watchdog ends the daemon and the setsid child too', async () => {
    const marker = 'ajddkill';
    holdConfig(w, marker, 60, { daemons: true });
    const cli = debugTask(marker);
    let pids: Record<string, number> | undefined;
    try {
      await waitFor(
        () => cli.out().includes('hold workflow running'),
        () => `the workflow to run: ${cli.out()}`,
        60_000,
      );
      pids = await daemonPids(w, marker);
      cli.proc.kill('SIGKILL');
      await cli.exited;
      await waitGone(pids);
      await waitQuiet(() => ours(marker));
    } finally {
      killAll(pids);
      killLeft(await ours(marker));
    }
  });
});
