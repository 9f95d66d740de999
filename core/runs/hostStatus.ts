// Sessions and hosts: reads what a host folder holds (lock, logs, exception records, traceback)
// and hands the facts to the one set of status rules in core/agentjet/status.ts.
import { hostname as osHostname } from 'node:os';
import { basename, join } from 'node:path';
import { isHostlessSession } from '../agentjet/layout';
import { sameHost, parseHostFolder } from '../agentjet/hosts';
import { EXCEPTION_LINE, lastTraceback, launchForSession, tracebackInOutput, type LaunchRecordFile } from '../agentjet/launchRecord';
import { checkRecordedProcess, MAX_LOCK_BYTES, parseLockContent, probeProcess, type ProcessProbe } from '../agentjet/liveness';
import { combineStatus, decideHostStatus, isHarmlessException, reasonOf, type HostFacts, type StatusDecision } from '../agentjet/status';
import { mapLimit, tryReaddir, tryStat, type RunsFs } from '../fs/seam';
import { completeLines, decodeRecord, splitRecords } from './records';
import { parseSessionTime } from './roots';

let hostName: string | undefined;
/** The machine's name, asked once: it was a `uname` per host folder, 10,000 of them in a big tree. */
function thisHost(): string {
  return (hostName ??= osHostname());
}
import type { DiscoverOptions, HostInfo, LockInfo, SessionInfo } from './runTypes';

const DEFAULT_REMOTE_FRESH_MS = 5 * 60_000;

export function probeOf(opts: DiscoverOptions): ProcessProbe {
  if (opts.processProbe) return opts.processProbe;
  const isAlive = opts.isAlive;
  return isAlive ? (pid) => (isAlive(pid) ? { pid } : undefined) : probeProcess;
}

/** A host folder's facts plus the HostInfo they fill; the status is decided once siblings are known. */
export interface HostRead {
  info: HostInfo;
  facts: HostFacts;
}

export interface SessionRead {
  session: SessionInfo;
  reads: HostRead[];
}

/** Reads a session, resolves lock ownership between `<host>` and `<host>_<pid>` siblings, decides each host. */
export async function readSession(
  fs: RunsFs,
  path: string,
  opts: DiscoverOptions = {},
  launches: readonly LaunchRecordFile[] = [],
): Promise<SessionRead> {
  const name = basename(path);
  const { entries, error } = await tryReaddir(fs, path);
  const session: SessionInfo = { name, path, hosts: [], status: 'empty' };
  const t = parseSessionTime(name);
  if (t !== undefined) session.timeMs = t;
  if (error) {
    session.error = error;
    return { session, reads: [] };
  }
  const dirs = entries
    .filter((e) => e.kind === 'dir')
    .map((e) => e.name)
    .sort();
  const files = entries.filter((e) => e.kind === 'file').map((e) => e.name);
  const reads = isHostlessSession(dirs, files)
    ? [await readHost(fs, path, opts, true)]
    : await mapLimit(
        dirs.filter((d) => !d.startsWith('.')),
        4,
        (h) => readHost(fs, join(path, h), opts, false),
      );
  // A second process on the host overwrote `<host>/.logger_lock` with its PID and logs to `<host>_<pid>`.
  for (const r of reads) {
    const pid = r.info.lock?.pid;
    if (pid === undefined) continue;
    const sib = reads.find((o) => o !== r && o.info.pid === pid && sameHost(o.info.host, r.info.host));
    if (!sib || sib.facts.lock) continue;
    sib.info.lock = r.info.lock!;
    sib.facts.lock = r.facts.lock!;
    r.facts.lockTakenBy = { pid, folder: sib.info.name };
    delete r.facts.lock;
    delete r.info.lock;
  }
  const probe = probeOf(opts);
  for (const r of reads) {
    const lk = r.facts.lock;
    if (lk && r.info.local && lk.pid !== undefined) {
      lk.liveness = checkRecordedProcess(lk.pid, lk.mtimeMs, probe);
      r.info.lock!.liveness = lk.liveness;
      r.info.lock!.alive = lk.liveness.state === 'alive';
    }
    if (r.info.pid !== undefined && r.info.local && !lk)
      r.facts.folderPid = { pid: r.info.pid, liveness: checkRecordedProcess(r.info.pid, r.info.lastWriteMs ?? 0, probe) };
    if (r.info.local && session.timeMs !== undefined) {
      const L = launchForSession(launches, session.timeMs);
      if (L) await attachLaunch(fs, r.facts, L, probe);
    }
    decide(r);
  }
  session.hosts = reads.map((r) => r.info);
  session.status = combineStatus(session.hosts.map((h) => h.status));
  return { session, reads };
}

export async function inspectSession(fs: RunsFs, path: string, opts: DiscoverOptions = {}): Promise<SessionInfo> {
  return (await readSession(fs, path, opts)).session;
}

/** Decides (or re-decides, after completion evidence is added) one host's status. */
export function decide(r: HostRead): void {
  const d = decideHostStatus(r.facts);
  r.info.status = d.status;
  r.info.evidence = d.evidence;
  const reason = r.info.error ?? reasonOf(d);
  if (reason) r.info.reason = reason;
  else delete r.info.reason;
}

/**
 * A launch that wrote no session (yet): the Stop came before the logger registered, or the launcher
 * failed first. Its record alone decides (running, stopped, failed, finished; `empty` when it says
 * nothing).
 */
export async function decideLaunchOnly(fs: RunsFs, L: LaunchRecordFile, opts: DiscoverOptions = {}): Promise<StatusDecision> {
  const facts: HostFacts = {
    local: true,
    host: '',
    exceptions: { errors: 0, notes: 0 },
    modules: [],
    now: (opts.now ?? Date.now)(),
    remoteFreshMs: opts.remoteFreshMs ?? DEFAULT_REMOTE_FRESH_MS,
  };
  await attachLaunch(fs, facts, L, probeOf(opts));
  return decideHostStatus(facts);
}

async function attachLaunch(fs: RunsFs, facts: HostFacts, L: LaunchRecordFile, probe: ProcessProbe): Promise<void> {
  const launch: NonNullable<HostFacts['launch']> = { record: L.record, json: L.json };
  if (L.output) {
    launch.output = L.output;
    const tail = await readTail(fs, L.output, 64 * 1024);
    const tb = tail && tracebackInOutput(tail);
    if (tb) launch.traceback = tb;
  }
  // A live record: its launcher started before the record naming it was written (`pidMs`); before
  // there is a launcher, the process preparing the launch started before the record.
  if (L.record.endMs === undefined && L.record.pid !== undefined)
    launch.liveness = checkRecordedProcess(L.record.pid, L.record.pidMs ?? L.record.startMs, probe);
  else if (L.record.endMs === undefined && L.record.ownerPid !== undefined)
    launch.ownerLiveness = checkRecordedProcess(L.record.ownerPid, L.record.startMs, probe);
  facts.launch = launch;
}

async function readTail(fs: RunsFs, path: string, bytes: number): Promise<string | undefined> {
  const st = await tryStat(fs, path);
  if (!st) return undefined;
  try {
    const start = Math.max(0, st.size - bytes);
    return (await fs.readRange(path, start, st.size - start)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** One host folder (or a host-less session folder): lock, modules, exception records, traceback. */
export async function readHost(fs: RunsFs, path: string, opts: DiscoverOptions, hostless: boolean): Promise<HostRead> {
  const localHost = opts.localHost ?? thisHost();
  const name = hostless ? '(session)' : basename(path);
  const parsed = hostless ? { host: '' } : parseHostFolder(name, localHost);
  // A host-less layout does not say which machine wrote it: read as this one (the PID check guards).
  const local = hostless || sameHost(parsed.host, localHost);
  const info: HostInfo = {
    name,
    host: parsed.host,
    path,
    local,
    modules: [],
    hasTrajectories: false,
    exceptions: 0,
    notes: 0,
    status: 'empty',
    evidence: [],
  };
  if (hostless) info.hostless = true;
  if (parsed.pid !== undefined) info.pid = parsed.pid;
  const facts: HostFacts = {
    local,
    host: parsed.host,
    exceptions: { errors: 0, notes: 0 },
    modules: [],
    now: (opts.now ?? Date.now)(),
    remoteFreshMs: opts.remoteFreshMs ?? DEFAULT_REMOTE_FRESH_MS,
  };
  const read: HostRead = { info, facts };
  const { entries, error } = await tryReaddir(fs, path);
  if (error) {
    info.error = error;
    info.reason = error;
    return read;
  }
  info.modules = entries
    .filter((e) => e.kind === 'dir' && e.name !== 'trajectory' && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  info.hasTrajectories = entries.some((e) => e.kind === 'dir' && e.name === 'trajectory');
  facts.modules = info.modules;
  const writes: number[] = [];
  if (entries.some((e) => e.name === '.logger_lock')) {
    const lockPath = join(path, '.logger_lock');
    const st = await tryStat(fs, lockPath);
    if (st) {
      const lock: LockInfo = { path: lockPath, mtimeMs: st.mtimeMs };
      let invalid: string | undefined;
      if (!st.isFile()) invalid = st.isFIFO() ? 'a named pipe (FIFO)' : 'not a regular file';
      else if (st.size > MAX_LOCK_BYTES) invalid = `${st.size} bytes`;
      else {
        // Only a small regular file is read (readRange opens without blocking and checks again).
        try {
          const c = parseLockContent(await fs.readRange(lockPath, 0, MAX_LOCK_BYTES));
          if ('pid' in c) lock.pid = c.pid;
          else invalid = c.invalid;
        } catch {
          /* vanished between stat and read: treated as no pid */
        }
      }
      if (invalid !== undefined) lock.invalid = invalid;
      info.lock = lock;
      facts.lock = {
        path: lockPath,
        mtimeMs: st.mtimeMs,
        ...(lock.pid !== undefined ? { pid: lock.pid } : {}),
        ...(invalid !== undefined ? { invalid } : {}),
      };
      writes.push(st.mtimeMs);
    }
  }
  for (const f of ['rollout/rollout.json.log', 'regular/regular.log']) {
    const st = await tryStat(fs, join(path, f));
    if (st) writes.push(st.mtimeMs);
  }
  if (writes.length) {
    info.lastWriteMs = Math.max(...writes);
    facts.lastWriteMs = info.lastWriteMs;
  }
  if (info.modules.includes('exception')) {
    const file = join(path, 'exception', 'exception.json.log');
    const c = await countExceptionRecords(fs, file);
    info.exceptions = c.errors;
    info.notes = c.notes;
    facts.exceptions = { ...c, file };
  }
  if (info.modules.includes('regular')) {
    const file = join(path, 'regular', 'regular.log');
    const tb = await tracebackAtEnd(fs, file);
    if (tb) facts.regularTraceback = { text: tb, file };
  }
  return read;
}

/** Exception records in the last 256 KB of an exception log, split into errors and harmless notes (a floor for large logs). */
export async function countExceptionRecords(fs: RunsFs, path: string): Promise<{ errors: number; notes: number }> {
  const st = await tryStat(fs, path);
  if (!st || st.size === 0) return { errors: 0, notes: 0 };
  try {
    const start = Math.max(0, st.size - 256 * 1024);
    const buf = await fs.readRange(path, start, st.size - start);
    let errors = 0,
      notes = 0;
    for (const raw of splitRecords(completeLines(buf.toString('utf8') + '\n', start === 0))) {
      const header = decodeRecord(raw).payload?.header;
      if (isHarmlessException(typeof header === 'string' ? header : undefined)) notes++;
      else errors++;
    }
    return { errors, notes };
  } catch {
    return { errors: 0, notes: 0 };
  }
}

/** The exception line of a Python traceback that ends the log, if it does. */
export async function tracebackAtEnd(fs: RunsFs, path: string, tailBytes = 16 * 1024): Promise<string | undefined> {
  const st = await tryStat(fs, path);
  if (!st || st.size === 0) return undefined;
  let text: string;
  try {
    const start = Math.max(0, st.size - tailBytes);
    text = (await fs.readRange(path, start, st.size - start)).toString('utf8');
  } catch {
    return undefined;
  }
  return tracebackAtEndOf(text);
}

export function tracebackAtEndOf(text: string): string | undefined {
  const after = lastTraceback(text);
  if (!after) return undefined;
  // A normal log line after the traceback means the run carried on.
  for (const line of after.slice(1)) {
    const m = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \| ([A-Z]+)/.exec(line);
    if (m && m[1] !== 'ERROR' && m[1] !== 'CRITICAL') return undefined;
  }
  const last = after
    .filter((l) => l.trim() !== '')
    .at(-1)
    ?.trim();
  const m = last && EXCEPTION_LINE.exec(last);
  return m ? `traceback: ${m[1]!.slice(0, 200)}` : 'traceback at the end of the regular log';
}
