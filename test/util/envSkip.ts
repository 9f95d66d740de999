// The one place a test skips because part of its environment is missing (the upstream AgentJet trees,
// the tests' Python venv and Debian's packages, a loopback-only network namespace, python3, an old
// debugpy): what CI's machine provides and a developer's may not.
//
// Every such skip reason starts with ENV_SKIP_TAG; scripts/test-all.mjs counts them by it. With
// AGENTJET_REQUIRE_COMPLETE=1 ("this environment is complete", set by .ci/run; AGENTJET_REQUIRE_UPSTREAM=1
// is the older name) such a test fails instead of skipping, here, and the runner fails the run if any
// tagged skip still got through.
import type { TestContext } from 'node:test';

export const ENV_SKIP_TAG = 'env:';

/** Is this environment declared complete (no skip for a missing part allowed)? */
export function environmentMustBeComplete(): boolean {
  return process.env.AGENTJET_REQUIRE_COMPLETE === '1' || process.env.AGENTJET_REQUIRE_UPSTREAM === '1';
}

/** The reason with the tag in front (once). */
export function envReason(why: string): string {
  return why.startsWith(ENV_SKIP_TAG) ? why : `${ENV_SKIP_TAG} ${why}`;
}

/**
 * Skips `t` because `why` is missing from the environment; when the environment must be complete it
 * throws instead (the test fails saying what is missing). Returns true when the test must stop, so a
 * call site reads `if (skipForEnvironment(t, why)) return;`. An undefined `why` is "nothing missing".
 */
export function skipForEnvironment(t: Pick<TestContext, 'skip'>, why: string | undefined): boolean {
  if (why === undefined) return false;
  const reason = envReason(why);
  if (environmentMustBeComplete())
    throw new Error(`${reason} -- AGENTJET_REQUIRE_COMPLETE=1 says this environment is complete, so this missing part fails the test`);
  t.skip(reason);
  return true;
}
