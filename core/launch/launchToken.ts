// Every process tree a launch starts carries one environment entry, `AGENTJET_LAUNCH_TOKEN=<random>`,
// set by the launch's owner (core/launch/owner.ts) on each spawn. A process the workflow daemonized
// (fork, setsid, fork: a new session, a new group, reparented to init) or a `setsid` child leaves the
// trees and groups the owner knows of, but it keeps its environment: on stop (and in the watchdog
// when the owner dies) every process that carries the launch's token is found and ended too.
//
// Where it is seen: Linux, from /proc/<pid>/environ (the environment the process was started or
// exec'd with; only processes of the same user are readable, so another user's processes are
// never candidates). Read bounded (ENVIRON_READ_LIMIT) and asynchronously (the extension host
// never waits). A process that replaced its whole environment (`env -i`, exec with a fresh env)
// is not seen; elsewhere (macOS, Windows) the sweep finds nothing and the groups and trees are
// what a stop ends, as before.
import { randomBytes } from 'node:crypto';
import { open, readdir } from 'node:fs/promises';

export const LAUNCH_TOKEN_VAR = 'AGENTJET_LAUNCH_TOKEN';

/** How much of one process's environment is read looking for the token. */
export const ENVIRON_READ_LIMIT = 1024 * 1024;

/** A fresh token for one launch: 128 random bits, hex. */
export function newLaunchToken(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The environment a launch's process is started with: `env` with the launch's token first (an
 * outer launch's token, inherited, is replaced), so a bounded read of /proc/<pid>/environ finds it early.
 */
export function withLaunchToken(env: NodeJS.ProcessEnv, token: string): NodeJS.ProcessEnv {
  const rest: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (k !== LAUNCH_TOKEN_VAR) rest[k] = v;
  return { [LAUNCH_TOKEN_VAR]: token, ...rest };
}

/** The exact environ entry, NUL-framed, so neither a longer token nor a value that merely contains it matches. */
function needle(token: string): Buffer {
  return Buffer.from(`\0${LAUNCH_TOKEN_VAR}=${token}\0`);
}

/** Whether a raw environ block (NUL-separated `K=V` entries) holds the token's exact entry. */
export function environHasToken(environ: Buffer, token: string): boolean {
  return Buffer.concat([Buffer.from([0]), environ, Buffer.from([0])]).includes(needle(token));
}

async function carries(pid: number, n: Buffer): Promise<boolean> {
  let fh;
  try {
    fh = await open(`/proc/${pid}/environ`, 'r');
  } catch {
    return false; // gone, or another user's
  }
  try {
    const chunk = Buffer.alloc(64 * 1024);
    // The previous chunk's tail, so an entry cut by a chunk boundary is still seen; a leading NUL frames the first entry.
    let carry = Buffer.from([0]);
    for (let read = 0; read < ENVIRON_READ_LIMIT;) {
      const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, ENVIRON_READ_LIMIT - read), null);
      if (bytesRead === 0) return Buffer.concat([carry, Buffer.from([0])]).includes(n);
      read += bytesRead;
      const window = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      if (window.includes(n)) return true;
      carry = window.subarray(Math.max(0, window.length - n.length + 1));
    }
    return false;
  } catch {
    return false;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * The pids (other than this process) whose environment carries `token`; empty where /proc cannot be
 * read. At most `concurrency` environments are read at once; after `timeoutMs` (default 3 s) the
 * sweep answers with what it found (a read that stalls never holds a stop).
 */
export async function processesWithToken(
  token: string,
  opts: { concurrency?: number; self?: number; timeoutMs?: number } = {},
): Promise<number[]> {
  if (process.platform !== 'linux' || !/^[0-9a-f]{8,}$/.test(token)) return [];
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const self = opts.self ?? process.pid;
  const pids = names
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((p) => p > 1 && p !== self);
  const n = needle(token);
  const found: number[] = [];
  const ms = opts.timeoutMs ?? 3000;
  const deadline = Date.now() + ms;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pids.length && Date.now() < deadline) {
      const pid = pids[next++]!;
      if (await carries(pid, n)) found.push(pid);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 16) }, worker)),
    new Promise((r) => (timer = setTimeout(r, ms + 100))),
  ]);
  clearTimeout(timer);
  return [...found].sort((a, b) => a - b);
}
