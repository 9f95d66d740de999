// The launch's faulthandler dump files kept beside the run (core/stacks/dumps.ts), with real
// Python processes started with the launch's hook: moved beside the run once it is named while the
// processes keep answering, a process started later writes there too, a grown file is cut back,
// the copy when no move is possible is bounded, and only the newest launches are kept.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { LaunchRecordKeeper } from '../../core/launch/record';
import { resolveAttributes } from '../../core/launch/attributes';
import { planLaunch } from '../../core/launch/lifecycle';
import { waitFor } from '../util/poll';
import { repoRoot } from '../util/paths';
import { stackDumpEnv } from '../../core/launch/stackHook';
import { collectStacks } from '../../core/stacks/collect';
import { faulthandlerDump } from '../../core/stacks/faulthandler';
import {
  MAX_DUMP_FILE_BYTES,
  MAX_KEPT_DUMPS as MAX_KEPT,
  adoptStackDumps,
  dumpsFolder,
  keepStackDumps,
} from '../../core/launch/stackDumps';

const dir = mkdtempSync(join(tmpdir(), 'aj-dumps-'));
const program = join(dir, 'tree.py');
writeFileSync(
  program,
  [
    'import os, subprocess, sys, threading, time',
    'def child_waits_in_thread():',
    '    time.sleep(3600)',
    "if sys.argv[1:] == ['child']:",
    '    threading.Thread(target=child_waits_in_thread, daemon=True).start()',
    "    print('ready', os.getpid(), flush=True)",
    '    time.sleep(3600)',
    'else:',
    "    p = subprocess.Popen([sys.executable, __file__, 'child'])",
    '    p.wait()',
    '',
  ].join('\n'),
);
const started: ChildProcess[] = [];
after(() => {
  for (const c of started)
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  rmSync(dir, { recursive: true, force: true });
});

test('moved beside the run once it is named: the processes still answer Show Stacks, one started later writes there', async () => {
  if (process.platform === 'win32') return;
  const add = await stackDumpEnv(process.env);
  const launchDir = add.AGENTJET_STACKS_DIR!;
  const c = spawn(ensureTestPython().python, [program], {
    env: { ...process.env, ...add },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  started.push(c);
  let out = '';
  c.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const child = Number(await waitFor(() => /ready (\d+)/.exec(out)?.[1], 'the child to start'));
  const exp = join(dir, 'saved_experiments', 'run_a');
  const moved = (await adoptStackDumps(launchDir, exp, Date.now())) ?? '';
  assert.ok(moved.startsWith(dumpsFolder(exp)), `moved: ${moved}`);
  assert.ok(lstatSync(launchDir).isSymbolicLink(), 'a link is left where the launch set its folder');
  assert.deepEqual(readdirSync(moved).sort(), [`${c.pid}.txt`, `${child}.txt`].sort());
  assert.equal(await adoptStackDumps(launchDir, exp, Date.now()), moved, 'a second call finds where it went');

  const r = await collectStacks({ roots: [c.pid!], method: 'faulthandler' });
  assert.ok(
    r.groups.some((g) => g.waitsIn === 'child_waits_in_thread'),
    JSON.stringify(r.processes.map((p) => p.error)),
  );
  assert.match(readFileSync(join(moved, `${child}.txt`), 'utf8'), /child_waits_in_thread/, 'the dump is in the file beside the run');

  const later = spawnSync(ensureTestPython().python, ['-c', 'import os; print(os.getpid())'], {
    encoding: 'utf8',
    env: { ...process.env, ...add },
  });
  assert.ok(existsSync(join(moved, `${later.stdout.trim()}.txt`)), 'a process started after the move writes beside the run');

  // Bounded: a file grown past the cap is cut back to its first line before the next dump.
  const file = join(moved, `${child}.txt`);
  const header = readFileSync(file, 'utf8').split('\n')[0]!;
  appendFileSync(file, Buffer.alloc(MAX_DUMP_FILE_BYTES + 1024, 'x'));
  const again = await faulthandlerDump(child);
  assert.ok(again.ok, again.ok ? '' : again.message);
  assert.ok(statSync(file).size < MAX_DUMP_FILE_BYTES / 4, `size ${statSync(file).size}`);
  assert.equal(readFileSync(file, 'utf8').split('\n')[0], header);
});

test('copied (bounded) when the folder cannot be moved, and only the newest launches are kept', async () => {
  const exp = join(dir, 'saved_experiments', 'run_b');
  // Not a folder the launch made (its name): never moved, so copied.
  const src = join(dir, 'elsewhere');
  mkdirSync(src);
  const header = '# agentjet-vscode stacks pid=123 exe=/usr/bin/python3 start=1\n';
  const dump = 'Thread 0x00007f (most recent call first):\n  File "/x.py", line 3 in wait\n';
  writeFileSync(join(src, '123.txt'), header + dump.repeat(Math.ceil((MAX_DUMP_FILE_BYTES * 1.5) / dump.length)));
  const kept = (await keepStackDumps(src, exp, Date.UTC(2026, 0, 1, 10, 0, 0))) ?? '';
  assert.ok(kept && existsSync(src), 'the source stays');
  const copy = readFileSync(join(kept, '123.txt'), 'utf8');
  assert.ok(copy.startsWith(header + 'Thread 0x'), 'the first line and whole dumps');
  assert.ok(Buffer.byteLength(copy) <= MAX_DUMP_FILE_BYTES + header.length);
  for (let i = 1; i <= MAX_KEPT + 2; i++) await keepStackDumps(src, exp, Date.UTC(2026, 0, 1, 10, i, 0));
  const left = readdirSync(dumpsFolder(exp)).sort();
  assert.equal(left.length, MAX_KEPT);
  assert.ok(left[0]!.startsWith('2026_01_01_'), left[0]);
  assert.ok(!left.some((n) => n === kept.split('/').pop()), 'the oldest went');
});

test('a launch moves its dumps beside the run the launcher names (the launch record keeper), and its end waits for it', async () => {
  if (process.platform === 'win32') return;
  const python = ensureTestPython().python;
  const add = await stackDumpEnv(process.env);
  const pid = spawnSync(python, ['-c', 'import os; print(os.getpid())'], {
    encoding: 'utf8',
    env: { ...process.env, ...add },
  }).stdout.trim();
  assert.ok(existsSync(join(add.AGENTJET_STACKS_DIR!, `${pid}.txt`)), 'a process of the launch registered in its own folder');
  const config = join(dir, 'c.yaml');
  writeFileSync(config, 'ajet:\n  experiment_name: run_c\n');
  const r = resolveAttributes({ config, cwd: dir, backbone: 'debug', python });
  const planned = await planLaunch(r, { lint: false, stacks: false });
  assert.ok(planned.ok);
  const keeper = new LaunchRecordKeeper();
  keeper.where = { env: { ...add } };
  keeper.startedAt = Date.now();
  const exp = join(dir, 'saved_experiments', 'run_c');
  const named = keeper.push(`view the logs: http://127.0.0.1:8181/?path=${join(exp, '2026_01_01_10_00', 'host')}\n`, 'stdout', r);
  assert.equal(named?.folder, exp);
  keeper.exitCode = 0;
  await keeper.finish(
    r,
    planned.plan,
    undefined,
    () => undefined,
    (m) => assert.fail(m),
  );
  const folders = readdirSync(dumpsFolder(exp));
  assert.equal(folders.length, 1);
  assert.ok(existsSync(join(dumpsFolder(exp), folders[0]!, `${pid}.txt`)), 'the dump file is beside the run');
  assert.ok(lstatSync(add.AGENTJET_STACKS_DIR!).isSymbolicLink());
  // After the fact, from a terminal: `agentjet stacks EXP_DIR --last` says where they are.
  const cli = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'stacks', exp, '--last'], {
    encoding: 'utf8',
  });
  assert.equal(cli.status, 1, 'no report was kept');
  assert.ok(cli.stderr.includes(`dumps of its last launch are in ${join(dumpsFolder(exp), folders[0]!)}`), cli.stderr);
});
