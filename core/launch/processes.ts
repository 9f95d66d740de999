// Process trees and process groups, for Stop: end everything a launch started, spare companions.
import { readdir, readFile } from 'node:fs/promises';
import { runProcess } from '../process/run';
import { mapLimit } from '../fs/seam';
import { existsBySignal } from '../agentjet/liveness';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  args: string;
}

export function parsePs(text: string): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s?(.*)$/.exec(line);
    if (m) out.push({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[4] ?? '' });
  }
  return out;
}

/** All processes (POSIX `ps`); empty on failure or on Windows. */
export async function listProcesses(): Promise<ProcInfo[]> {
  if (process.platform === 'win32') return [];
  try {
    return parsePs((await runProcess('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { maxBuffer: 16 * 1024 * 1024, timeoutMs: 5000 })).stdout);
  } catch {
    return [];
  }
}

/** pid, ppid and pgid of a `/proc/<pid>/stat` line (the command may hold spaces and parentheses). */
export function idsOfProcStat(pid: number, text: string): ProcInfo | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  // After the command: state, ppid, pgrp.
  const f = text.slice(close + 2).split(' ');
  const ppid = Number(f[1]),
    pgid = Number(f[2]);
  return Number.isInteger(ppid) && Number.isInteger(pgid) ? { pid, ppid, pgid, args: '' } : undefined;
}

/**
 * The process table's ids without starting a process, for a caller that polls from the extension
 * host (the debug session's sweep, every 2 s): on Linux /proc, read asynchronously; elsewhere (or
 * without /proc) `listProcesses`. `args` stays empty.
 */
export async function listProcessIds(): Promise<ProcInfo[]> {
  if (process.platform !== 'linux') return listProcesses();
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return listProcesses();
  }
  const found = await mapLimit(
    names.filter((n) => /^\d+$/.test(n)),
    32,
    async (n) => idsOfProcStat(Number(n), await readFile(`/proc/${n}/stat`, 'utf8').catch(() => '')),
  );
  const out = found.filter((p): p is ProcInfo => p !== undefined);
  return out.length ? out : listProcesses();
}

/** `root` and all its descendants. */
export function descendants(root: number, procs: readonly ProcInfo[]): ProcInfo[] {
  const kids = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = kids.get(p.ppid) ?? [];
    list.push(p);
    kids.set(p.ppid, list);
  }
  const out: ProcInfo[] = [];
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const self = procs.find((p) => p.pid === pid);
    if (self) out.push(self);
    for (const k of kids.get(pid) ?? []) stack.push(k.pid);
  }
  return out;
}

export interface KillPlan {
  pids: number[];
  pgids: number[];
}

/**
 * What to signal: the given roots' trees and the given process groups, minus anything in a
 * spared group (companions) and minus ourselves.
 */
export function planKill(
  procs: readonly ProcInfo[],
  roots: readonly number[],
  groups: readonly number[],
  spare: readonly number[],
  self = process.pid,
): KillPlan {
  const spared = new Set(spare);
  const myGroup = procs.find((p) => p.pid === self)?.pgid;
  const pids = new Set<number>();
  for (const r of roots) for (const p of descendants(r, procs)) if (!spared.has(p.pgid) && p.pid !== self) pids.add(p.pid);
  for (const p of procs) if (groups.includes(p.pgid) && !spared.has(p.pgid) && p.pid !== self) pids.add(p.pid);
  const pgids = groups.filter((g) => !spared.has(g) && g !== myGroup && g > 1);
  return { pids: [...pids], pgids };
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    /* already gone or not ours */
  }
}

/** Whether process `pid` still exists (liveness.ts). */
export const isAlive = existsBySignal;

/** SIGTERM, then SIGKILL whatever is left after `graceMs`. Resolves with the pids still alive (should be none). */
export async function terminate(plan: KillPlan, graceMs = 3000): Promise<number[]> {
  for (const g of plan.pgids) signal(-g, 'SIGTERM');
  for (const p of plan.pids) signal(p, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let left = plan.pids.filter(isAlive);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter(isAlive);
  }
  for (const g of plan.pgids) signal(-g, 'SIGKILL');
  for (const p of left) signal(p, 'SIGKILL');
  const end = Date.now() + 2000;
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 25));
    left = left.filter(isAlive);
  }
  return left;
}
