// The stacks of a run's tree: the process its lock names and its descendants, and the Ray workers
// of its session on this node (the descendants of the raylet whose command line names the session
// folder). Each Python process is read with py-spy, or with the faulthandler the launch arranged;
// bounded: a cap on processes, a deadline per process, a process that ends meanwhile is reported.
import { readlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { descendants, isAlive, listProcesses, type ProcInfo } from '../launch/processes';
import { mapLimit } from '../fs/seam';
import { faulthandlerDump, stacksDirOf } from './faulthandler';
import { groupStacks } from './group';
import { raySessionsOfRun } from './raySession';
import { explainPermission, findPySpy, pySpyDump } from './pyspy';
import type { ProcessStacks, StackReport } from './types';
import { t } from '../l10n';

export const DEFAULT_MAX_PROCESSES = 32;
export const DEFAULT_DEADLINE_MS = 8000;

export interface CollectOptions {
  /** The run's processes: the pid its lock names (or the launcher's), or one the user gave. */
  roots: readonly number[];
  /** Ray session folders whose workers on this node belong to the run. */
  raySessions?: readonly string[];
  /** Also find the run's Ray sessions from its own processes (core/stacks/raySession.ts); default true. */
  findRaySessions?: boolean;
  /** `auto` (py-spy when found, else faulthandler), or only one of them. */
  method?: 'auto' | 'py-spy' | 'faulthandler';
  /** A py-spy to use; else found on PATH or beside `interpreters`. */
  pySpy?: string;
  /** Interpreters whose folders may hold py-spy: pass them only when trust allows (core/trust). */
  interpreters?: readonly string[];
  env?: NodeJS.ProcessEnv;
  maxProcesses?: number;
  deadlineMs?: number;
  signal?: AbortSignal;
  /** The process list (tests inject one); default `ps`. */
  list?: () => Promise<ProcInfo[]>;
}

const PYTHONISH = /(^|\/)(python[\d.]*|pypy[\d.]*)(\s|$)|^ray::|\.py(\s|$)|-m\s|default_worker/;

async function isPython(p: ProcInfo): Promise<boolean> {
  if (process.platform === 'linux') {
    const exe = await readlink(`/proc/${p.pid}/exe`).catch(() => undefined);
    if (exe) return /^(python|pypy)/i.test(basename(exe).replace(/ \(deleted\)$/, ''));
  }
  return PYTHONISH.test(p.args);
}

/** Which processes belong to the run, in order: roots, their descendants, then Ray workers. */
export function runTree(
  procs: readonly ProcInfo[],
  roots: readonly number[],
  raySessions: readonly string[],
): { proc: ProcInfo; role: ProcessStacks['role'] }[] {
  const out: { proc: ProcInfo; role: ProcessStacks['role'] }[] = [];
  const seen = new Set<number>();
  const add = (proc: ProcInfo, role: ProcessStacks['role']) => {
    if (seen.has(proc.pid) || proc.pid === process.pid) return;
    seen.add(proc.pid);
    out.push({ proc, role });
  };
  for (const r of roots)
    for (const p of descendants(r, procs)) add(p, p.pid === r ? 'root' : p.args.startsWith('ray::') ? 'ray-worker' : 'child');
  for (const s of raySessions.filter(Boolean))
    for (const raylet of procs.filter((p) => /raylet/.test(p.args) && p.args.includes(s)))
      for (const p of descendants(raylet.pid, procs)) if (p.pid !== raylet.pid) add(p, 'ray-worker');
  return out;
}

/** Reads the stacks of every Python process of the run's tree. Never throws for a process: its error is in its row. */
export async function collectStacks(o: CollectOptions): Promise<StackReport> {
  const notes: string[] = [];
  const method = o.method ?? 'auto';
  const deadline = o.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const cap = o.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  const procs = await (o.list ?? listProcesses)();
  const found = o.findRaySessions === false ? [] : await raySessionsOfRun(o.roots, procs).catch(() => []);
  const sessions = [...new Set([...(o.raySessions ?? []), ...found.map((f) => f.dir)])];
  let tree = runTree(procs, o.roots, sessions);
  if (!procs.length) {
    // Windows (no `ps`): the given processes only.
    tree = o.roots.map((pid) => ({ proc: { pid, ppid: 0, pgid: 0, args: '' }, role: 'root' as const }));
    if (process.platform === 'win32') notes.push(t('On Windows only the given process is read (no process tree); py-spy is needed.'));
  }
  const rows: ProcessStacks[] = [];
  for (const r of o.roots)
    if (!tree.some((x) => x.proc.pid === r))
      rows.push({
        pid: r,
        ppid: undefined,
        args: '',
        role: 'root',
        method: undefined,
        threads: [],
        error: { kind: 'gone', message: t('process {0} ended', r) },
      });
  const python: typeof tree = [];
  let other = 0;
  for (const x of tree)
    if (x.role === 'root' || (await isPython(x.proc))) python.push(x);
    else other++;
  if (other)
    notes.push(
      other === 1 ? t('1 process of the tree is not Python (not read).') : t('{0} processes of the tree are not Python (not read).', other),
    );
  const chosen = python.slice(0, cap);
  const skipped = python.length - chosen.length;
  if (skipped)
    notes.push(
      skipped === 1
        ? t('1 more Python process was not read (the cap is {0}; --max-processes raises it).', cap)
        : t('{0} more Python processes were not read (the cap is {1}; --max-processes raises it).', skipped, cap),
    );
  const pySpy = method === 'faulthandler' ? undefined : (o.pySpy ?? (await findPySpy(o.env ?? process.env, o.interpreters ?? [])));
  if (method === 'py-spy' && !pySpy) notes.push(t("py-spy was not found on PATH or beside the run's interpreter: `pip install py-spy`."));
  let permissionExplained = false;
  const read = async ({ proc, role }: (typeof tree)[number]): Promise<ProcessStacks> => {
    const row: ProcessStacks = { pid: proc.pid, ppid: proc.ppid || undefined, args: proc.args, role, method: undefined, threads: [] };
    if (o.signal?.aborted) return { ...row, error: { kind: 'failed', message: t('cancelled') } };
    let failure: ProcessStacks['error'];
    if (pySpy) {
      const r = await pySpyDump(pySpy, proc.pid, deadline, o.signal);
      if (r.ok) return { ...row, method: 'py-spy', threads: r.threads };
      failure = { kind: r.kind, message: r.message };
      if (r.kind === 'gone' || r.kind === 'not-python') return { ...row, error: failure };
    }
    if (method !== 'py-spy') {
      const dir = await stacksDirOf(proc.pid);
      if (dir || !failure) {
        const r = await faulthandlerDump(proc.pid, {
          deadlineMs: deadline,
          ...(dir ? { dir } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
        });
        if (r.ok) return { ...row, method: 'faulthandler', threads: r.threads };
        if (!failure || r.kind !== 'no-tool') failure = { kind: r.kind, message: r.message };
      }
    }
    if (!isAlive(proc.pid)) failure = { kind: 'gone', message: t('process {0} ended', proc.pid) };
    if (!pySpy && failure?.kind === 'no-tool')
      failure.message = `${failure.message}; ${t('install py-spy (`pip install py-spy`) to read any Python process')}`;
    return { ...row, error: failure ?? { kind: 'failed', message: t('no stacks') } };
  };
  rows.push(...(await mapLimit(chosen, 4, read)));
  if (rows.some((r) => r.error?.kind === 'permission') && !permissionExplained) {
    permissionExplained = true;
    notes.push(await explainPermission());
  }
  const raySessions = sessions.map((dir) => {
    const how = found.find((f) => f.dir === dir)?.how;
    return { dir, ...(how ? { foundBy: how } : {}) };
  });
  return {
    takenAt: Date.now(),
    processes: rows,
    groups: groupStacks(rows),
    skipped,
    notes,
    ...(raySessions.length ? { raySessions } : {}),
  };
}
