// The tests' one polling helper: returns the probe's first truthy value, fails with a description.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, withDirLock } from '../util/poll';

test('waitFor returns the first truthy value of the probe', async () => {
  let calls = 0;
  const v = await waitFor(() => (++calls === 3 ? { calls } : undefined), 'the third call', 5_000, 1);
  assert.deepEqual(v, { calls: 3 });
});

test('waitFor times out with what it waited for, described at the end', async () => {
  let seen = 0;
  await assert.rejects(
    waitFor(
      () => {
        seen++;
        return false;
      },
      () => `a miracle (probed ${seen} times)`,
      20,
      1,
    ),
    (err: Error) => {
      assert.match(err.message, /^timed out after 20 ms waiting for a miracle \(probed \d+ times\)$/);
      return true;
    },
  );
});

test('a probe that throws ends the wait with its error', async () => {
  await assert.rejects(
    waitFor(
      () => {
        throw new Error('server exited');
      },
      'anything',
      5_000,
      1,
    ),
    /server exited/,
  );
});

test('withDirLock holds the lock while fn runs and releases it after, also on error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajet-lock-'));
  try {
    const lock = join(dir, '.lock');
    assert.equal(
      withDirLock(lock, () => existsSync(lock)),
      true,
    );
    assert.equal(existsSync(lock), false);
    assert.throws(
      () =>
        withDirLock(lock, () => {
          throw new Error('boom');
        }),
      /boom/,
    );
    assert.equal(existsSync(lock), false);
    // Held by someone else: times out saying which lock.
    withDirLock(lock, () => assert.throws(() => withDirLock(lock, () => 1, 30, 5), /waiting for .*\.lock/));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
