// Show Stacks finds the run's Ray session by itself (no --ray-session): from the log files its
// driver keeps open (a Ray driver holds `<session>/logs/python-core-driver-*.log`), from a raylet
// among its descendants (its command line names `<session>/sockets/raylet`), or, when RAY_ADDRESS is
// set and nothing names one, the newest session of its Ray temp folder. Real processes: a driver
// that is not the parent of the workers (a run that joins a cluster started elsewhere), a stand-in
// raylet whose child waits in a named function; read with the launch's faulthandler hook.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { waitFor } from '../util/poll';
import { collectStacks } from '../../core/stacks/collect';
import { raySessionsOfRun, sessionNamedIn } from '../../core/stacks/raySession';
import { stackDumpEnv } from '../../core/launch/stackHook';
import { listProcesses } from '../../core/launch/processes';
import { formatStackReport } from '../../core/stacks/format';

const dir = mkdtempSync(join(tmpdir(), 'aj-stacks-ray-'));
const rayRoot = join(dir, 'ray');
const session = join(rayRoot, 'session_2026-12-06_22-20-27_600092_4242');
mkdirSync(join(session, 'logs'), { recursive: true });
mkdirSync(join(session, 'sockets'), { recursive: true });

const raylet = join(dir, 'raylet_standin.py');
writeFileSync(
  raylet,
  [
    'import subprocess, sys, time',
    '',
    'def worker_waits_in_all_gather():',
    '    time.sleep(3600)',
    '',
    "if sys.argv[1:2] == ['worker']:",
    "    print('ready', flush=True)",
    '    worker_waits_in_all_gather()',
    'else:',
    "    subprocess.Popen([sys.executable, __file__, 'worker'])",
    '    time.sleep(3600)',
    '',
  ].join('\n'),
);
const driver = join(dir, 'driver.py');
writeFileSync(
  driver,
  [
    'import os, sys, time',
    '',
    'def driver_waits_for_ray():',
    '    time.sleep(3600)',
    '',
    "log = os.environ.get('AJ_TEST_DRIVER_LOG')",
    'f = open(log % os.getpid(), "a") if log else None',
    "print('ready', flush=True)",
    'driver_waits_for_ray()',
    '',
  ].join('\n'),
);

const started: ChildProcess[] = [];
after(() => {
  for (const c of started)
    if (c.pid)
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
  rmSync(dir, { recursive: true, force: true });
});

async function start(args: string[], env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const c = spawn(ensureTestPython().python, args, { env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  started.push(c);
  let out = '';
  c.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  await waitFor(() => out.includes('ready'), `${args[0]} to start`);
  return c;
}

test('sessionNamedIn: the session folder of a raylet command line or a driver log path, nothing from other paths', () => {
  assert.equal(sessionNamedIn(`/venv/ray/raylet --raylet_socket_name=${session}/sockets/raylet --store_socket_name=x`), session);
  assert.equal(sessionNamedIn(`${session}/logs/python-core-driver-01000000ffff_4242.log`), session);
  assert.equal(sessionNamedIn('/tmp/ray/session_latest'), undefined);
  assert.equal(sessionNamedIn('python -m ajet.launcher --conf a.yaml'), undefined);
});

test("Show Stacks reads the Ray workers of the session the run's driver has its logs open in, with no session given", async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const add = await stackDumpEnv(process.env);
  assert.ok(add.AGENTJET_STACKS_DIR, 'the launch adds the hook');
  const env = { ...process.env, ...add };
  // The cluster's raylet, started elsewhere (not a descendant of the run).
  await start([raylet, `--raylet_socket_name=${session}/sockets/raylet`], env);
  // The log path comes through the environment: only the open file names the session.
  const drv = await start([driver], { ...env, AJ_TEST_DRIVER_LOG: join(session, 'logs', 'python-core-driver-01000000ffff_%d.log') });
  const found = await raySessionsOfRun([drv.pid!], await listProcesses());
  assert.deepEqual(found, [{ dir: session, how: { pid: drv.pid!, via: 'open-file' } }]);
  const r = await waitFor(async () => {
    const rep = await collectStacks({ roots: [drv.pid!], method: 'faulthandler' });
    return rep.groups.some((g) => g.waitsIn === 'worker_waits_in_all_gather') ? rep : undefined;
  }, "the worker's stack");
  const worker = r.processes.find((p) => p.threads.some((th) => th.frames[0]?.func === 'worker_waits_in_all_gather'));
  assert.equal(worker?.role, 'ray-worker');
  assert.ok(r.groups.some((g) => g.waitsIn === 'driver_waits_for_ray'));
  assert.deepEqual(r.raySessions, [{ dir: session, foundBy: { pid: drv.pid!, via: 'open-file' } }]);
  assert.match(
    formatStackReport(r),
    new RegExp(`Ray session ${session.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(process ${drv.pid} has its logs open\\)`),
  );
  // Asked not to look: only the driver's own tree.
  const own = await collectStacks({ roots: [drv.pid!], method: 'faulthandler', findRaySessions: false });
  assert.ok(!own.processes.some((p) => p.role === 'ray-worker'));
});

test("a raylet among the run's descendants names its session; RAY_ADDRESS with nothing named takes session_latest of its RAY_TMPDIR", async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  // A local Ray the run started: the raylet is its child (the process list as `ps` gives it).
  const procs = [
    { pid: 900001, ppid: 1, pgid: 900001, args: 'python -m ajet.backbone.main_verl' },
    {
      pid: 900002,
      ppid: 900001,
      pgid: 900001,
      args: `/venv/ray/core/src/ray/raylet/raylet --raylet_socket_name=${session}/sockets/raylet`,
    },
  ];
  assert.deepEqual(await raySessionsOfRun([900001], procs), [{ dir: session, how: { pid: 900002, via: 'command-line' } }]);
  // A driver joining with RAY_ADDRESS that holds no session file yet.
  symlinkSync(session, join(rayRoot, 'session_latest'));
  const joined = await start([driver], { ...process.env, RAY_ADDRESS: 'auto', RAY_TMPDIR: dir });
  assert.deepEqual(await raySessionsOfRun([joined.pid!], await listProcesses()), [
    { dir: session, how: { pid: joined.pid!, via: 'ray-address' } },
  ]);
  // Without RAY_ADDRESS: no session is guessed.
  const plain = await start([driver], { ...process.env, RAY_TMPDIR: dir });
  assert.deepEqual(await raySessionsOfRun([plain.pid!], await listProcesses()), []);
});
