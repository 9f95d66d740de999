// The processes of an `agentjet` launch as the debug session sees them: debugpy's adapter, the
// launcher (noDebug) and the debuggee debugpy reports. Their life (the user's stop checked before
// every step, the process groups, stop, the watchdog) belongs to the launch's owner,
// core/launch/owner.ts; this names the session's processes over it.
import type { ChildProcess } from 'node:child_process';
import { mergedEnv, type ResolvedLaunch } from '../core/launch/attributes';
import { LaunchOwner } from '../core/launch/owner';
import { trace } from './debugpy';

export class LaunchProcesses {
  /** The owner of the launch's life: every step and spawn of the session goes through it. */
  readonly owner = new LaunchOwner({ trace });
  /** `python -m debugpy.adapter` (debug runs), in its own process group. */
  debugpy: ChildProcess | undefined;
  /** The launcher itself (noDebug runs), in its own process group. */
  launcher: ChildProcess | undefined;
  /** The debuggee's pid, from debugpy's `process` event. */
  debuggeePid: number | undefined;
  private _launch: ResolvedLaunch | undefined;

  /** The resolved launch (its cwd finds companions; `autokill` ends them too). */
  get launch(): ResolvedLaunch | undefined {
    return this._launch;
  }

  set launch(r: ResolvedLaunch | undefined) {
    this._launch = r;
    if (r) this.owner.configure({ cwd: r.cwd, env: mergedEnv(r), autokill: r.autokill === true });
  }

  /** A process reported by debugpy (the debuggee, a child process): ended with the launch. */
  addDebuggee(pid: number): void {
    this.owner.adopt(pid, true);
  }

  /** Pid of the watchdog that ends the launch's groups if this adapter dies (tests). */
  get watchdogPid(): number | undefined {
    return this.owner.watchdogPid;
  }

  /** The pid of the launch's process for the launch record: the launcher (noDebug) or the debuggee. */
  get runPid(): number | undefined {
    return this.launcher?.pid ?? this.debuggeePid;
  }

  /** True while the launcher we started ourselves (noDebug) still runs. */
  get launcherRunning(): boolean {
    return !!this.launcher && this.launcher.exitCode === null && this.launcher.signalCode === null;
  }

  /** Records process groups of everything the launch started, so children that re-group are not lost. */
  noteGroups(): Promise<void> {
    return this.owner.noteGroups();
  }

  /**
   * Ends the launch's processes, sparing companions unless autokill: everything with
   * `includeDebugpy` (once; the watchdog is released), else all but debugpy's adapter, which still
   * has to report the end over the protocol.
   */
  async cleanup(includeDebugpy: boolean): Promise<void> {
    const debugpyPid = this.debugpy?.pid;
    if (!includeDebugpy && debugpyPid && this.debugpy?.exitCode === null) await this.owner.end({ keepGroup: debugpyPid });
    else await this.owner.end();
  }

  /** Ends debugpy's adapter (a refused launch: nothing else of it was started). */
  async killDebugpy(): Promise<void> {
    await this.owner.end();
  }
}
