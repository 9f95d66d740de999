// The process lifecycle of an `agentjet` launch: debugpy's adapter, the launcher (noDebug) and the
// debuggee debugpy reports, with every process group seen under them, so Stop ends the whole tree
// (children that re-group included) and spares companions (the vLLM server) unless `autokill`.
import type { ChildProcess } from 'node:child_process';
import { mergedEnv, type ResolvedLaunch } from '../core/launch/attributes';
import { sparedGroups } from '../core/launch/lifecycle';
import { listProcesses, planKill, terminate } from '../core/launch/processes';
import { companionFolder, companionsOf, stopCompanions } from '../core/launch/companions';
import { FIXED_LOG_ROOTS } from '../core/launch/plan';
import { Watchdog } from '../core/launch/watchdog';
import { trace } from './debugpy';

export class LaunchProcesses {
  /** `python -m debugpy.adapter` (debug runs), in its own process group. */
  debugpy: ChildProcess | undefined;
  /** The launcher itself (noDebug runs), in its own process group. */
  launcher: ChildProcess | undefined;
  /** The debuggee's pid, from debugpy's `process` event. */
  debuggeePid: number | undefined;
  /** The resolved launch (its cwd finds companions; `autokill` ends them too). */
  launch: ResolvedLaunch | undefined;
  private readonly seenGroups = new Set<number>();
  private stopping: Promise<void> | undefined;

  private watchdog: Watchdog | undefined;

  /** Notes a process group (the leader's pid) to end at Stop, or when this adapter dies (watchdog). */
  addGroup(pgid: number): void {
    this.seenGroups.add(pgid);
    if (!this.watchdog) {
      this.watchdog = new Watchdog();
      if (this.launch) for (const root of FIXED_LOG_ROOTS) this.watchdog.spare(companionFolder(this.launch.cwd, root));
    }
    this.watchdog.guard(pgid);
  }

  /** Pid of the watchdog that ends the launch's groups if this adapter dies (tests). */
  get watchdogPid(): number | undefined {
    return this.watchdog?.pid;
  }

  /** The pid of the launch's process for the launch record: the launcher (noDebug) or the debuggee. */
  get runPid(): number | undefined {
    return this.launcher?.pid ?? this.debuggeePid;
  }

  /** True while the launcher we started ourselves (noDebug) still runs. */
  get launcherRunning(): boolean {
    return !!this.launcher && this.launcher.exitCode === null && this.launcher.signalCode === null;
  }

  /** Records process groups of everything under debugpy, so children that re-group are not lost. */
  async noteGroups(): Promise<void> {
    const root = this.debugpy?.pid ?? this.launcher?.pid;
    if (!root) return;
    const procs = await listProcesses();
    const spare = new Set(this.companionGroups());
    const stack = [root];
    const seen = new Set<number>();
    for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      for (const p of procs)
        if (p.ppid === pid) {
          stack.push(p.pid);
          if (!spare.has(p.pgid)) this.addGroup(p.pgid);
        }
    }
  }

  private companionGroups(): number[] {
    return this.launch ? sparedGroups(this.launch.cwd, false, mergedEnv(this.launch)) : [];
  }

  /** Ends the launcher and its tree (and debugpy when `includeDebugpy`), sparing companions unless autokill. */
  cleanup(includeDebugpy: boolean): Promise<void> {
    const run = async (): Promise<void> => {
      const r = this.launch;
      const procs = await listProcesses();
      const spare = r?.autokill ? [] : this.companionGroups();
      const debugpyPid = this.debugpy?.pid;
      const roots = [this.debuggeePid, this.launcher?.pid, includeDebugpy ? debugpyPid : undefined].filter((p): p is number => !!p);
      const groups = [...this.seenGroups].filter((g) => includeDebugpy || g !== debugpyPid);
      const plan = planKill(procs, roots, groups, spare);
      // When only the debuggee should go, keep debugpy's own processes alive to finish the protocol.
      if (!includeDebugpy && debugpyPid) {
        const keep = new Set(procs.filter((p) => p.pgid === debugpyPid).map((p) => p.pid));
        plan.pids = plan.pids.filter((p) => !keep.has(p));
      }
      trace(`cleanup: ${plan.pids.length} pids, groups ${plan.pgids.join(',')}`);
      const left = await terminate(plan, 1500);
      trace(`cleanup done, ${left.length} left`);
      if (r?.autokill) await stopCompanions(companionsOf(r.cwd));
      // Everything of ours has ended: the watchdog has nothing left to guard.
      if (includeDebugpy) this.releaseWatchdog();
    };
    if (includeDebugpy) return (this.stopping ??= run());
    return run();
  }

  /** Ends debugpy's adapter (a refused launch), sparing companions unless `includeCompanions`. */
  async killDebugpy(includeCompanions: boolean): Promise<void> {
    const procs = await listProcesses();
    const roots = [this.debugpy?.pid].filter((p): p is number => !!p);
    await terminate(planKill(procs, roots, roots, includeCompanions ? [] : this.companionGroups()), 2000);
    // A refused launch: nothing of ours runs any more.
    if (!this.launcher) this.releaseWatchdog();
  }

  private releaseWatchdog(): void {
    this.watchdog?.release();
    this.watchdog = undefined;
  }
}
