// Which Ray sessions a run uses, found from its own processes (Linux /proc): a Ray driver keeps its
// session's log files open (`<session>/logs/python-core-driver-*.log`, `events/...`), a raylet or
// GCS the run started names the session in its command line (`--raylet_socket_name=<session>/
// sockets/raylet`, `--log_dir=<session>/logs`). A run that joins a cluster started elsewhere has no
// raylet among its descendants, but its driver's open logs still name the session. When none of the
// run's processes names one and its root's environment sets RAY_ADDRESS, the newest session of its
// Ray temp folder (`session_latest`) is taken. Bounded: processes, descriptors per process.
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { descendants, type ProcInfo } from '../launch/processes';
import { mapLimit } from '../fs/seam';
import { latestSessionAsync, rayTempRoot } from '../ray/session';

const MAX_PROCESSES = 64;
const MAX_FDS = 512;
/** `/…/session_2026-12-06_22-20-27_600092_20923` followed by `/`. */
const SESSION_IN = /(\/[^\s'"=:]*?\/session_\d{4}-\d{2}-\d{2}_[\w-]+?)(?=\/)/;

export interface FoundSession {
  dir: string;
  /** How it was found: the process whose open file or command line names it, or `RAY_ADDRESS`. */
  how: { pid: number; via: 'open-file' | 'command-line' } | { pid: number; via: 'ray-address' };
}

/** The session folder a path or command line names, if any. */
export function sessionNamedIn(text: string): string | undefined {
  return SESSION_IN.exec(text)?.[1];
}

async function openSessions(pid: number): Promise<string | undefined> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds.slice(0, MAX_FDS)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => undefined);
    const dir = target && target.includes('/logs/') ? sessionNamedIn(target) : undefined;
    if (dir) return dir;
  }
  return undefined;
}

async function environValue(pid: number, key: string): Promise<string | undefined> {
  const env = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
  for (const kv of env.split('\0')) if (kv.startsWith(`${key}=`)) return kv.slice(key.length + 1);
  return undefined;
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

/** The Ray sessions of the run whose roots are `roots` (Linux; none elsewhere). Never throws. */
export async function raySessionsOfRun(
  roots: readonly number[],
  procs: readonly ProcInfo[],
  platform: NodeJS.Platform = process.platform,
): Promise<FoundSession[]> {
  if (platform !== 'linux') return [];
  const tree: ProcInfo[] = [];
  const seen = new Set<number>();
  for (const r of roots)
    for (const p of descendants(r, procs))
      if (!seen.has(p.pid) && tree.length < MAX_PROCESSES) {
        seen.add(p.pid);
        tree.push(p);
      }
  const found: FoundSession[] = [];
  const add = (dir: string, how: FoundSession['how']) => {
    if (!found.some((f) => f.dir === dir)) found.push({ dir, how });
  };
  for (const p of tree) {
    const dir = sessionNamedIn(p.args);
    if (dir && (await isDir(dir))) add(dir, { pid: p.pid, via: 'command-line' });
  }
  const open = await mapLimit(tree, 8, async (p) => ({ pid: p.pid, dir: await openSessions(p.pid) }));
  for (const o of open) if (o.dir && (await isDir(o.dir))) add(o.dir, { pid: o.pid, via: 'open-file' });
  if (!found.length)
    for (const r of roots) {
      if (!(await environValue(r, 'RAY_ADDRESS'))) continue;
      const tmp = await environValue(r, 'RAY_TMPDIR');
      const tmpdirEnv = await environValue(r, 'TMPDIR');
      const latest = await latestSessionAsync(rayTempRoot({ RAY_TMPDIR: tmp, TMPDIR: tmpdirEnv }, platform));
      if (latest && (await isDir(latest))) add(latest, { pid: r, via: 'ray-address' });
    }
  return found;
}
