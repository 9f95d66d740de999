// test/util/envSkip.ts: a missing part of the environment skips with the common reason prefix, or
// fails the test when the environment is declared complete (AGENTJET_REQUIRE_COMPLETE or its old name).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENV_SKIP_TAG, skipForEnvironment } from '../util/envSkip';

function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const old = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(old))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

test('nothing missing: the test goes on', () => {
  const skips: (string | undefined)[] = [];
  assert.equal(skipForEnvironment({ skip: (m?: string) => void skips.push(m) }, undefined), false);
  assert.deepEqual(skips, []);
});

test('missing, environment not declared complete: skips once, with the prefix the runner counts', () => {
  const skips: (string | undefined)[] = [];
  const stop = withEnv({ AGENTJET_REQUIRE_COMPLETE: undefined, AGENTJET_REQUIRE_UPSTREAM: undefined }, () =>
    skipForEnvironment({ skip: (m?: string) => void skips.push(m) }, 'unshare not available'),
  );
  assert.equal(stop, true);
  assert.equal(skips.length, 1);
  assert.equal(skips[0], `${ENV_SKIP_TAG} unshare not available`);
  withEnv({ AGENTJET_REQUIRE_COMPLETE: undefined, AGENTJET_REQUIRE_UPSTREAM: undefined }, () =>
    skipForEnvironment({ skip: (m?: string) => void skips.push(m) }, `${ENV_SKIP_TAG} upstream: x missing`),
  );
  assert.equal(skips[1], `${ENV_SKIP_TAG} upstream: x missing`, 'the prefix is not doubled');
});

for (const name of ['AGENTJET_REQUIRE_COMPLETE', 'AGENTJET_REQUIRE_UPSTREAM'])
  test(`missing with ${name}=1: the test fails naming what is missing, and does not skip`, () => {
    const skips: (string | undefined)[] = [];
    withEnv({ AGENTJET_REQUIRE_COMPLETE: undefined, AGENTJET_REQUIRE_UPSTREAM: undefined, [name]: '1' }, () =>
      assert.throws(
        () => skipForEnvironment({ skip: (m?: string) => void skips.push(m) }, 'the venv could not be made'),
        /the venv could not be made/,
      ),
    );
    assert.deepEqual(skips, []);
  });
