// Processes a test run started and left behind. scripts/test-all.mjs marks every process it starts
// with AGENTJET_TEST_RUN=<run id> (children inherit it, and so do their detached grandchildren and
// companions); at the end it looks for live processes still carrying that mark, ends them and fails
// the run, so a test that does not end what it started is caught. Linux (/proc) only; elsewhere the
// check finds nothing.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export const TEST_RUN_ENV = 'AGENTJET_TEST_RUN';

/** Live (not zombie) processes whose environment holds AGENTJET_TEST_RUN=<runId>. */
export function findTestProcesses(runId, except = [process.pid]) {
  const out = [];
  let pids;
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  const mark = `${TEST_RUN_ENV}=${runId}`;
  for (const p of pids) {
    const pid = Number(p);
    if (except.includes(pid)) continue;
    try {
      const env = readFileSync(`/proc/${p}/environ`, 'latin1').split('\0');
      if (!env.includes(mark)) continue;
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const cmdline = readFileSync(`/proc/${p}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ');
      let cwd = '?';
      try {
        cwd = readlinkSync(`/proc/${p}/cwd`);
      } catch {
        // gone meanwhile, or not ours to read
      }
      out.push({ pid, cmdline, cwd });
    } catch {
      // exited meanwhile, or another user's process
    }
  }
  return out;
}

/**
 * Waits up to `graceMs` for the marked processes to end on their own (a test may be tearing down),
 * then kills those still alive. Resolves with what had to be killed.
 */
export async function endLeftovers(runId, graceMs = 3000) {
  const deadline = Date.now() + graceMs;
  let left = findTestProcesses(runId);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = findTestProcesses(runId);
  }
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return left;
}
