// One deadline per interpreter. Several features ask the same Python something (where AgentJet
// is installed, where a module is, the doctor's probe); an interpreter that does not answer (a
// shim waiting on a network mount, a wrapper that hangs) must cost one deadline, not one per
// question in a row. So: every question to an interpreter goes through `askInterpreter`; when one
// runs out of time, the others in flight for that interpreter end with it, and the interpreter is
// remembered as silent for a while, so later questions are answered at once with the reason.
import { spawnSync } from 'node:child_process';
import { ProcessError, runProcess, type ProcessResult, type RunProcessOptions } from './run';
import { t } from '../l10n';
import { printable } from '../l10n/printable';

/** How long an interpreter has to answer a question (a probe that imports nothing). */
export const INTERPRETER_ANSWER_MS = 8000;

/** How long a silent interpreter is not asked again (it may have been a cold disk). */
export const SILENT_REMEMBERED_MS = 10 * 60_000;

interface Silence {
  ms: number;
  at: number;
  /** Why, when it is not "did not answer" (it exited, a process it started held its output until the deadline). */
  text?: string;
}

const silent = new Map<string, Silence>();
const inflight = new Map<string, Set<AbortController>>();

/** The reason in words: "`/x/python` did not answer within 8 s". */
export function silenceText(python: string, ms: number): string {
  return t('`{0}` did not answer within {1} s', python, Math.round(ms / 100) / 10);
}

/** "`/x/python` exited with code 1, but a process it started kept its output open" (+ the end of stderr). */
export function heldOpenText(python: string, code: string, stderr: string): string {
  return t('`{0}` exited with code {1}, but a process it started kept its output open', python, code) + stderrTail(stderr);
}

/** ": <the last line of stderr>" (at most 200 characters), or nothing. */
export function stderrTail(stderr: string): string {
  const last = stderr.trim().split('\n').pop()?.trim() ?? '';
  if (!last) return '';
  return `: ${printable(last.length > 200 ? `…${last.slice(-200)}` : last)}`;
}

/**
 * Why a question to `python` got no answer, in words: silent, missing, exited with its code and the
 * end of its stderr (its output held open by a child said so), killed, or could not start.
 */
export function interpreterFailure(python: string, err: unknown): string {
  if (err instanceof InterpreterSilentError) return err.reason;
  if (!(err instanceof ProcessError)) return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  if (err.failure === 'not-found') return t('`{0}` does not exist', python);
  if (err.failure === 'spawn-failed') return t('`{0}` could not start ({1})', python, err.code ?? 'error');
  const code = err.failure === 'signal' ? (err.signal ?? 'a signal') : String(err.exitCode ?? '?');
  if (err.heldOpen) return heldOpenText(python, code, err.stderr);
  return t('`{0}` exited with code {1}', python, code) + stderrTail(err.stderr);
}

/** Why `python` is not asked (it did not answer lately), or undefined. */
export function interpreterSilence(python: string, now = Date.now()): string | undefined {
  const s = silent.get(python);
  if (!s) return undefined;
  if (now - s.at > SILENT_REMEMBERED_MS) {
    silent.delete(python);
    return undefined;
  }
  return s.text ?? silenceText(python, s.ms);
}

/** Forgets what was remembered (a changed setting, the tests). */
export function forgetInterpreter(python?: string): void {
  if (python === undefined) silent.clear();
  else silent.delete(python);
}

/** A question not asked, or given up, because the interpreter does not answer. */
export class InterpreterSilentError extends Error {
  constructor(
    readonly python: string,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'InterpreterSilentError';
  }
}

/**
 * Runs `python args` with the interpreter's deadline (`timeoutMs`, default 8 s). Rejects with an
 * InterpreterSilentError (its message says why in words) when the interpreter is known silent or
 * this question, or another one in flight for it, ran out of time; else as runProcess does.
 */
export async function askInterpreter(python: string, args: readonly string[], o: RunProcessOptions = {}): Promise<ProcessResult> {
  const known = interpreterSilence(python);
  if (known) throw new InterpreterSilentError(python, known);
  const ms = o.timeoutMs ?? INTERPRETER_ANSWER_MS;
  const mine = new AbortController();
  const peers = inflight.get(python) ?? new Set<AbortController>();
  inflight.set(python, peers);
  peers.add(mine);
  const onCallerAbort = () => mine.abort();
  if (o.signal?.aborted) mine.abort();
  else o.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await runProcess(python, args, { ...o, timeoutMs: ms, signal: mine.signal });
  } catch (err) {
    if (err instanceof ProcessError && err.failure === 'timed-out') {
      silent.set(python, { ms, at: Date.now() });
      // The other questions to the same interpreter wait on the same silence: they end now.
      for (const p of peers) if (p !== mine) p.abort();
      throw new InterpreterSilentError(python, silenceText(python, ms));
    }
    if (err instanceof ProcessError && err.failure === 'cancelled' && !o.signal?.aborted) {
      const why = interpreterSilence(python);
      if (why) throw new InterpreterSilentError(python, why);
    }
    throw err;
  } finally {
    o.signal?.removeEventListener('abort', onCallerAbort);
    peers.delete(mine);
    if (!peers.size) inflight.delete(python);
  }
}

export interface SyncAnswer {
  stdout: string;
  /** Why there is no answer (the interpreter is missing, failed, or silent: said in words). */
  problem?: string;
}

/**
 * `askInterpreter` for a caller that must block (the CLI's class resolver): the same deadline and
 * memory of silence; the child leads its own process group (POSIX), ended whole after the answer
 * or the deadline, so a wrapper's child is never left behind.
 */
export function askInterpreterSync(
  python: string,
  args: readonly string[],
  o: { timeoutMs?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): SyncAnswer {
  const known = interpreterSilence(python);
  if (known) return { stdout: '', problem: known };
  const ms = o.timeoutMs ?? INTERPRETER_ANSWER_MS;
  const posix = process.platform !== 'win32';
  const r = spawnSync(python, args, {
    encoding: 'utf8',
    timeout: ms,
    killSignal: 'SIGKILL',
    windowsHide: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 << 20,
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    env: o.env ?? process.env,
    // Node's spawnSync takes `detached` as spawn does (not in its types): its own process group.
    ...({ detached: posix } as object),
  });
  if (posix && r.pid) {
    try {
      process.kill(-r.pid, 'SIGKILL');
    } catch {
      /* nothing left in its group */
    }
  }
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  // It exited by itself, but a process it started (outside its group) kept the output open until the deadline.
  // Its answer is taken; a blocking caller cannot close the pipes sooner, so, as a silent one, it is not asked again for a while.
  if (code === 'ETIMEDOUT' && r.status !== null) {
    const held = heldOpenText(python, String(r.status), r.status === 0 ? '' : (r.stderr ?? ''));
    silent.set(python, { ms, at: Date.now(), text: held });
    return r.status === 0 ? { stdout: r.stdout ?? '' } : { stdout: r.stdout ?? '', problem: held };
  }
  if (code === 'ETIMEDOUT') {
    silent.set(python, { ms, at: Date.now() });
    return { stdout: '', problem: silenceText(python, ms) };
  }
  if (code === 'ENOENT') return { stdout: '', problem: t('`{0}` does not exist', python) };
  if (r.error) return { stdout: '', problem: r.error.message };
  if (r.status !== 0)
    return {
      stdout: r.stdout ?? '',
      problem: t('`{0}` exited with code {1}', python, String(r.status ?? r.signal)) + stderrTail(r.stderr ?? ''),
    };
  return { stdout: r.stdout ?? '' };
}
