// Issue 39 R15 (c)-(e): messages that say what happened.
// (c) A wrapper interpreter whose daemon (setsid, outside its group) keeps its output open is not
//     "did not answer": its answer is taken once it and its group are gone (async), or after the
//     deadline (a blocking caller), and a failing one says it exited and a process kept its output open.
// (d) `--task-id -evil` says how to write a value that starts with '-'.
// (e) An interpreter that exits 1 says so, with the end of its stderr; a FIFO as a checkout's
//     defaults file says so: both where the CLI says "judged by bundled facts".
import { test, describe, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  askInterpreter,
  askInterpreterSync,
  forgetInterpreter,
  interpreterFailure,
  interpreterSilence,
  stderrTail,
} from '../../core/process/interpreter';
import { ProcessError, runProcess } from '../../core/process/run';
import { AgentJetFactsService, locateInstalled } from '../../core/config/agentjetFacts';
import { WorkspaceTrust } from '../../core/trust/policy';
import { parseCli } from '../../cli/args';
import { runCli } from '../util/cliRun';
import { waitFor } from '../util/poll';

const posix = process.platform !== 'win32';
const scratch = mkdtempSync(join(tmpdir(), 'aj-r15-'));
after(async () => {
  // The daemons the wrappers left: each wrote its pid.
  await waitFor(() => readdirSync(scratch).filter((f) => f.endsWith('.starting')).length === 0, 'the daemons to write their pids', 10_000);
  for (const f of readdirSync(scratch).filter((f) => f.endsWith('.daemon')))
    try {
      process.kill(Number(readFileSync(join(scratch, f), 'utf8')), 'SIGKILL');
    } catch {
      /* gone */
    }
  rmSync(scratch, { recursive: true, force: true });
});

let n = 0;
/** A `#!/bin/sh` wrapper that leaves a daemon (its own session) holding its stdout, then runs node with the arguments, or exits `code`. */
function wrapper(opts: { exit?: number; stderr?: string } = {}): string {
  const name = `w${n++}`;
  const file = join(scratch, name);
  const pid = join(scratch, `${name}.daemon`);
  writeFileSync(join(scratch, `${name}.starting`), '');
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      `setsid sh -c 'echo $$ > "${pid}.tmp"; mv "${pid}.tmp" "${pid}"; rm -f "${join(scratch, `${name}.starting`)}"; exec sleep 600' &`,
      ...(opts.stderr ? [`echo '${opts.stderr}' >&2`] : []),
      opts.exit !== undefined ? `exit ${opts.exit}` : `exec '${process.execPath}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return file;
}

describe('R15 (c): an interpreter whose daemon keeps its output open', { skip: !posix && 'POSIX wrappers' }, () => {
  test('async: its answer is taken, and it is not remembered as silent', async () => {
    const py = wrapper();
    try {
      const r = await askInterpreter(py, ['-e', 'process.stdout.write("ok")'], { timeoutMs: 6000 });
      assert.equal(r.stdout, 'ok');
      assert.equal(r.heldOpen, true);
      assert.equal(interpreterSilence(py), undefined);
    } finally {
      forgetInterpreter(py);
    }
  });

  test('async: one that exits 3 says it exited, that a process kept its output open, and the end of its stderr', async () => {
    const py = wrapper({ exit: 3, stderr: 'wrapper: no such env' });
    const err = await runProcess(py, ['-V'], { timeoutMs: 6000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProcessError, String(err));
    assert.equal(err.failure, 'exit-code');
    assert.equal(err.heldOpen, true);
    assert.equal(
      interpreterFailure(py, err),
      `\`${py}\` exited with code 3, but a process it started kept its output open: wrapper: no such env`,
    );
  });

  test('blocking: its answer is taken at the deadline; then it is remembered with that reason, not "did not answer"', () => {
    const py = wrapper();
    try {
      const first = askInterpreterSync(py, ['-e', 'process.stdout.write("ok")'], { timeoutMs: 1500 });
      assert.deepEqual(first, { stdout: 'ok' });
      const again = askInterpreterSync(py, ['-e', 'process.stdout.write("ok")']);
      assert.equal(again.problem, `\`${py}\` exited with code 0, but a process it started kept its output open`);
    } finally {
      forgetInterpreter(py);
    }
  });
});

describe('R15 (d): a value that starts with -', () => {
  const options = { 'task-id': { type: 'string', short: 't' }, json: { type: 'boolean' } } as const;
  test('the grammar says how to write it, for the long and the short option', () => {
    for (const args of [
      ['--task-id', '-evil'],
      ['-t', '-evil'],
    ]) {
      const r = parseCli(args, options);
      assert.equal(r.kind, 'error');
      assert.match(r.kind === 'error' ? r.message : '', /needs a value; a value that starts with '-' is written --task-id=-evil$/);
    }
    assert.deepEqual(parseCli(['--task-id=-evil'], options), { kind: 'ok', values: { 'task-id': '-evil' }, positionals: [] });
    const missing = parseCli(['-t'], options);
    assert.equal(missing.kind === 'error' && missing.message, '--task-id needs a value');
    // A known option next is a value forgotten, not one that starts with '-'.
    const forgotten = parseCli(['--task-id', '--json'], options);
    assert.equal(forgotten.kind === 'error' && forgotten.message, '--task-id needs a value');
  });

  test('agentjet debug-task --task-id -evil', async () => {
    const r = await runCli('debug-task', ['--config', 'x.yaml', '--task-id', '-evil']);
    assert.equal(r.code, 2);
    assert.match(r.err, /--task-id needs a value; a value that starts with '-' is written --task-id=-evil/);
  });
});

describe('R15 (e): why the bundled facts judge', { skip: !posix && 'POSIX wrappers and mkfifo' }, () => {
  const config = 'ajet:\n  experiment_name: x\n  rollout:\n    bogus_key: 1\n';

  test('an interpreter that exits 1: its code and the end of its stderr, in the lint line', async () => {
    const root = join(scratch, 'exit1');
    mkdirSync(join(root, '.venv', 'bin'), { recursive: true });
    const py = join(root, '.venv', 'bin', 'python');
    writeFileSync(py, '#!/bin/sh\necho "Fatal Python error: init_fs_encoding" >&2\nexit 1\n', { mode: 0o755 });
    writeFileSync(join(root, 'c.yaml'), config);
    assert.deepEqual(await locateInstalled(py), { problem: `\`${py}\` exited with code 1: Fatal Python error: init_fs_encoding` });
    const r = await runCli('lint', ['--root', root, root], { AGENTJET_FACTS_CACHE: join(scratch, 'cache') });
    assert.match(
      r.err,
      new RegExp(`\`${py.replace(/[.]/g, '\\.')}\` exited with code 1: Fatal Python error: init_fs_encoding: judged by bundled facts`),
    );
  });

  test("stderr's last line is quoted with its control characters escaped (a terminal's escape sequence)", () => {
    assert.equal(stderrTail('Traceback\n\u001b[31mboom\u0007\n'), ': \\u001b[31mboom\\u0007');
    assert.equal(stderrTail('  \n'), '');
  });

  test("a FIFO as the checkout's defaults file: said, never opened", async () => {
    const root = join(scratch, 'fifo');
    mkdirSync(join(root, 'ajet', 'default_config'), { recursive: true });
    const defaults = join(root, 'ajet', 'default_config', 'ajet_default.yaml');
    assert.equal(spawnSync('mkfifo', [defaults]).status, 0, 'mkfifo works here');
    writeFileSync(join(root, 'c.yaml'), config);
    const s = new AgentJetFactsService({ cacheDir: '', trust: new WorkspaceTrust(false) });
    s.setFolder(root, undefined);
    await s.ready(root);
    assert.equal(s.problem(root), `${defaults} is a named pipe (FIFO), not a regular file`);
    const r = await runCli('lint', ['--root', root, join(root, 'c.yaml')], { AGENTJET_FACTS_CACHE: join(scratch, 'cache') });
    assert.match(r.err, /is a named pipe \(FIFO\), not a regular file: judged by bundled facts/);
    assert.ok(existsSync(defaults));
  });
});
