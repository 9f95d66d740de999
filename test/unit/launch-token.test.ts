// Issue 39 R10: the launch token (core/launch/launchToken.ts) finds exactly the processes that carry
// this launch's token (not another launch's, not a longer token, not the token in arguments or in
// another variable's value), however far into a large environment it sits; the watchdog's program
// ends them when its owner goes away; a signal's exit code is 128 + its number.
import { test, describe, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import {
  ENVIRON_READ_LIMIT,
  LAUNCH_TOKEN_VAR,
  environHasToken,
  newLaunchToken,
  processesWithToken,
  withLaunchToken,
} from '../../core/launch/launchToken';
import { WATCHDOG_SCRIPT } from '../../core/launch/watchdog';
import { signalExitCode } from '../../core/launch/launcherRun';
import { probeProcess } from '../../core/agentjet/liveness';
import { waitFor } from '../util/poll';

const linux = process.platform === 'linux';
const started: ChildProcess[] = [];
after(() => {
  for (const c of started) c.kill('SIGKILL');
});

/** A node process that sleeps, with exactly `env` (no token inherited from whoever runs the tests). */
function sleeper(env: NodeJS.ProcessEnv, args: string[] = []): ChildProcess {
  const clean: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...env };
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ...args], { env: clean, stdio: 'ignore' });
  started.push(c);
  return c;
}

/** `bytes` of padding in 64 KB variables (one string may hold at most 128 KB on Linux). */
function pad(bytes: number): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (let i = 0; i * 65536 < bytes; i++) out[`PAD${i}`] = 'x'.repeat(Math.min(65536, bytes - i * 65536));
  return out;
}

const living = (pid: number): boolean => {
  const f = probeProcess(pid);
  return f !== undefined && f.zombie !== true;
};

describe('the launch token', () => {
  test('a token is 32 hex digits, fresh each time; withLaunchToken puts ours first and drops an inherited one', () => {
    const a = newLaunchToken();
    assert.match(a, /^[0-9a-f]{32}$/);
    assert.notEqual(a, newLaunchToken());
    const env = withLaunchToken({ A: '1', [LAUNCH_TOKEN_VAR]: 'outer', B: '2' }, a);
    assert.deepEqual(Object.entries(env), [
      [LAUNCH_TOKEN_VAR, a],
      ['A', '1'],
      ['B', '2'],
    ]);
  });

  test('environHasToken matches the exact entry only', () => {
    const t = 'ab'.repeat(16);
    const block = (...e: string[]) => Buffer.from(e.map((x) => `${x}\0`).join(''));
    assert.equal(environHasToken(block(`${LAUNCH_TOKEN_VAR}=${t}`), t), true);
    assert.equal(environHasToken(block('X=1', `${LAUNCH_TOKEN_VAR}=${t}`, 'Y=2'), t), true);
    assert.equal(environHasToken(block(`${LAUNCH_TOKEN_VAR}=${t}0`), t), false);
    assert.equal(environHasToken(block(`X${LAUNCH_TOKEN_VAR}=${t}`), t), false);
    assert.equal(environHasToken(block(`X=${LAUNCH_TOKEN_VAR}=${t}`), t), false);
  });

  test('signals give 128 + their number', () => {
    assert.equal(signalExitCode('SIGINT'), 130);
    assert.equal(signalExitCode('SIGTERM'), 143);
    assert.equal(signalExitCode('SIGHUP'), 128 + constants.signals.SIGHUP);
    assert.equal(signalExitCode('SIGKILL'), 137);
  });

  test(
    'processesWithToken finds the carriers, not another launch, a longer token, the token in args or values',
    { skip: !linux && 'no /proc' },
    async () => {
      const t = newLaunchToken();
      const mine = sleeper({ [LAUNCH_TOKEN_VAR]: t });
      // Far into a large environment (over one 64 KB read; under the bound), past a chunk boundary.
      const deep = sleeper({ ...pad(200 * 1024), [LAUNCH_TOKEN_VAR]: t });
      const others = [
        sleeper({ [LAUNCH_TOKEN_VAR]: newLaunchToken() }),
        sleeper({ [LAUNCH_TOKEN_VAR]: `${t}0` }),
        sleeper({ OTHER: `${LAUNCH_TOKEN_VAR}=${t}` }),
        sleeper({}, [`${LAUNCH_TOKEN_VAR}=${t}`]),
        // Past the read bound: not seen (the bound is what a stop reads).
        sleeper({ ...pad(ENVIRON_READ_LIMIT + 1024), [LAUNCH_TOKEN_VAR]: t }),
      ];
      await waitFor(async () => (await processesWithToken(t)).length >= 2, 'the carriers to start');
      assert.deepEqual(
        await processesWithToken(t),
        [mine.pid!, deep.pid!].sort((a, b) => a - b),
      );
      for (const o of others) assert.ok(living(o.pid!));
    },
  );

  test(
    "the watchdog's program ends the token's carriers when its owner goes; not another launch's",
    { skip: !linux && 'no /proc' },
    async () => {
      const t = newLaunchToken();
      const mine = [sleeper({ [LAUNCH_TOKEN_VAR]: t }), sleeper({ ...pad(100_000), [LAUNCH_TOKEN_VAR]: t })];
      const other = sleeper({ [LAUNCH_TOKEN_VAR]: newLaunchToken() });
      const wd = spawn(process.execPath, ['-e', WATCHDOG_SCRIPT], { stdio: ['pipe', 'ignore', 'inherit'] });
      started.push(wd);
      const gone = new Promise<number | null>((r) => wd.on('exit', (code) => r(code)));
      await waitFor(async () => (await processesWithToken(t)).length === 2, 'the carriers to start');
      // The owner went away: the pipe closes without "d".
      wd.stdin!.end(`t ${t}\n`);
      assert.equal(await gone, 0);
      await waitFor(() => mine.every((c) => !living(c.pid!)), 'the carriers to end');
      assert.ok(living(other.pid!), "another launch's process lives");
    },
  );

  test('a released watchdog ends nothing', { skip: !linux && 'no /proc' }, async () => {
    const t = newLaunchToken();
    const mine = sleeper({ [LAUNCH_TOKEN_VAR]: t });
    const wd = spawn(process.execPath, ['-e', WATCHDOG_SCRIPT], { stdio: ['pipe', 'ignore', 'inherit'] });
    started.push(wd);
    const gone = new Promise<number | null>((r) => wd.on('exit', (code) => r(code)));
    await waitFor(async () => (await processesWithToken(t)).length === 1, 'the carrier to start');
    wd.stdin!.end(`t ${t}\nd\n`);
    assert.equal(await gone, 0);
    assert.ok(living(mine.pid!));
  });
});
