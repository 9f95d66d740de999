// Run status against what the real beast-logger and AgentJet code leave behind: a crash mid-way, a
// SIGKILL, two processes on one host, a clean run with AgentJet's harmless mismatch note, and the
// same runs when VS Code launched them (launch record). Each through core and `dist/cli.js runs`,
// on AgentJet of January 2026 (d20cce0) and 0.0.4 (c68c154).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { launchPaths, writeLaunchRecord } from '../../core/agentjet';
import { withUpstream } from '../util/upstream';
import { cliRuns, coreRuns, runDriver, startDriver, summary, TREE, workspace, type DriverRun } from './runs-harness';

const HOST = hostname();
const VERSIONS = ['agentjet', 'agentjet-0.0.4'] as const;
type Version = (typeof VERSIONS)[number];

/** Skips (with the harness's reason) unless beast-logger and that AgentJet's tree are there. */
const needs = (version: Version, fn: () => Promise<void>) =>
  withUpstream('beast-logger-6ba1ca5', (_dir, t) => withUpstream(TREE[version], () => fn())(t));

async function both(ws: string) {
  const core = await coreRuns(ws);
  const cli = cliRuns(ws);
  assert.deepEqual(summary(cli), summary(core), 'the CLI bundle and core agree');
  return { core, cli, by: (name: string) => cli.find((r) => r.experiment === name)! };
}

function writeConfig(ws: string, name: string, experiment: string): string {
  const p = join(ws, 'configs', `${name}.yaml`);
  writeFileSync(p, `ajet:\n  project_name: conformance\n  experiment_name: ${experiment}\n`);
  return p;
}

function recordLaunch(version: Version, ws: string, exp: string, run: DriverRun): void {
  const paths = launchPaths({ cwd: ws, version, experiment: exp });
  writeLaunchRecord(
    paths.logExperiment,
    {
      command: run.argv,
      cwd: ws,
      pid: run.pid,
      startMs: run.startMs,
      endMs: run.endMs,
      exitCode: run.code,
      signal: run.signal,
      via: 'conformance',
    },
    run.output,
  );
}

for (const version of VERSIONS) {
  test(
    `${version}: a run that crashes mid-way: the lock is gone and no file holds the traceback, so "ended"; launched from VS Code it is "failed" with the traceback`,
    needs(version, async () => {
      const ws = workspace();
      try {
        const run = await runDriver(ws.path, {
          version,
          config: writeConfig(ws.path, 'crash', 'crash_run'),
          steps: 2,
          end: 'crash',
        });
        assert.equal(run.code, 1, run.output);
        assert.match(run.output, /RuntimeError: simulated failure/);
        const host = join(ws.path, 'saved_experiments', 'crash_run');
        const session = readdirSync(host).find((n) => /^\d{4}_/.test(n))!;
        assert.equal(
          existsSync(join(host, session, HOST, '.logger_lock')),
          false,
          'beast-logger removed its lock at exit (atexit), crash or not',
        );
        assert.doesNotMatch(
          readFileSync(join(host, session, HOST, 'regular', 'regular.log'), 'utf8'),
          /Traceback/,
          'the traceback went to stderr only',
        );
        let r = (await both(ws.path)).by('crash_run');
        assert.equal(r.status, 'ended');
        assert.equal(r.evidence[0]!.kind, 'files');
        assert.equal(r.latestStep, 2);
        recordLaunch(version, ws.path, 'crash_run', run);
        r = (await both(ws.path)).by('crash_run');
        assert.equal(r.status, 'failed');
        assert.deepEqual(
          r.evidence.slice(0, 2).map((e) => e.kind),
          ['launch-record', 'traceback'],
        );
        assert.equal(r.evidence[0]!.text, 'the launcher exited with code 1');
        assert.equal(r.evidence[1]!.text, 'traceback: RuntimeError: simulated failure in the middle of training');
      } finally {
        ws.dispose();
      }
    }),
  );

  test(
    `${version}: a run killed with SIGKILL leaves its lock: "interrupted" (its process is gone, or its PID reused)`,
    needs(version, async () => {
      const ws = workspace();
      try {
        const run = await runDriver(ws.path, {
          version,
          config: writeConfig(ws.path, 'killed', 'killed_run'),
          steps: 1,
          end: 'sigkill',
        });
        assert.equal(run.signal, 'SIGKILL');
        const exp = join(ws.path, 'saved_experiments', 'killed_run');
        const session = readdirSync(exp).find((n) => /^\d{4}_/.test(n))!;
        assert.equal(
          readFileSync(join(exp, session, HOST, '.logger_lock'), 'utf8').trim(),
          String(run.pid),
          'the lock names the killed process',
        );
        let r = (await both(ws.path)).by('killed_run');
        assert.equal(r.status, 'interrupted');
        assert.equal(r.evidence[0]!.kind, 'lock');
        assert.match(r.evidence[0]!.text, new RegExp(`lock left behind by process ${run.pid}`));
        // The kernel later gives that PID to an unrelated process (emulated: a live process's PID in the
        // lock). A real lock is written when the run registers, hours before a kill; start times have a
        // resolution of about a second, so the lock's time is set an hour back (a run that ran an hour).
        const lock = join(exp, session, HOST, '.logger_lock');
        const written = new Date(statSync(lock).mtimeMs - 3_600_000);
        const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
        try {
          await once(other, 'spawn');
          writeFileSync(lock, String(other.pid));
          utimesSync(lock, written, written);
          r = (await both(ws.path)).by('killed_run');
          if (process.platform === 'linux' || process.platform === 'darwin') {
            assert.equal(r.status, 'interrupted', 'a reused PID is not the run');
            assert.match(r.evidence[0]!.text, new RegExp(`process id ${other.pid} now belongs to a process started`));
          }
        } finally {
          other.kill('SIGKILL');
          await once(other, 'exit');
        }
        recordLaunch(version, ws.path, 'killed_run', run);
        r = (await both(ws.path)).by('killed_run');
        assert.equal(r.status, 'failed');
        assert.equal(r.evidence[0]!.text, 'the launcher was ended by SIGKILL');
      } finally {
        ws.dispose();
      }
    }),
  );

  test(
    `${version}: a clean run with AgentJet's "Prompt token ids mismatch" note is not failed: "ended" with the note; launched from VS Code, exit 0 makes it "finished"`,
    needs(version, async () => {
      const ws = workspace();
      try {
        const run = await runDriver(ws.path, {
          version,
          config: writeConfig(ws.path, 'clean', 'clean_run'),
          steps: 3,
          note: true,
          end: 'clean',
        });
        assert.equal(run.code, 0, run.output);
        let r = (await both(ws.path)).by('clean_run');
        assert.equal(r.status, 'ended');
        assert.equal(r.notes, 1);
        assert.equal(r.exceptions, 0);
        assert.deepEqual(
          r.evidence.map((e) => e.kind),
          ['files', 'notes'],
        );
        recordLaunch(version, ws.path, 'clean_run', run);
        r = (await both(ws.path)).by('clean_run');
        assert.equal(r.status, 'finished');
        assert.equal(r.evidence[0]!.text, 'the launcher exited with code 0');
        assert.equal(r.latestStep, 3);
        assert.equal(r.latestReward, 0.5);
      } finally {
        ws.dispose();
      }
    }),
  );

  test(
    `${version}: two processes on one host: the second logs to <host>_<pid> and overwrites the first folder's lock; each folder reads right as they end`,
    needs(version, async () => {
      const ws = workspace();
      const now = new Date();
      const pad = (n: number) => String(n).padStart(2, '0');
      // Both processes in the same session minute (datetime.now() pinned in the driver).
      const sessionTime = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}`;
      const a = startDriver(ws.path, { version, experiment: 'pair', steps: 1, end: 'hold', sessionTime });
      let b: ReturnType<typeof startDriver> | undefined;
      try {
        await a.ready;
        b = startDriver(ws.path, { version, experiment: 'pair', steps: 2, end: 'hold', sessionTime });
        await b.ready;
        const session = join(ws.path, 'saved_experiments', 'pair', `${sessionTime.replace(/[-T:]/g, '_')}`);
        const second = `${HOST}_${b.child.pid}`;
        assert.ok(existsSync(join(session, second)), `beast-logger moved the second process to ${second}`);
        assert.equal(
          readFileSync(join(session, HOST, '.logger_lock'), 'utf8').trim(),
          String(b.child.pid),
          "and it overwrote the first folder's lock",
        );
        const hosts = () => both(ws.path).then((x) => Object.fromEntries(x.by('pair').latestSession!.hosts.map((h) => [h.name, h])));
        let h = await hosts();
        assert.equal(h[second]!.status, 'running');
        assert.match(h[second]!.evidence[0]!.text, new RegExp(`lock held by process ${b.child.pid} is alive`));
        assert.equal(h[HOST]!.status, 'running', 'the first folder is fresh');
        assert.match(h[HOST]!.evidence[0]!.text, /lock was overwritten by process/);
        // The first process ends: its exit hook removes the shared lock (the one path both registered).
        a.child.stdin!.end();
        await a.done;
        assert.equal(existsSync(join(session, HOST, '.logger_lock')), false);
        h = await hosts();
        assert.equal(h[second]!.status, 'running', "no lock left, but the folder name's PID is alive and started before its last write");
        assert.equal(h[second]!.evidence[0]!.kind, 'process');
        assert.equal(h[HOST]!.status, 'ended');
        b.child.stdin!.end();
        await b.done;
        h = await hosts();
        assert.equal(h[second]!.status, 'ended');
        assert.equal((await both(ws.path)).by('pair').status, 'ended');
      } finally {
        a.child.kill('SIGKILL');
        b?.child.kill('SIGKILL');
        await a.done;
        await b?.done;
        ws.dispose();
      }
    }),
  );
}
