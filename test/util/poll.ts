// The one polling helper of the tests (unit, protocol, extension host, UI, harness). Prefer an
// event where there is one; poll only what has no event (a process list, a file, the DOM of a
// webview frame). Never a fixed sleep: the wait ends as soon as the probe holds.
import { mkdirSync, rmSync, statSync } from 'node:fs';

/**
 * Calls `probe` until it returns a truthy value, and returns that value. A probe that throws ends
 * the wait with its error. After `timeoutMs` it throws `timed out after … waiting for <what>`;
 * `what` may be a function, to describe the last state seen.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string | (() => string),
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Runs `fn` holding the directory lock `lock` (mkdir is atomic), so that parallel test runs do not
 * install into one cache folder at once. Synchronous: the harness installs before any test runs.
 * A lock older than 15 minutes belongs to a run that died and is taken over.
 */
export function withDirLock<T>(lock: string, fn: () => T, timeoutMs = 10 * 60_000, everyMs = 300): T {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, everyMs);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
