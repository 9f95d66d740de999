// Is a recorded process still that run's process? A PID (or process group) named by a lock or a
// record may have been reused by an unrelated process since. The rule: a process that exists is the
// recorded one only if it started no later than the record was last written (a reused PID belongs
// to a process started after the original died, so after its last write). Linux reads
// /proc/<pid>/stat (start time in clock ticks since boot) and /proc/stat (boot time); macOS asks
// `ps -o lstart=`; elsewhere (Windows) only existence is known and the answer says "unverified".
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { mapLimit } from '../fs/seam';

export interface ProcessFacts {
  pid: number;
  /** Wall-clock start (ms), when the platform tells. */
  startMs?: number;
  /** Zombie: exited, not yet reaped: counts as gone. */
  zombie?: boolean;
  pgid?: number;
  command?: string;
}

/** How a recorded process stands. */
export interface Liveness {
  state: 'alive' | 'gone' | 'reused';
  /** False when the start time could not be compared (another platform, hidden /proc). */
  verified: boolean;
  /** Plain-language evidence, e.g. "process 42 started 10:02:11, before the lock was written". */
  detail: string;
  startMs?: number;
}

/** Start times have a resolution of a second (boot time) plus a tick; allow for that. */
export const START_SLACK_MS = 2000;

/** Reads one process's facts; undefined when there is no such process. Injected in tests. */
export type ProcessProbe = (pid: number) => ProcessFacts | undefined;

let bootMsCache: number | undefined;
function bootMs(): number | undefined {
  if (bootMsCache !== undefined) return bootMsCache;
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (m) bootMsCache = Number(m[1]) * 1000;
  } catch {
    /* no /proc */
  }
  return bootMsCache;
}

/** USER_HZ is 100 on every Linux architecture Node runs on. */
const CLK_TCK = 100;

/** Parses `/proc/<pid>/stat` (the command may hold spaces and parentheses: split after the last `)`). */
export function parseProcStat(text: string, boot: number | undefined): Omit<ProcessFacts, 'pid'> {
  const close = text.lastIndexOf(')');
  const open = text.indexOf('(');
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state); field 5 is pgrp, field 22 is starttime.
  const out: Omit<ProcessFacts, 'pid'> = { zombie: fields[0] === 'Z' || fields[0] === 'X' };
  const pgid = Number(fields[2]);
  if (Number.isInteger(pgid)) out.pgid = pgid;
  const ticks = Number(fields[19]);
  if (boot !== undefined && Number.isFinite(ticks)) out.startMs = boot + (ticks * 1000) / CLK_TCK;
  if (open >= 0 && close > open) out.command = text.slice(open + 1, close);
  return out;
}

/** Whether a process `pid` exists (signal 0; EPERM: it exists but is someone else's). */
export function existsBySignal(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The largest process id a system hands out: Linux's PID_MAX_LIMIT (2^22); elsewhere what
 * `kill()` takes (a 32-bit int).
 */
export function maxPid(platform: NodeJS.Platform = process.platform): number {
  return platform === 'linux' ? 4_194_304 : 2_147_483_647;
}

/** What a `.logger_lock` says: a process id, or why it does not name one (its text, quoted). */
export type LockContent = { pid: number } | { invalid: string };

/** The most of a lock that is read (beast-logger reads it whole; its own lock is a few bytes). */
export const MAX_LOCK_BYTES = 64 * 1024;

// Python's str.isspace() (what str.strip() and int() skip): Unicode White_Space less U+180E and
// U+FEFF, plus the C0 separators 0x1C-0x1F and NEL, which JavaScript's \s leaves out.
const PY_SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u;
const ND = /^\p{Nd}$/u;

/** The value of a Unicode decimal digit: Nd digits come in runs of ten from 0 (a Unicode stability rule). */
function digitValue(cp: number): number {
  let before = 0;
  while (cp - before - 1 >= 0 && ND.test(String.fromCodePoint(cp - before - 1))) before++;
  return before % 10;
}

/**
 * Python's `int(text.strip())` for base 10, or undefined where Python raises ValueError: an
 * optional sign, then decimal digits of any script with single underscores between them. Only
 * the first 40 digits are kept exactly (more name no process anyway).
 */
export function pythonInt(text: string): bigint | undefined {
  const cps = Array.from(text);
  let a = 0,
    b = cps.length;
  while (a < b && PY_SPACE.test(cps[a]!)) a++;
  while (b > a && PY_SPACE.test(cps[b - 1]!)) b--;
  let i = a;
  let neg = false;
  if (cps[i] === '+' || cps[i] === '-') neg = cps[i++] === '-';
  let digits = '';
  let lastWasDigit = false;
  for (; i < b; i++) {
    const c = cps[i]!;
    if (c === '_') {
      if (!lastWasDigit) return undefined;
      lastWasDigit = false;
      continue;
    }
    if (!ND.test(c)) return undefined;
    digits += String(digitValue(c.codePointAt(0)!));
    lastWasDigit = true;
  }
  if (!lastWasDigit) return undefined; // empty, a lone sign, or a trailing underscore
  const n = BigInt(digits);
  return neg ? -n : n;
}

/**
 * Reads a `.logger_lock` exactly as beast-logger does (`int(f.read().strip())` after opening it as
 * UTF-8 text): ` 4242\n` (what `echo $$ >` writes), `+4242`, `4_242` and full-width digits name
 * process 4242. What Python refuses (`1e3`, `3.5`, bytes that are not UTF-8) names none; nor do
 * 0 and 1 (init is never a run's process), negative ids or ids past the system's range.
 */
export function parseLockContent(bytes: Uint8Array, platform: NodeJS.Platform = process.platform): LockContent {
  let text: string;
  try {
    // Python keeps a BOM (U+FEFF is no space to it, so int() refuses it): ignoreBOM keeps it too.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { invalid: 'not UTF-8 text' };
  }
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  const n = pythonInt(text);
  if (n === undefined || n <= 1n || n > BigInt(maxPid(platform))) return { invalid: shown };
  return { pid: Number(n) };
}

/** The platform's probe. */
export function probeProcess(pid: number): ProcessFacts | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (process.platform === 'linux') {
    let text: string | undefined;
    try {
      text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      /* gone or hidden */
    }
    if (text !== undefined) return { pid, ...parseProcStat(text, bootMs()) };
    return existsBySignal(pid) ? { pid } : undefined;
  }
  if (process.platform === 'darwin' || process.platform === 'freebsd' || process.platform === 'openbsd') {
    if (!existsBySignal(pid)) return undefined;
    try {
      const out = execFileSync('ps', ['-o', 'lstart=,state=,pgid=', '-p', String(pid)], {
        encoding: 'utf8',
        timeout: 3000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      const m = /^(\w{3}\s+\w{3}\s+\d+\s+[\d:]+\s+\d{4})\s+(\S+)\s+(\d+)$/.exec(out);
      if (!m) return { pid };
      const facts: ProcessFacts = { pid, zombie: m[2]!.startsWith('Z'), pgid: Number(m[3]) };
      const t = Date.parse(m[1]!);
      if (Number.isFinite(t)) facts.startMs = t;
      return facts;
    } catch {
      return { pid };
    }
  }
  return existsBySignal(pid) ? { pid } : undefined;
}

const clock = (ms: number) => new Date(ms).toLocaleTimeString('en-GB', { hour12: false });

/**
 * Whether `pid` is still the process that wrote a record last written at `wroteAtMs`
 * (a lock's mtime, a folder's newest file).
 */
export function checkRecordedProcess(pid: number, wroteAtMs: number, probe: ProcessProbe = probeProcess): Liveness {
  // 0 and 1 (init) are never a run's process, nor an id past the system's range: no evidence.
  const f = Number.isInteger(pid) && pid > 1 && pid <= maxPid() ? probe(pid) : undefined;
  if (!f || f.zombie) return { state: 'gone', verified: true, detail: `process ${pid} is gone` };
  if (f.startMs === undefined)
    return {
      state: 'alive',
      verified: false,
      detail: `process ${pid} exists (its start time cannot be read here, so a reused process id cannot be ruled out)`,
    };
  if (f.startMs > wroteAtMs + START_SLACK_MS) {
    return {
      state: 'reused',
      verified: true,
      startMs: f.startMs,
      detail: `process id ${pid} now belongs to a process started ${clock(f.startMs)}, after the run last wrote (${clock(wroteAtMs)}): the run's process is gone`,
    };
  }
  return { state: 'alive', verified: true, startMs: f.startMs, detail: `process ${pid} is alive (started ${clock(f.startMs)})` };
}

/** Members of a process group (Linux: a /proc scan); undefined when the platform cannot list them. */
export type GroupProbe = (pgid: number) => ProcessFacts[] | undefined;

export function probeGroup(pgid: number): ProcessFacts[] | undefined {
  if (process.platform !== 'linux') return undefined;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const boot = bootMs();
  const out: ProcessFacts[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${n}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = parseProcStat(text, boot);
    if (f.pgid === pgid) out.push({ pid: Number(n), ...f });
  }
  return out;
}

/**
 * `probeGroup` for any number of groups, without blocking: /proc read once, asynchronously (the
 * extension host asks it). Undefined where /proc cannot be read (then probeGroup's answer stands).
 */
export async function groupProbeAsync(): Promise<GroupProbe | undefined> {
  if (process.platform !== 'linux') return undefined;
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return undefined;
  }
  const boot = bootMs();
  const byGroup = new Map<number, ProcessFacts[]>();
  await mapLimit(
    names.filter((n) => /^\d+$/.test(n)),
    32,
    async (n) => {
      const text = await readFile(`/proc/${n}/stat`, 'utf8').catch(() => undefined);
      if (!text) return;
      const f = parseProcStat(text, boot);
      if (f.pgid !== undefined) byGroup.set(f.pgid, [...(byGroup.get(f.pgid) ?? []), { pid: Number(n), ...f }]);
    },
  );
  return (pgid) => byGroup.get(pgid) ?? [];
}

function groupExistsBySignal(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process group recorded at `wroteAtMs` (a companion's `.pgid` file) still runs:
 * some member that is not a zombie started no later than the record (as smart_daemon's own
 * `is_pgid_running` skips zombies).
 */
export function checkRecordedGroup(pgid: number, wroteAtMs: number, probe: GroupProbe = probeGroup): Liveness {
  if (!Number.isInteger(pgid) || pgid <= 1) return { state: 'gone', verified: true, detail: `no process group ${pgid}` };
  const members = probe(pgid);
  if (members === undefined) {
    return groupExistsBySignal(pgid)
      ? { state: 'alive', verified: false, detail: `process group ${pgid} exists (start times cannot be read here)` }
      : { state: 'gone', verified: false, detail: `process group ${pgid} is gone` };
  }
  const live = members.filter((m) => !m.zombie);
  if (!live.length) return { state: 'gone', verified: true, detail: `process group ${pgid} is gone` };
  const ours = live.filter((m) => m.startMs === undefined || m.startMs <= wroteAtMs + START_SLACK_MS);
  if (!ours.length)
    return {
      state: 'reused',
      verified: true,
      detail: `process group id ${pgid} now belongs to processes started after the record was written`,
    };
  const first = ours[0]!;
  return {
    state: 'alive',
    verified: first.startMs !== undefined,
    ...(first.startMs !== undefined ? { startMs: first.startMs } : {}),
    detail: `process group ${pgid} is alive (${live.length} process${live.length === 1 ? '' : 'es'})`,
  };
}
