// py-spy (benfred/py-spy): found on PATH, or beside the run's interpreter when the caller may look
// there (the folder's interpreter is the trust owner's to hand in), run as `py-spy dump --pid N
// --json` with a deadline, and its permission failures explained with what this machine says.
import { access, readFile, readlink } from 'node:fs/promises';
import { constants } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { runProcess, ProcessError } from '../process/run';
import { parsePySpyJson } from './parse';
import type { StackErrorKind, ThreadStack } from './types';
import { t } from '../l10n';

async function executable(p: string): Promise<boolean> {
  try {
    await access(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The py-spy to use: on PATH first, then in the folder of each interpreter given (pass an
 * interpreter only when trust allows it: it may be the workspace's own environment).
 */
export async function findPySpy(
  env: NodeJS.ProcessEnv = process.env,
  interpreters: readonly string[] = [],
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  const name = platform === 'win32' ? 'py-spy.exe' : 'py-spy';
  for (const d of (env.PATH ?? env.Path ?? '').split(delimiter).filter(Boolean)) if (await executable(join(d, name))) return join(d, name);
  for (const py of interpreters)
    if (py.includes('/') || py.includes('\\')) if (await executable(join(dirname(py), name))) return join(dirname(py), name);
  return undefined;
}

export type PySpyResult = { ok: true; threads: ThreadStack[] } | { ok: false; kind: StackErrorKind; message: string };

const PERMISSION = /permission denied|operation not permitted|os error 1\b|EPERM|ptrace|root privileges|sudo/i;
const GONE = /no such process|os error 3\b|process .* not found|failed to find process/i;
const NOT_PYTHON = /failed to find python version|doesn't appear to be a python|not a python/i;

/** One `py-spy dump --json` of `pid`, at most `deadlineMs`. */
export async function pySpyDump(pySpy: string, pid: number, deadlineMs = 8000, signal?: AbortSignal): Promise<PySpyResult> {
  try {
    const r = await runProcess(pySpy, ['dump', '--pid', String(pid), '--json'], {
      timeoutMs: deadlineMs,
      maxBuffer: 32 * 1024 * 1024,
      ...(signal ? { signal } : {}),
    });
    const threads = parsePySpyJson(r.stdout);
    return threads.length || r.stdout.trim().startsWith('[')
      ? { ok: true, threads }
      : { ok: false, kind: 'failed', message: r.stdout.slice(0, 400) };
  } catch (e) {
    if (!(e instanceof ProcessError)) return { ok: false, kind: 'failed', message: String(e) };
    if (e.failure === 'timed-out')
      return {
        ok: false,
        kind: 'timeout',
        message: t('py-spy got no answer from process {0} within {1} s', pid, Math.round(deadlineMs / 1000)),
      };
    const err = e.stderrTail || e.message;
    if (GONE.test(err)) return { ok: false, kind: 'gone', message: t('process {0} ended', pid) };
    if (NOT_PYTHON.test(err)) return { ok: false, kind: 'not-python', message: err.split('\n')[0] ?? err };
    if (PERMISSION.test(err)) return { ok: false, kind: 'permission', message: err.split('\n').find((l) => PERMISSION.test(l)) ?? err };
    return { ok: false, kind: 'failed', message: err.slice(-400) };
  }
}

/** CAP_SYS_PTRACE is bit 19 of the capability masks in /proc/self/status. */
export function hasPtraceCap(status: string): boolean | undefined {
  const m = /^CapEff:\s*([0-9a-fA-F]+)$/m.exec(status);
  return m ? (BigInt(`0x${m[1]}`) & (1n << 19n)) !== 0n : undefined;
}

/** What blocks py-spy here and what to do, read from this machine (Linux) or said for the platform. */
export async function explainPermission(platform: NodeJS.Platform = process.platform): Promise<string> {
  if (platform === 'darwin')
    return t(
      'macOS lets py-spy read another process only as root: run `sudo py-spy dump --pid PID`, or use Show Stacks on a launch the editor started (faulthandler, no py-spy).',
    );
  if (platform === 'win32') return t('On Windows py-spy needs an Administrator terminal for processes of another user.');
  const scope = (await readFile('/proc/sys/kernel/yama/ptrace_scope', 'utf8').catch(() => '')).trim();
  const status = await readFile('/proc/self/status', 'utf8').catch(() => '');
  const cap = hasPtraceCap(status);
  const container = await readFile('/proc/1/cgroup', 'utf8')
    .then((c) => /docker|kubepods|containerd|lxc/.test(c))
    .catch(() => false);
  const parts: string[] = [];
  if (scope === '1')
    parts.push(
      t(
        'kernel.yama.ptrace_scope is 1: a process may only be read by its parent. Run `sudo py-spy dump --pid PID`, or allow it until the next reboot with `sudo sysctl kernel.yama.ptrace_scope=0`.',
      ),
    );
  else if (scope === '2')
    parts.push(t('kernel.yama.ptrace_scope is 2: only root (CAP_SYS_PTRACE) may read another process. Run py-spy with sudo.'));
  else if (scope === '3') parts.push(t('kernel.yama.ptrace_scope is 3: no process may be read until the next reboot.'));
  if (cap === false && (container || scope === '' || scope === '0'))
    parts.push(
      t(
        'This process lacks CAP_SYS_PTRACE, as in a container started without it: start the container with `--cap-add=SYS_PTRACE` (Kubernetes: securityContext.capabilities.add: ["SYS_PTRACE"]).',
      ),
    );
  if (!parts.length) parts.push(t('The process may belong to another user: run py-spy as that user or with sudo.'));
  parts.push(t('Launches started from the editor answer without py-spy (faulthandler).'));
  return parts.join(' ');
}

/**
 * The interpreters a process runs under, for finding py-spy beside them: its argv[0] when absolute
 * (a venv's `bin/python`, which /proc/PID/exe resolves away) and its executable. Linux only.
 */
export async function interpretersOf(pid: number): Promise<string[]> {
  const out: string[] = [];
  const argv0 = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')[0] ?? '';
  if (isAbsolute(argv0)) out.push(argv0);
  const exe = await readlink(`/proc/${pid}/exe`).catch(() => undefined);
  if (exe && !out.includes(exe)) out.push(exe);
  return out;
}
