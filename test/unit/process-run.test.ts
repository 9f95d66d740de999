// core/process/run.ts against real child processes (node -e): output, the error's contents, the
// time limit, the SIGTERM -> SIGKILL escalation for a process that ignores SIGTERM, cancellation,
// and that nothing is left running after the promise settles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessError, runProcess, STDERR_TAIL_CHARS, windowsTreeKill } from '../../core/process/run';
import { waitFor } from '../util/poll';

const node = process.execPath;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Reads the child's PID from its first stdout line, for the "nothing left" checks. */
const PRINT_PID = 'process.stdout.write(process.pid + "\\n");';

test('output and exit code of a process that succeeds', async () => {
  const r = await runProcess(node, ['-e', 'process.stdout.write("out\\n"); process.stderr.write("warn")']);
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'warn');
  assert.equal(r.exitCode, 0);
  const echo = await runProcess(node, ['-e', 'process.stdin.pipe(process.stdout)'], { input: 'in' });
  assert.equal(echo.stdout, 'in');
});

test('a failing process: the error names the command, the exit code and the end of stderr', async () => {
  const long = 'x'.repeat(STDERR_TAIL_CHARS * 2);
  await assert.rejects(
    runProcess(node, ['-e', `process.stderr.write(${JSON.stringify(long)} + "\\nValueError: bad config"); process.exit(3)`]),
    (err: unknown) => {
      assert.ok(err instanceof ProcessError);
      assert.equal(err.failure, 'exit-code');
      assert.equal(err.exitCode, 3);
      assert.match(err.command, /-e/);
      assert.match(err.message, /exited with code 3/);
      assert.match(err.message, /ValueError: bad config$/);
      assert.ok(err.stderrTail.length <= STDERR_TAIL_CHARS + 1);
      assert.equal(err.stderr.length, long.length + '\nValueError: bad config'.length);
      return true;
    },
  );
});

test('a program that does not exist: not-found, with the command', async () => {
  await assert.rejects(runProcess('/nonexistent/agentjet-python', ['-V']), (err: unknown) => {
    assert.ok(err instanceof ProcessError);
    assert.equal(err.failure, 'not-found');
    assert.match(err.message, /agentjet-python -V: not found/);
    return true;
  });
});

test('time limit: a process that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
  let pid = 0;
  const t0 = Date.now();
  // sh sets its SIGTERM disposition to ignored at once (a node child could be hit before its handler is in place).
  await assert.rejects(
    runProcess('sh', ['-c', "trap '' TERM; echo $$; while :; do sleep 0.05; done"], { timeoutMs: 500, killGraceMs: 700 }),
    (err: unknown) => {
      assert.ok(err instanceof ProcessError);
      assert.equal(err.failure, 'timed-out');
      assert.equal(err.signal, 'SIGKILL');
      pid = Number(err.stdout.trim());
      assert.match(err.message, /timed out/);
      return true;
    },
  );
  assert.ok(Date.now() - t0 >= 1150, 'SIGKILL came before the grace period ended');
  assert.ok(pid > 0 && !alive(pid), `process ${pid} still alive`);
});

test('time limit: a process that honours SIGTERM ends with it', async () => {
  await assert.rejects(runProcess(node, ['-e', 'setInterval(() => {}, 1000)'], { timeoutMs: 300, killGraceMs: 10_000 }), (err: unknown) => {
    assert.ok(err instanceof ProcessError);
    assert.equal(err.failure, 'timed-out');
    assert.equal(err.signal, 'SIGTERM');
    return true;
  });
});

test('cancellation by AbortSignal stops the process; an aborted signal stops it at once', async () => {
  const ac = new AbortController();
  const p = runProcess(node, ['-e', `${PRINT_PID} setInterval(() => {}, 1000)`], { signal: ac.signal });
  setTimeout(() => ac.abort(), 300);
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ProcessError);
    assert.equal(err.failure, 'cancelled');
    return true;
  });
  const done = new AbortController();
  done.abort();
  await assert.rejects(runProcess(node, ['-e', 'setInterval(() => {}, 1000)'], { signal: done.signal }), (err: unknown) => {
    assert.ok(err instanceof ProcessError);
    assert.equal(err.failure, 'cancelled');
    return true;
  });
});

// Issue 27 item 4: a wrapper (a pyenv or conda shim, any `#!/bin/sh`) runs the real program as its
// child. The stop must reach that child, or the child keeps the pipe open and the wait never ends.

/** A `#!/bin/sh` wrapper that prints its child's pid and waits for it (the child sleeps). */
function wrapper(body: string): { path: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aj-run-wrap-'));
  const path = join(dir, 'python');
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

test(
  'time limit: a wrapper whose child keeps running ends with its child, and the wait ends',
  { skip: process.platform === 'win32', timeout: 20_000 },
  async () => {
    const w = wrapper('sleep 600 &\necho $!\nwait');
    try {
      let child = 0;
      await assert.rejects(runProcess(w.path, ['-c', 'print(1)'], { timeoutMs: 500, killGraceMs: 500 }), (err: unknown) => {
        assert.ok(err instanceof ProcessError);
        assert.equal(err.failure, 'timed-out');
        child = Number(err.stdout.trim());
        return true;
      });
      assert.ok(child > 0, 'the wrapper printed its child');
      await waitFor(() => !alive(child), `the wrapper's child ${child} to end`, 5000);
    } finally {
      w.dispose();
    }
  },
);

test(
  'a child that left the group and holds the pipe: the wait still ends (its pipes are closed on it)',
  { skip: process.platform === 'win32', timeout: 20_000 },
  async () => {
    const w = wrapper('setsid sleep 30 &\necho $!\nwait');
    let child = 0;
    try {
      await assert.rejects(runProcess(w.path, [], { timeoutMs: 300, killGraceMs: 300 }), (err: unknown) => {
        assert.ok(err instanceof ProcessError);
        assert.equal(err.failure, 'timed-out');
        child = Number(err.stdout.trim());
        return true;
      });
    } finally {
      if (child > 0 && alive(child)) process.kill(child, 'SIGKILL');
      w.dispose();
    }
  },
);

test(
  'a process that ends and leaves a background child behind: the child ends with it',
  { skip: process.platform === 'win32', timeout: 20_000 },
  async () => {
    const w = wrapper('sleep 600 >/dev/null 2>&1 &\necho $!');
    try {
      const r = await runProcess(w.path, []);
      const child = Number(r.stdout.trim());
      assert.ok(child > 0);
      await waitFor(() => !alive(child), `background child ${child} to end`, 5000);
    } finally {
      w.dispose();
    }
  },
);

test('Windows: the tree is ended with taskkill /T /F', () => {
  assert.deepEqual(windowsTreeKill(4242), { file: 'taskkill', args: ['/PID', '4242', '/T', '/F'] });
});
