// How a launch's processes are ended on each platform, as pure data (unit-tested on every
// platform, whatever machine runs the tests):
// - POSIX (Linux, macOS): each process we start leads its own process group (`detached`), so a
//   signal to `-pgid` reaches every process of that tree that did not leave the group; the
//   descendants found with `ps` are signalled one by one too (the ones that did leave).
// - Windows: no process groups and no POSIX signals (a negative pid throws). `taskkill /T` ends
//   the tree under a pid, by parent pid; without `/F` it asks politely (console programs such as
//   Python may ignore it), with `/F` it forces.

export type StopPlatform = 'posix' | 'win32';

export function stopPlatform(p: NodeJS.Platform = process.platform): StopPlatform {
  return p === 'win32' ? 'win32' : 'posix';
}

export interface ShellKill {
  command: string;
  args: string[];
}

/** `taskkill /PID <pid> /T [/F]`: the tree under `pid`; `force` ends it without asking. */
export function taskkillCommand(pid: number, force: boolean): ShellKill {
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`not a process id: ${pid}`);
  return { command: 'taskkill', args: ['/PID', String(pid), '/T', ...(force ? ['/F'] : [])] };
}

/** One action of a stop: a signal to a process or a group (POSIX), or a command to run (Windows). */
export type KillAction = { kind: 'signal'; target: number; signal: 'SIGTERM' | 'SIGKILL' } | { kind: 'run'; cmd: ShellKill };

/**
 * What to do for one phase of a stop (`force` false: the polite phase, true: the forced one).
 * `pgids` are process groups (POSIX only), `pids` single processes on POSIX and tree roots on
 * Windows. Groups 0 and 1 and negative numbers are never targets.
 */
export function killActions(
  platform: StopPlatform,
  plan: { pids: readonly number[]; pgids: readonly number[] },
  force: boolean,
): KillAction[] {
  const ok = (n: number) => Number.isInteger(n) && n > 1;
  if (platform === 'win32') return [...new Set(plan.pids.filter(ok))].map((pid) => ({ kind: 'run', cmd: taskkillCommand(pid, force) }));
  const signal = force ? 'SIGKILL' : 'SIGTERM';
  return [
    ...[...new Set(plan.pgids.filter(ok))].map((g): KillAction => ({ kind: 'signal', target: -g, signal })),
    ...[...new Set(plan.pids.filter(ok))].map((p): KillAction => ({ kind: 'signal', target: p, signal })),
  ];
}

/** How a spawn must look so the stop can reach the whole tree: its own group on POSIX, no console window on Windows. */
export function spawnShape(platform: StopPlatform): { detached: boolean; windowsHide: boolean } {
  return platform === 'win32' ? { detached: false, windowsHide: true } : { detached: true, windowsHide: true };
}
