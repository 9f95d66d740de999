// Short-lived processes (probes, doctor, pip, Ray state queries) through execa, the project's
// process library: a time limit, a stop that escalates (SIGTERM, then SIGKILL after a grace
// period, for a process that ignores the first), cancellation by AbortSignal, and one error that
// says what ran, how it ended and the end of what it wrote to stderr. The promise settles only
// once the process is gone, so nothing outlives its caller. Long-lived processes (launches,
// companions, servers, debug adapters) are not run here.
//
// The stop ends the whole process tree, not only the direct child: a pyenv/conda shim or any
// `#!/bin/sh` wrapper runs Python as its child, and that grandchild would keep the output pipe
// open (so the wait never ended) and live on. On POSIX the child leads a process group of its own
// (execa's `detached`) and the group is signalled; on Windows `taskkill /T /F` ends the tree.
// `detached` turns execa's `cleanup` off, so the groups still running when this process exits are
// killed from signal-exit's hook (the library execa itself uses for `cleanup`).
//
// A process the child started that left its group (a wrapper's daemon: setsid) may keep the output
// pipes open after the child and everything left in its group are gone. Then nothing more can come:
// the pipes are closed on it and the child's answer is taken as it stands (`heldOpen`), rather than
// waiting out the time limit and calling the interpreter silent.
import { execa, type ExecaError } from 'execa';
import { onExit } from 'signal-exit';

export interface RunProcessOptions {
  cwd?: string;
  /** The whole environment of the child (not added to this process's). Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Text written to stdin (then closed); without it stdin is closed at once. */
  input?: string;
  /** Stopped after this long (SIGTERM, then SIGKILL after `killGraceMs`). Default: no limit. */
  timeoutMs?: number;
  /** How long a stopped process has between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Stops the process (as a time-out does) when aborted. */
  signal?: AbortSignal;
  /** Bytes kept of stdout and of stderr each. Default 64 MB. */
  maxBuffer?: number;
}

/** The command that ends a process and all its descendants on Windows (pure, for the tests). */
export function windowsTreeKill(pid: number): { file: string; args: string[] } {
  return { file: 'taskkill', args: ['/PID', String(pid), '/T', '/F'] };
}

/** How long a stopped tree may keep its pipes open after SIGKILL before they are closed on it. */
const PIPE_GRACE_MS = 1000;

/** Process groups of running children (POSIX), killed if this process exits first. */
const liveGroups = new Set<number>();
let exitHookSet = false;
function trackGroup(pid: number): void {
  if (!exitHookSet) {
    exitHookSet = true;
    onExit(() => {
      for (const g of liveGroups) signalGroup(g, 'SIGKILL');
    });
  }
  liveGroups.add(pid);
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    /* the group is gone */
  }
}

/** Ends the tree of `pid`: its process group on POSIX, taskkill /T /F on Windows. */
function signalTree(pid: number, sig: NodeJS.Signals, platform: NodeJS.Platform = process.platform, then?: () => void): void {
  if (platform === 'win32') {
    // Windows has no graceful signal for a console program: the tree is ended at once.
    const { file, args } = windowsTreeKill(pid);
    execa(file, args, { reject: false, windowsHide: true, timeout: 10_000, stdio: 'ignore' })
      .catch(() => undefined)
      .finally(() => then?.());
    return;
  }
  signalGroup(pid, sig);
}

export interface ProcessResult {
  command: string;
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The child and its group had ended while a process it started (outside its group) held its output open. */
  heldOpen?: boolean;
}

/** Whether any process of group `pgid` is left (POSIX). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type ProcessFailure = 'not-found' | 'spawn-failed' | 'exit-code' | 'signal' | 'timed-out' | 'cancelled';

/** Bytes of stderr an error message quotes (the end, where the reason usually is). */
export const STDERR_TAIL_CHARS = 2000;

/** How a short-lived process failed: the command, the exit code or signal, and stderr's end. */
export class ProcessError extends Error {
  constructor(
    readonly failure: ProcessFailure,
    readonly command: string,
    readonly exitCode: number | undefined,
    readonly signal: string | undefined,
    readonly stdout: string,
    readonly stderr: string,
    /** The error the spawn itself gave (ENOENT, EACCES, ...), if any. */
    readonly code?: string,
    /** The child had exited while a process it started held its output open. */
    readonly heldOpen = false,
  ) {
    super(describe(failure, command, exitCode, signal, stderr, code, heldOpen));
    this.name = 'ProcessError';
  }

  /** The last STDERR_TAIL_CHARS characters of stderr, trimmed. */
  get stderrTail(): string {
    return tail(this.stderr);
  }
}

function tail(s: string): string {
  const t = s.trim();
  return t.length > STDERR_TAIL_CHARS ? `…${t.slice(-STDERR_TAIL_CHARS)}` : t;
}

function describe(
  failure: ProcessFailure,
  command: string,
  exitCode?: number,
  signal?: string,
  stderr = '',
  code?: string,
  heldOpen = false,
): string {
  const how =
    failure === 'not-found'
      ? 'not found'
      : failure === 'spawn-failed'
        ? `could not start (${code ?? 'error'})`
        : failure === 'timed-out'
          ? 'timed out'
          : failure === 'cancelled'
            ? 'cancelled'
            : failure === 'signal'
              ? `killed by ${signal ?? 'a signal'}`
              : `exited with code ${exitCode ?? '?'}`;
  const err = tail(stderr);
  const held = heldOpen ? ' (a process it started kept its output open)' : '';
  return `${command}: ${how}${held}${err ? `\n${err}` : ''}`;
}

/** Runs `file` with `args` (no shell) to completion; rejects with a ProcessError unless it exits 0. */
export async function runProcess(file: string, args: readonly string[], o: RunProcessOptions = {}): Promise<ProcessResult> {
  const posix = process.platform !== 'win32';
  const child = execa(file, args, {
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    env: o.env ?? process.env,
    extendEnv: false,
    ...(o.input !== undefined ? { input: o.input } : { stdin: 'ignore' }),
    stripFinalNewline: false,
    maxBuffer: o.maxBuffer ?? 64 * 1024 * 1024,
    windowsHide: true,
    // Its own process group (POSIX), so a stop reaches its children too.
    detached: posix,
  });
  const pid = child.pid;
  if (posix && pid !== undefined) trackGroup(pid);
  const command = [file, ...args].join(' ');
  let stopped: 'timed-out' | 'cancelled' | undefined;
  const timers: NodeJS.Timeout[] = [];
  const stop = (why: 'timed-out' | 'cancelled') => {
    if (stopped) return;
    stopped = why;
    if (pid === undefined) {
      child.kill('SIGKILL');
      return;
    }
    // SIGTERM to the tree, SIGKILL after the grace period; a process that left the group (setsid)
    // and still holds the pipes gets them closed, so the wait ends whatever it does.
    // Windows: the direct child too once taskkill has walked the tree (taskkill may be missing).
    signalTree(pid, 'SIGTERM', process.platform, () => child.kill('SIGKILL'));
    const grace = o.killGraceMs ?? 2000;
    timers.push(setTimeout(() => signalTree(pid, 'SIGKILL'), grace));
    timers.push(
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, grace + PIPE_GRACE_MS),
    );
  };
  // The child is gone: once its group is empty too, what still holds the pipes left the group (a
  // daemon), and nothing more of the answer can come: the pipes are closed on it.
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let heldOpen = false;
  let settled = false;
  // (once() returns the subprocess, itself awaited below.)
  void child.once('exit', (code, sig) => {
    exited = { code, signal: sig };
    if (!posix || pid === undefined) return;
    const check = () => {
      if (settled || stopped) return;
      if (groupAlive(pid)) {
        timers.push(setTimeout(check, 100));
        return;
      }
      heldOpen = true;
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    timers.push(setTimeout(check, PIPE_GRACE_MS));
  });
  const timer = o.timeoutMs !== undefined ? setTimeout(() => stop('timed-out'), o.timeoutMs) : undefined;
  const onAbort = () => stop('cancelled');
  if (o.signal?.aborted) onAbort();
  else o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const r = await child;
    if (stopped) throw new ProcessError(stopped, command, r.exitCode, undefined, r.stdout, r.stderr);
    return { command, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
  } catch (err) {
    if (err instanceof ProcessError) throw err;
    const e = err as ExecaError & { code?: string };
    const stdout = typeof e.stdout === 'string' ? e.stdout : '';
    const stderr = typeof e.stderr === 'string' ? e.stderr : '';
    if (heldOpen && exited && !stopped) {
      // The answer as the child left it, with its own exit code.
      if (exited.code === 0) return { command, stdout, stderr, exitCode: 0, heldOpen: true };
      const sig = exited.signal ?? undefined;
      throw new ProcessError(sig ? 'signal' : 'exit-code', command, exited.code ?? undefined, sig, stdout, stderr, undefined, true);
    }
    const signal = e.signal ?? undefined;
    const exitCode = typeof e.exitCode === 'number' ? e.exitCode : undefined;
    const failure: ProcessFailure = stopped
      ? stopped
      : e.code === 'ENOENT'
        ? 'not-found'
        : e.code && exitCode === undefined && !signal
          ? 'spawn-failed'
          : signal
            ? 'signal'
            : 'exit-code';
    throw new ProcessError(failure, command, exitCode, signal, stdout, stderr, e.code);
  } finally {
    settled = true;
    if (timer) clearTimeout(timer);
    for (const t of timers) clearTimeout(t);
    o.signal?.removeEventListener('abort', onAbort);
    if (posix && pid !== undefined) {
      // What the child left in its group (a wrapper's background child) ends with it.
      signalGroup(pid, 'SIGKILL');
      liveGroups.delete(pid);
    }
  }
}
