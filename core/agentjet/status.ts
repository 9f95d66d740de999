// Lock and status rules: what a run's files (and, for launches the extension started, its launch
// record) show, and no more. Derived from beast-logger's register.py:
// - `register_logger` writes `<host folder>/.logger_lock` holding its PID; an `atexit` hook removes
//   it at interpreter exit, after a clean end AND after an uncaught exception (whose traceback goes
//   to the launcher's stderr, not to a file). So no lock does not mean "finished".
// - A lock left behind means the process never ran its exit hooks: killed (SIGKILL, OOM killer,
//   power loss) or still running. Which one is decided by the PID and its start time (liveness.ts).
// - A second process on the same host finding a live lock writes its logs to `<host>_<pid>` but
//   still overwrites `<host>/.logger_lock` with its own PID, and whichever exits first removes it.
// - AgentJet writes non-fatal notes to exception.json.log ("Prompt token ids mismatch", "Prompt text
//   mismatch": ajet/context_tracker/multiagent_tracking.py fixes the tokens and carries on).
import type { RunStatus } from '../runs/types';
import type { Liveness } from './liveness';
import type { LaunchRecord } from './launchRecord';
import { t } from '../l10n';

export type EvidenceKind =
  'launch-record' | 'lock' | 'process' | 'remote-writes' | 'traceback' | 'exceptions' | 'notes' | 'completion' | 'files' | 'none';

export interface Evidence {
  kind: EvidenceKind;
  /** One plain sentence. */
  text: string;
  /** The file that shows it, when there is one. */
  file?: string;
}

export interface StatusDecision {
  status: RunStatus;
  /** The evidence that decided the status first, then supporting notes. */
  evidence: Evidence[];
}

/** Headers of exception.json.log records that AgentJet writes and then carries on. */
export const HARMLESS_EXCEPTION_HEADERS: readonly RegExp[] = [/^Prompt token ids mismatch\b/, /^Prompt text mismatch\b/];

export function isHarmlessException(header: string | undefined): boolean {
  return header !== undefined && HARMLESS_EXCEPTION_HEADERS.some((r) => r.test(header.trim()));
}

export interface HostFacts {
  local: boolean;
  host: string;
  /** The folder's own lock, when the lock is this folder's (see `lockOwner`). */
  lock?: { path: string; pid?: number; mtimeMs: number; liveness?: Liveness; invalid?: string };
  /** The lock names the process of a sibling `<host>_<pid>` folder: this folder's process is not recorded. */
  lockTakenBy?: { pid: number; folder: string };
  /** `<host>_<pid>` folders: the PID from the name and its liveness (the shared lock may be gone). */
  folderPid?: { pid: number; liveness?: Liveness };
  launch?: {
    record: LaunchRecord;
    json: string;
    output?: string;
    traceback?: string;
    liveness?: Liveness;
    /** A live record whose launcher has not started yet: the process preparing the launch. */
    ownerLiveness?: Liveness;
  };
  /** The exception line of a traceback that ends the regular log. */
  regularTraceback?: { text: string; file: string };
  exceptions: { errors: number; notes: number; file?: string };
  completion?: { text: string; file?: string };
  modules: readonly string[];
  lastWriteMs?: number;
  now: number;
  remoteFreshMs: number;
}

/** The status of one host folder (one process's logs) from its facts. */
export function decideHostStatus(f: HostFacts): StatusDecision {
  // What exception.json.log holds: harmless notes (shown with every verdict) and real errors.
  const inExceptions = (kind: 'notes' | 'exceptions', n: number, one: string, many: string): Evidence[] =>
    n > 0 ? [{ kind, text: n === 1 ? one : many, ...(f.exceptions.file ? { file: f.exceptions.file } : {}) }] : [];
  const notes = inExceptions(
    'notes',
    f.exceptions.notes,
    t('1 harmless note (prompt token mismatch) in exception.json.log'),
    t('{0} harmless notes (prompt token mismatch) in exception.json.log', f.exceptions.notes),
  );
  const done = (status: RunStatus, first: Evidence, ...more: Evidence[]): StatusDecision => ({
    status,
    evidence: [first, ...more, ...notes],
  });

  // 1. A launch the extension started: its exit status is exact.
  const L = f.launch;
  if (L) {
    const r = L.record;
    const file = L.json;
    if (r.endMs !== undefined) {
      if (r.exitCode === 0) return done('finished', { kind: 'launch-record', text: t('the launcher exited with code 0'), file });
      const how = r.signal ? t('the launcher was ended by {0}', r.signal) : t('the launcher exited with code {0}', r.exitCode ?? '?');
      // The user's own Stop: not a failure, whatever code the killed launcher exited with.
      if (r.stopRequestedMs !== undefined && r.stopRequestedMs <= r.endMs)
        return done('stopped', { kind: 'launch-record', text: t('stopped by the user ({0})', how), file });
      const tb: Evidence[] = L.traceback
        ? [{ kind: 'traceback', text: t('traceback: {0}', L.traceback), ...(L.output ? { file: L.output } : {}) }]
        : [];
      return done('failed', { kind: 'launch-record', text: how, file }, ...tb);
    }
    if (L.liveness?.state === 'alive')
      return done('running', { kind: 'launch-record', text: t('the launcher is running: {0}', L.liveness.detail), file });
    // Being prepared (plan, preflight, debugpy): no launcher yet, but the editor or CLI preparing it lives.
    if (r.pid === undefined && L.ownerLiveness?.state === 'alive')
      return done('running', { kind: 'launch-record', text: t('the launch is being prepared: {0}', L.ownerLiveness.detail), file });
    // Started by the extension, exit never recorded (the editor closed first): fall through to the files.
    notes.push({ kind: 'launch-record', text: t('launched from VS Code; its exit was not recorded'), file });
  }

  // 2. The folder's own lock.
  if (f.lock) {
    const lk = f.lock;
    if (!f.local) {
      const ago = f.now - (f.lastWriteMs ?? 0);
      if (ago < f.remoteFreshMs)
        return done('running', {
          kind: 'remote-writes',
          text: t('lock held on host {0}, which wrote {1} s ago', f.host, Math.max(0, Math.round(ago / 1000))),
          file: lk.path,
        });
      return done('interrupted', {
        kind: 'remote-writes',
        text: t('lock left on host {0}, nothing written for {1} min', f.host, Math.round(ago / 60_000)),
        file: lk.path,
      });
    }
    if (lk.pid === undefined)
      return done('interrupted', {
        kind: 'lock',
        text:
          lk.invalid !== undefined
            ? t('lock file without a valid process id (it holds {0})', lk.invalid)
            : t('lock file without a process id'),
        file: lk.path,
      });
    const lv = lk.liveness;
    if (lv?.state === 'alive')
      return done('running', {
        kind: 'lock',
        text: lv.verified ? t('lock held by {0}', lv.detail) : t('lock held by {0} (unverified)', lv.detail),
        file: lk.path,
      });
    const why = lv?.state === 'reused' ? lv.detail : t('process {0} is gone', lk.pid);
    return done('interrupted', {
      kind: 'lock',
      text: t('lock left behind by process {0}, which never ran its exit hooks (killed, e.g. SIGKILL or out of memory): {1}', lk.pid, why),
      file: lk.path,
    });
  }
  if (f.lockTakenBy) {
    const taken = f.lockTakenBy;
    const ago = f.now - (f.lastWriteMs ?? 0);
    const first: Evidence = {
      kind: 'lock',
      text: t("the lock was overwritten by process {0} (folder {1}); this folder's own process is not recorded", taken.pid, taken.folder),
    };
    if (ago < f.remoteFreshMs)
      return done('running', first, { kind: 'files', text: t('written {0} s ago', Math.max(0, Math.round(ago / 1000))) });
    return done('ended', first, { kind: 'files', text: t('nothing written for {0} min', Math.round(ago / 60_000)) });
  }

  // 3. `<host>_<pid>`: the PID is in the folder name.
  if (f.folderPid?.liveness?.state === 'alive' && f.local) {
    return done('running', { kind: 'process', text: t('{0} (process id from the folder name)', f.folderPid.liveness.detail) });
  }

  // 4. Errors that end a run.
  if (f.regularTraceback) return done('failed', { kind: 'traceback', text: f.regularTraceback.text, file: f.regularTraceback.file });

  // 5. Proof of completion.
  const errs = inExceptions(
    'exceptions',
    f.exceptions.errors,
    t('1 exception record in exception.json.log'),
    t('{0} exception records in exception.json.log', f.exceptions.errors),
  );
  if (f.completion)
    return done(
      'finished',
      { kind: 'completion', text: f.completion.text, ...(f.completion.file ? { file: f.completion.file } : {}) },
      ...errs,
    );
  if (errs.length) return done('failed', errs[0]!);

  // 6. The process exited (no lock) and nothing says how.
  if (f.modules.length)
    return done('ended', {
      kind: 'files',
      text: t(
        "no lock: the process exited; its logs do not show whether it completed or crashed (a crash's traceback goes to the launcher's output)",
      ),
    });
  return done('empty', { kind: 'none', text: t('nothing recorded') });
}

/**
 * A session or experiment: running if any host runs, then failed, stopped (the user's stop explains
 * the hosts it cut short), interrupted, ended, finished.
 */
export function combineStatus(list: readonly RunStatus[]): RunStatus {
  for (const s of ['running', 'failed', 'stopped', 'interrupted', 'ended', 'finished'] as const) if (list.includes(s)) return s;
  return 'empty';
}

/** The short reason a row shows: the deciding evidence. */
export function reasonOf(d: StatusDecision): string | undefined {
  const first = d.evidence[0];
  return first && first.kind !== 'none' ? first.text : undefined;
}
