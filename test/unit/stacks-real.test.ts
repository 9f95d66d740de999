// Show Stacks on a tree of real Python processes: a parent that waits for its child, and a child
// whose own thread waits in a named function. Read with py-spy from pip (the tests' venv) and
// without it (the launch's faulthandler hook), through the core and through `agentjet stacks --pid`.
// Also: a pid that is gone is reported, and a process without the hook is never signalled.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { skipForEnvironment } from '../util/envSkip';
import { waitFor } from '../util/poll';
import { repoRoot } from '../util/paths';
import { collectStacks } from '../../core/stacks/collect';
import { findPySpy, interpretersOf } from '../../core/stacks/pyspy';
import { stackDumpEnv } from '../../core/launch/stackHook';
import { isAlive } from '../../core/launch/processes';
import type { StackReport } from '../../core/stacks/types';
import { callTool } from '../../core/agents/tools';

const dir = mkdtempSync(join(tmpdir(), 'aj-stacks-'));
const program = join(dir, 'tree.py');
writeFileSync(
  program,
  [
    'import os, subprocess, sys, threading, time',
    '',
    'def child_waits_in_thread():',
    '    time.sleep(3600)',
    '',
    'def parent_waits_for_child(p):',
    '    os.waitpid(p.pid, 0)',
    '',
    "if sys.argv[1:] == ['child']:",
    "    threading.Thread(target=child_waits_in_thread, name='waiter', daemon=True).start()",
    "    print('ready', flush=True)",
    '    time.sleep(3600)',
    'else:',
    "    p = subprocess.Popen([sys.executable, __file__, 'child'])",
    '    parent_waits_for_child(p)',
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

async function startTree(env: NodeJS.ProcessEnv): Promise<{ parent: number; child: () => number | undefined }> {
  const py = ensureTestPython().python;
  const c = spawn(py, [program], { env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  started.push(c);
  let out = '';
  c.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  await waitFor(() => out.includes('ready'), 'the child to start its thread');
  const childPid = () => {
    const r = spawnSync('ps', ['-o', 'pid=', '--ppid', String(c.pid)], { encoding: 'utf8' });
    return Number(r.stdout.trim().split('\n')[0]) || undefined;
  };
  return { parent: c.pid!, child: childPid };
}

function framesOf(r: StackReport, pid: number): string[][] {
  return r.processes.find((p) => p.pid === pid)?.threads.map((t) => t.frames.map((f) => `${f.func}@${f.line ?? '?'}`)) ?? [];
}

function assertNamesWaits(r: StackReport, parent: number, child: number, method: string): void {
  const p = r.processes.find((x) => x.pid === parent);
  const c = r.processes.find((x) => x.pid === child);
  assert.ok(p && !p.error, `parent read: ${JSON.stringify(p?.error)}`);
  assert.ok(c && !c.error, `child read: ${JSON.stringify(c?.error)}`);
  assert.equal(p.method, method);
  assert.equal(c.method, method);
  // The parent waits in os.waitpid (C) called from parent_waits_for_child, line 7.
  assert.ok(
    framesOf(r, parent).some((s) => s[0] === 'parent_waits_for_child@7'),
    JSON.stringify(framesOf(r, parent)),
  );
  // The child's own thread waits in child_waits_in_thread, line 4; its main thread at line 12.
  assert.ok(
    framesOf(r, child).some((s) => s[0] === 'child_waits_in_thread@4'),
    JSON.stringify(framesOf(r, child)),
  );
  assert.ok(framesOf(r, child).some((s) => s[0] === '<module>@12'));
  assert.ok(r.groups.some((g) => g.waitsIn === 'child_waits_in_thread' && g.frames[0]!.file === program));
}

test('py-spy from pip: every thread of the parent and its child, the function each waits in', async (t) => {
  const py = ensureTestPython();
  const pySpy = await findPySpy({ PATH: '' }, [py.python]);
  if (skipForEnvironment(t, py.kind === 'venv' && pySpy ? undefined : "py-spy in the tests' venv (test/harness/requirements.txt)")) return;
  const tree = await startTree({ ...process.env, AGENTJET_STACKS_DIR: 'off' });
  const child = await waitFor(tree.child, 'the child pid');
  // Found as a user's run would have it: beside the run's interpreter (the venv's bin), not on PATH.
  const interpreters = await interpretersOf(tree.parent);
  assert.ok(interpreters.includes(py.python), `argv[0] is the venv's python: ${interpreters.join(', ')}`);
  const r = await collectStacks({ roots: [tree.parent], method: 'auto', env: { PATH: '' }, interpreters });
  if (r.processes.some((p) => p.error?.kind === 'permission') && skipForEnvironment(t, `ptrace permission: ${r.notes.join(' ')}`)) return;
  assertNamesWaits(r, tree.parent, child, 'py-spy');
  assert.ok(r.processes.find((p) => p.pid === child)!.threads.some((th) => th.name === 'waiter'));
});

test("without py-spy: the launch's faulthandler hook answers SIGUSR1, through `agentjet stacks --pid`", async () => {
  const add = await stackDumpEnv(process.env);
  assert.ok(add.AGENTJET_STACKS_DIR && add.PYTHONPATH, 'the launch adds the hook');
  const tree = await startTree({ ...process.env, ...add });
  const child = await waitFor(tree.child, 'the child pid');
  const r = await collectStacks({ roots: [tree.parent], method: 'faulthandler' });
  assertNamesWaits(r, tree.parent, child, 'faulthandler');
  // The CLI, as a user types it, with no py-spy on PATH.
  const cli = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'stacks', '--pid', String(tree.parent), '--format', 'json'],
    {
      encoding: 'utf8',
      env: { ...process.env, PATH: dirname(process.execPath) + ':/usr/bin:/bin' },
    },
  );
  assert.equal(cli.status, 0, cli.stderr);
  const json = JSON.parse(cli.stdout) as StackReport;
  assert.ok(json.groups.some((g) => g.waitsIn === 'child_waits_in_thread'));
  const text = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'stacks', '--pid', String(tree.parent), '--method', 'faulthandler'],
    {
      encoding: 'utf8',
    },
  );
  assert.match(text.stdout, new RegExp(`child_waits_in_thread  ${program.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4`));
});

test('a process without the hook is never signalled; a pid that is gone is reported, not a crash', async () => {
  const tree = await startTree({ ...process.env, AGENTJET_STACKS_DIR: 'off' });
  const child = await waitFor(tree.child, 'the child pid');
  const r = await collectStacks({ roots: [tree.parent, 2 ** 22 + 7], method: 'faulthandler', deadlineMs: 1000 });
  assert.equal(r.processes.find((p) => p.pid === 2 ** 22 + 7)?.error?.kind, 'gone');
  assert.equal(r.processes.find((p) => p.pid === tree.parent)?.error?.kind, 'no-tool');
  assert.ok(isAlive(tree.parent) && isAlive(child), 'SIGUSR1 would have ended them: nothing was sent');
  // The cap: one process read, the other counted.
  const capped = await collectStacks({ roots: [tree.parent], method: 'faulthandler', maxProcesses: 1, deadlineMs: 1000 });
  assert.equal(capped.skipped, 1);
  assert.ok(capped.notes.some((n) => /cap is 1/.test(n)));
});

test('the hook keeps a sitecustomize the environment had, and a forked child gets a file of its own', async () => {
  const add = await stackDumpEnv(process.env);
  const user = join(dir, 'user-site');
  mkdirSync(user, { recursive: true });
  writeFileSync(join(user, 'sitecustomize.py'), 'import os\nos.environ["USER_SITECUSTOMIZE"] = "ran"\n');
  const code = [
    'import os, sys',
    'pid = os.fork()',
    'if pid == 0:',
    '    os._exit(0)',
    'os.waitpid(pid, 0)',
    'files = sorted(os.listdir(os.environ["AGENTJET_STACKS_DIR"]))',
    'print(os.environ.get("USER_SITECUSTOMIZE"), sys.modules["sitecustomize"].__file__)',
    'print("%d.txt" % os.getpid() in files, "%d.txt" % pid in files)',
  ].join('\n');
  const r = spawnSync(ensureTestPython().python, ['-c', code], {
    encoding: 'utf8',
    env: { ...process.env, ...add, PYTHONPATH: `${add.PYTHONPATH}:${user}` },
  });
  assert.equal(r.status, 0, r.stderr);
  const [first, second] = r.stdout.trim().split('\n');
  assert.equal(first, `ran ${join(user, 'sitecustomize.py')}`);
  assert.equal(second, 'True True');
});

test("`agentjet stacks EXP_DIR`: the process the run's lock names and its child; a run with no live process exits 1", async () => {
  const add = await stackDumpEnv(process.env);
  const tree = await startTree({ ...process.env, ...add });
  const child = await waitFor(tree.child, 'the child pid');
  const exp = join(dir, 'saved_experiments', 'stacks_run_20260202_1200');
  const host = join(exp, '2026_02_02_12_00', hostname());
  mkdirSync(host, { recursive: true });
  writeFileSync(join(exp, 'yaml_backup.yaml'), 'ajet:\n  experiment_name: stacks_run_20260202_1200\n');
  writeFileSync(join(host, '.logger_lock'), String(tree.parent));
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'stacks', ...args], { encoding: 'utf8' });
  const r = cli(exp, '--format', 'json', '--method', 'faulthandler');
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as StackReport;
  assert.deepEqual(
    json.processes.map((p) => [p.pid, p.role]).sort(),
    [
      [tree.parent, 'root'],
      [child, 'child'],
    ].sort(),
  );
  assert.ok(json.groups.some((g) => g.waitsIn === 'parent_waits_for_child'));
  // The report is kept beside the run, for the CLI and the agents after the run is gone.
  const kept = /Stacks kept in (\S+\.json)/.exec(r.stderr)?.[1];
  assert.ok(kept && kept.startsWith(join(exp, '.agentjet-vscode', 'stacks')), r.stderr);
  assert.deepEqual((JSON.parse(readFileSync(kept, 'utf8')) as StackReport).groups, json.groups);
  // The lock names a process that is gone: nothing to read, said so, and the kept report is named.
  writeFileSync(join(host, '.logger_lock'), String(2 ** 22 + 9));
  const gone = cli(exp);
  assert.equal(gone.status, 1);
  assert.match(gone.stderr, /no live process on this machine/);
  assert.match(gone.stderr, /The last stacks kept beside it were taken .*--last/);
  const last = cli(exp, '--last');
  assert.equal(last.status, 0, last.stderr);
  assert.match(last.stdout, /parent_waits_for_child/);
  // The agents' run summary reads it too.
  const answer = await callTool('agentjet_run_summary', { path: exp }, { roots: [dir], mayRunPython: false });
  assert.equal(answer.isError, false, answer.text);
  const summary = JSON.parse(answer.text) as { lastStacks?: { groups: { title: string }[] } };
  assert.ok(
    summary.lastStacks?.groups.some((g) => /parent_waits_for_child/.test(g.title)),
    JSON.stringify(summary.lastStacks),
  );
});
