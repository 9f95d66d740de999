// Issue 22 item 15: the test runner's final check finds processes a test left behind (marked with
// AGENTJET_TEST_RUN through inheritance, detached ones included) and ends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
// @ts-expect-error a plain .mjs script without types
import { findTestProcesses, endLeftovers, TEST_RUN_ENV } from '../../scripts/test-processes.mjs';

type Found = { pid: number; cmdline: string; cwd: string };
const find = findTestProcesses as (id: string) => Found[];
const end = endLeftovers as (id: string, graceMs?: number) => Promise<Found[]>;

test(
  'issue 22 #15: a detached grandchild carrying the run mark is found and ended; unmarked ones are not',
  { skip: process.platform !== 'linux' },
  async () => {
    const id = randomUUID();
    // A shell that starts a detached sleeper and exits: the sleeper is an orphan, as a leaked companion is.
    const sh = spawn('sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], {
      env: { ...process.env, [TEST_RUN_ENV as string]: id },
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    sh.stdout.on('data', (b: Buffer) => (out += b.toString()));
    await once(sh, 'close');
    const pid = Number(out.trim());
    const other = spawn('sleep', ['60'], { env: { ...process.env, [TEST_RUN_ENV as string]: 'another-run' }, stdio: 'ignore' });
    try {
      assert.deepEqual(
        find(id).map((p) => p.pid),
        [pid],
      );
      assert.match(find(id)[0]?.cmdline ?? '', /sleep 60/);
      const killed = await end(id, 200);
      assert.deepEqual(
        killed.map((p) => p.pid),
        [pid],
      );
      // Reaped by init soon after the kill; the check never reports zombies.
      for (let i = 0; i < 50 && find(id).length; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(find(id), []);
      assert.ok(find('another-run').some((p) => p.pid === other.pid));
    } finally {
      other.kill('SIGKILL');
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended above
      }
    }
  },
);
