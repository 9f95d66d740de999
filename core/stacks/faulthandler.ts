// The no-py-spy way: ask a process started with the launch's stack hook (core/launch/stackHook.ts)
// for its stacks with SIGUSR1, then read what its faulthandler appended to `<dir>/<pid>.txt`.
// A process is signalled only when its file's first line names it (same pid, executable and start
// time as /proc says now): SIGUSR1 ends a process that has no handler for it.
import { open, readFile, readlink, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { STACKS_DIR_ENV, STACKS_HEADER } from '../launch/stackHook';
import { parseFaulthandler } from './parse';
import { MAX_DUMP_FILE_BYTES } from '../launch/stackDumps';
import type { ThreadStack } from './types';
import { t } from '../l10n';

/** The most a dump may add to the file that is read (100 threads x 100 frames of 500-character names fit). */
const MAX_DUMP_BYTES = 16 * 1024 * 1024;

export type DumpResult =
  { ok: true; threads: ThreadStack[] } | { ok: false; kind: 'no-tool' | 'gone' | 'timeout' | 'failed'; message: string };

/** AGENTJET_STACKS_DIR from a process's environment (Linux /proc; undefined elsewhere or when unreadable). */
export async function stacksDirOf(pid: number): Promise<string | undefined> {
  try {
    const env = await readFile(`/proc/${pid}/environ`, 'latin1');
    for (const kv of env.split('\0')) if (kv.startsWith(`${STACKS_DIR_ENV}=`)) return kv.slice(STACKS_DIR_ENV.length + 1) || undefined;
  } catch {
    /* not Linux, gone, or another user's */
  }
  return undefined;
}

/** `pid=N exe=PATH start=TICKS` from a dump file's first line. */
export function parseStacksHeader(line: string): { pid: number; exe: string; start: string } | undefined {
  if (!line.startsWith(STACKS_HEADER)) return undefined;
  const m = / pid=(\d+) exe=(.*) start=(\S+)\s*$/.exec(line.slice(STACKS_HEADER.length));
  return m ? { pid: Number(m[1]), exe: m[2]!, start: m[3]! } : undefined;
}

async function procIdentity(pid: number): Promise<{ exe: string | undefined; start: string | undefined } | undefined> {
  let statText: string;
  try {
    statText = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const start = statText
    .slice(statText.lastIndexOf(')') + 2)
    .trim()
    .split(/\s+/)[19];
  const exe = await readlink(`/proc/${pid}/exe`).catch(() => undefined);
  return { exe, start };
}

async function firstLine(file: string): Promise<string | undefined> {
  const fh = await open(file, 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8').split('\n')[0];
  } finally {
    await fh.close();
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Signals `pid` and reads the dump it writes. `dir`: the folder its launch set (else read from
 * /proc). Waits until the file grew and stopped growing, at most `deadlineMs`.
 */
export async function faulthandlerDump(
  pid: number,
  opts: { dir?: string; deadlineMs?: number; signal?: AbortSignal } = {},
): Promise<DumpResult> {
  if (process.platform === 'win32')
    return { ok: false, kind: 'no-tool', message: t('faulthandler dumps on a signal need POSIX signals (not on Windows)') };
  const dir = opts.dir ?? (await stacksDirOf(pid));
  if (!dir)
    return {
      ok: false,
      kind: 'no-tool',
      message: t('process {0} was not started with the stack hook ({1} not in its environment)', pid, STACKS_DIR_ENV),
    };
  const file = join(dir, `${pid}.txt`);
  const line = (await firstLine(file)) ?? '';
  const head = parseStacksHeader(line);
  if (!head || head.pid !== pid)
    return { ok: false, kind: 'no-tool', message: t('process {0} has no faulthandler registered (no {1})', pid, file) };
  if (process.platform === 'linux') {
    const now = await procIdentity(pid);
    if (!now) return { ok: false, kind: 'gone', message: t('process {0} ended', pid) };
    if ((now.exe !== undefined && now.exe !== head.exe) || (head.start !== '?' && now.start !== head.start))
      return { ok: false, kind: 'no-tool', message: t('process {0} is no longer the Python process that registered ({1})', pid, head.exe) };
  }
  // Bounded: a file grown past the cap by earlier dumps is cut back to its first line (the process
  // appends, so its next dump starts there).
  if ((await stat(file)).size > MAX_DUMP_FILE_BYTES) await truncate(file, Buffer.byteLength(line) + 1).catch(() => undefined);
  const before = (await stat(file)).size;
  try {
    process.kill(pid, 'SIGUSR1');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ESRCH'
      ? { ok: false, kind: 'gone', message: t('process {0} ended', pid) }
      : { ok: false, kind: 'failed', message: String(e) };
  }
  const end = Date.now() + (opts.deadlineMs ?? 5000);
  let last = before;
  let grew = false;
  while (Date.now() < end && !opts.signal?.aborted) {
    await sleep(40);
    const size = (await stat(file).catch(() => undefined))?.size ?? last;
    if (grew && size === last) break;
    if (size > before) grew = true;
    last = size;
  }
  if (!grew) {
    try {
      process.kill(pid, 0);
    } catch {
      return { ok: false, kind: 'gone', message: t('process {0} ended', pid) };
    }
    return {
      ok: false,
      kind: 'timeout',
      message: t('process {0} wrote no stacks within {1} s', pid, Math.round((opts.deadlineMs ?? 5000) / 1000)),
    };
  }
  const fh = await open(file, 'r');
  try {
    const len = Math.min(last - before, MAX_DUMP_BYTES);
    const buf = Buffer.alloc(len);
    const { bytesRead } = await fh.read(buf, 0, len, before);
    return { ok: true, threads: parseFaulthandler(buf.subarray(0, bytesRead).toString('utf8')) };
  } finally {
    await fh.close();
  }
}
