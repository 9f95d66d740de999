// The one owner of a launch's life, for every way the extension starts AgentJet (F5 debug and run,
// the swarm client, tasks, the CodeLens, "Debug this task", `agentjet debug-task`):
// - the steps (plan, preflight, debugpy start, launcher spawn, child attach) run through `step`, which
//   checks the user's stop before and after each one and gives up at once when it comes (a step
//   still running, a probe say, is cancelled through `signal`);
// - every process is started through `spawn`, which refuses once the stop was asked for: nothing
//   starts after a Stop, whatever the launch was doing when it came;
// - the set of what was started: process groups (POSIX) and tree roots (Windows);
// - `end`: polite, then forced (core/launch/treeKill.ts per platform), sparing the companions (the
//   vLLM server, read from their .pgid files at that moment) unless `autokill`;
// - the launch's token (core/launch/launchToken.ts): every process it spawns carries it in its
//   environment, so what left the trees and groups (a daemon: fork, setsid, fork; a `setsid` child)
//   is still found and ended by a stop, and by the watchdog;
// - the watchdog (core/launch/watchdog.ts) that ends all of it when the owner's process dies (the
//   extension host reloaded or crashed, the adapter process killed, the CLI killed).
// Pure of the editor API: the debug adapter, the task terminal and the CLI each hold one per launch.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { runProcess } from '../process/run';
import { isAlive, listProcesses, listProcessIds, planKill, type ProcInfo } from './processes';
import { killActions, spawnShape, stopPlatform, type KillAction, type StopPlatform } from './treeKill';
import { Watchdog } from './watchdog';
import { GroupFreezer } from './freeze';
import { companionFolder, companionsOf, companionsOfAsync, stopCompanions } from './companions';
import { FIXED_LOG_ROOTS } from './plan';
import { isolatedBaseDir } from './lifecycle';
import { newLaunchToken, processesWithToken, withLaunchToken } from './launchToken';

/** The stages of a launch, in order; `ended` once everything it started is gone. */
export type LaunchStage = 'idle' | 'plan' | 'preflight' | 'debugpy' | 'launcher' | 'attach' | 'running' | 'ended';

/** Thrown by `step`, `check` and `spawn` once the user asked to stop: the launch goes no further. */
export class LaunchStopped extends Error {
  constructor(readonly stage: LaunchStage) {
    super(`launch stopped by the user (${stage})`);
    this.name = 'LaunchStopped';
  }
}

/** What the owner tells its listeners (the live launch record, the editor's views). */
export type LaunchOwnerEvent =
  { kind: 'stage'; stage: LaunchStage } | { kind: 'stop' } | { kind: 'paused'; paused: boolean } | { kind: 'ended' };

export interface LaunchOwnerOptions {
  /** Stop ends the companions too (AgentJet's `--autokill`). */
  autokill?: boolean;
  /** Starts a watchdog with the first process (default true; false in unit tests). */
  watchdog?: boolean;
  platform?: NodeJS.Platform;
  /** How long the polite phase of a stop lasts before the forced one (default 1500 ms). */
  graceMs?: number;
  trace?: (line: string) => void;
}

export interface SpawnRequest {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
}

export class LaunchOwner {
  private readonly abort = new AbortController();
  private readonly platform: StopPlatform;
  private readonly groups = new Set<number>();
  private readonly roots = new Set<number>();
  private readonly freezer = new GroupFreezer();
  private watchdog: Watchdog | undefined;
  private ending: Promise<number[]> | undefined;
  private where: { cwd: string; env: NodeJS.ProcessEnv } | undefined;
  private autokill: boolean;
  private _stage: LaunchStage = 'idle';
  /** Carried in the environment of every process the launch spawns (AGENTJET_LAUNCH_TOKEN). */
  readonly token = newLaunchToken();
  /** When the user asked to stop (first time), for the launch record. */
  stopRequestedMs: number | undefined;
  /** Since when the launch sits paused in the debugger (a breakpoint, a step), if it does. */
  pausedSinceMs: number | undefined;
  private readonly listeners = new Set<(e: LaunchOwnerEvent) => void>();

  constructor(private readonly opts: LaunchOwnerOptions = {}) {
    this.platform = stopPlatform(opts.platform);
    this.autokill = opts.autokill === true;
  }

  /** Where the launch runs (finds its companions) and whether Stop ends them. */
  configure(where: { cwd: string; env: NodeJS.ProcessEnv; autokill?: boolean }): void {
    this.where = { cwd: where.cwd, env: where.env };
    if (where.autokill !== undefined) this.autokill = where.autokill;
  }

  get stage(): LaunchStage {
    return this._stage;
  }

  /** Every change of the launch (stage, stop asked, paused or resumed, ended); returns the unsubscribe. */
  onEvent(listener: (e: LaunchOwnerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: LaunchOwnerEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        this.trace(`listener failed: ${String(err)}`);
      }
    }
  }

  private setStage(stage: LaunchStage): void {
    if (this._stage === stage) return;
    this._stage = stage;
    this.emit({ kind: 'stage', stage });
  }

  /** The debugger paused the launch (a breakpoint, a step) or let it go on. */
  setPaused(paused: boolean, atMs = Date.now()): void {
    if (paused === (this.pausedSinceMs !== undefined) || this._stage === 'ended') return;
    this.pausedSinceMs = paused ? atMs : undefined;
    this.emit({ kind: 'paused', paused });
  }

  /** Aborted when the user asks to stop: hand it to whatever a step waits on. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get stopRequested(): boolean {
    return this.abort.signal.aborted;
  }

  /** The user's stop: from now on nothing starts. Synchronous, so it wins over any step in flight. */
  requestStop(): void {
    if (this.stopRequested) return;
    this.stopRequestedMs = Date.now();
    this.trace(`stop requested at stage ${this._stage}`);
    this.abort.abort();
    this.emit({ kind: 'stop' });
  }

  /** Throws LaunchStopped when the user asked to stop. */
  check(stage: LaunchStage = this._stage): void {
    if (this.stopRequested) throw new LaunchStopped(stage);
  }

  /**
   * One step of the launch: refused when the stop came before it; given up (LaunchStopped) the
   * moment the stop comes while it runs (its work is told through `signal`, and anything it would
   * still spawn is refused); refused after it when the stop came meanwhile.
   */
  async step<T>(stage: LaunchStage, work: (signal: AbortSignal) => Promise<T> | T): Promise<T> {
    this.check(stage);
    this.setStage(stage);
    const signal = this.abort.signal;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onAbort = () => reject(new LaunchStopped(stage));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // The losing side of the race must not become an unhandled rejection.
    stopped.catch(() => undefined);
    try {
      const out = await Promise.race([Promise.resolve().then(() => work(signal)), stopped]);
      this.check(stage);
      return out;
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /** Marks the launch as running (its launcher started): the stage `end` reports from. */
  running(): void {
    if (this._stage !== 'ended') this.setStage('running');
  }

  /**
   * Starts a process of the launch, in its own process group (POSIX) so a stop reaches its whole
   * tree; refused (LaunchStopped) once the user asked to stop. Spawn errors are thrown as they are.
   */
  spawn(command: string, args: readonly string[], req: SpawnRequest): ChildProcess {
    this.check();
    if (this.ending) throw new LaunchStopped(this._stage);
    // The watchdog first, so it holds the token before anything carries it.
    this.ensureWatchdog();
    const child = spawn(command, [...args], {
      cwd: req.cwd,
      env: withLaunchToken(req.env, this.token),
      stdio: req.stdio ?? ['ignore', 'pipe', 'pipe'],
      ...spawnShape(this.platform),
    });
    if (child.pid) this.adopt(child.pid, true);
    return child;
  }

  /**
   * A process of the launch that someone else started (debugpy's debuggee): its tree is ended with
   * the launch; `ownGroup` when it leads its own process group.
   */
  adopt(pid: number, ownGroup: boolean): void {
    if (!Number.isInteger(pid) || pid <= 1) return;
    this.roots.add(pid);
    const wd = this.ensureWatchdog();
    if (this.platform === 'win32') wd?.guardTree(pid);
    else if (ownGroup) this.addGroup(pid);
  }

  /** A process group to end with the launch (POSIX). */
  addGroup(pgid: number): void {
    if (this.platform === 'win32' || !Number.isInteger(pgid) || pgid <= 1 || this.groups.has(pgid)) return;
    this.groups.add(pgid);
    this.ensureWatchdog()?.guard(pgid);
  }

  /** Pid of the watchdog (tests). */
  get watchdogPid(): number | undefined {
    return this.watchdog?.pid;
  }

  /** Process groups the launch holds (tests, the sweep). */
  get processGroups(): number[] {
    return [...this.groups];
  }

  /**
   * Process groups the stop spares: the companions of the launch's folder (and its isolated base),
   * read without blocking, the groups' liveness from a process list already taken.
   */
  private async companionGroupsOf(list: readonly ProcInfo[] | undefined): Promise<number[]> {
    if (!this.where) return [];
    // Without a list: every group a companion file names, alive or not.
    const probe = (pgid: number) => (list ? list.filter((p) => p.pgid === pgid).map((p) => ({ pid: p.pid, pgid })) : [{ pid: pgid, pgid }]);
    const isolated = isolatedBaseDir(this.where.cwd, this.where.env);
    const all = await Promise.all([companionsOfAsync(this.where.cwd, probe), isolated ? companionsOfAsync(isolated, probe) : []]);
    return all.flat().map((c) => c.pgid);
  }

  /**
   * Notes the process groups of everything under the launch's roots, so children that re-group are
   * not lost (POSIX). Never blocks: the debug session's sweep calls it every 2 s in the extension host.
   */
  async noteGroups(procs?: readonly ProcInfo[]): Promise<void> {
    if (this.platform === 'win32' || !this.roots.size) return;
    const list = procs ?? (await listProcessIds());
    const spare = new Set(await this.companionGroupsOf(list));
    const myGroup = list.find((p) => p.pid === process.pid)?.pgid;
    const kids = new Map<number, ProcInfo[]>();
    for (const p of list) kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), p]);
    const seen = new Set<number>();
    const stack = [...this.roots];
    for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      for (const k of kids.get(pid) ?? []) {
        stack.push(k.pid);
        if (!spare.has(k.pgid) && k.pgid !== myGroup) this.addGroup(k.pgid);
      }
    }
  }

  /**
   * Ends what the launch started, polite then forced, sparing companions unless autokill.
   * `keepGroup`: a group left running (debugpy's adapter while it still reports the end); such an
   * end is partial and can be repeated. A full end happens once (later calls share it), releases
   * the watchdog and stops the companions with autokill. Resolves with the pids still alive.
   */
  end(opts: { keepGroup?: number } = {}): Promise<number[]> {
    if (opts.keepGroup !== undefined) return this.kill(opts.keepGroup);
    return (this.ending ??= (async () => {
      const left = await this.kill(undefined);
      if (this.autokill && this.where) await stopCompanions(companionsOf(this.where.cwd)).catch(() => undefined);
      this.pausedSinceMs = undefined;
      this.setStage('ended');
      this.trace(`launch ended, ${left.length} left`);
      this.emit({ kind: 'ended' });
      // Everything of ours is gone: the watchdog has nothing left to guard.
      this.release();
      return left;
    })());
  }

  /** The user's stop, whole: no further step, and everything ended. */
  stop(): Promise<number[]> {
    this.requestStop();
    return this.end();
  }

  /** Freezes the launch's groups (POSIX; not named companions, not `except`) while the stop looks (see freeze.ts). */
  async freeze(except?: number): Promise<void> {
    if (this.platform === 'win32' || this._stage === 'ended' || this.groups.size === 0) return;
    const named = this.where ? await this.companionGroupsOf(undefined) : [];
    const frozen = this.freezer.freeze(this.groups, new Set([...named, ...(except === undefined ? [] : [except])]));
    if (frozen.length) this.trace(`froze groups ${frozen.join(',')} at ${Date.now()}`);
  }

  /** The launch's processes are all gone (it ended by itself): the watchdog exits touching nothing. */
  release(): void {
    this.watchdog?.release();
    this.watchdog = undefined;
  }

  private ensureWatchdog(): Watchdog | undefined {
    // Once the launch ended there is nothing to guard: a late watchdog could one day signal a group id reused by a stranger.
    if (this.opts.watchdog === false || this._stage === 'ended') return undefined;
    if (!this.watchdog) {
      this.watchdog = new Watchdog();
      this.watchdog.sweepToken(this.token);
      if (this.where && !this.autokill)
        for (const root of FIXED_LOG_ROOTS) {
          this.watchdog.spare(companionFolder(this.where.cwd, root));
          const isolated = isolatedBaseDir(this.where.cwd, this.where.env);
          if (isolated) this.watchdog.spare(companionFolder(isolated, root));
        }
    }
    return this.watchdog;
  }

  private async kill(keepGroup: number | undefined): Promise<number[]> {
    const grace = this.opts.graceMs ?? 1500;
    if (this.platform === 'win32') return this.killWindows(grace);
    let spare: number[] | undefined;
    const planNow = async () => {
      const [procs, marked] = await Promise.all([listProcesses(), processesWithToken(this.token)]);
      const spared = (spare ??= this.autokill ? [] : await this.companionGroupsOf(procs));
      await this.noteGroups(procs);
      const plan = planKill(procs, [...this.roots], [...this.groups], spared);
      // What carries the launch's token but left its trees and groups (a daemon, a setsid child):
      // ended one by one, companions and the kept group aside (a process ps did not list yet: the next phase).
      const pgidOf = new Map(procs.map((p) => [p.pid, p.pgid]));
      const known = new Set(plan.pids);
      for (const pid of marked) {
        const g = pgidOf.get(pid);
        if (g === undefined || spared.includes(g) || g === keepGroup || known.has(pid)) continue;
        plan.pids.push(pid);
      }
      if (marked.length) this.trace(`end: ${marked.length} pids carry the launch's token`);
      if (keepGroup !== undefined) {
        const keep = new Set(procs.filter((p) => p.pgid === keepGroup).map((p) => p.pid));
        plan.pids = plan.pids.filter((p) => !keep.has(p));
        plan.pgids = plan.pgids.filter((g) => g !== keepGroup);
      }
      return plan;
    };
    await this.freeze(keepGroup);
    let plan: Awaited<ReturnType<typeof planNow>>;
    try {
      plan = await planNow();
      this.trace(`end: ${plan.pids.length} pids, groups ${plan.pgids.join(',')}`);
      await this.act(killActions('posix', plan, false));
    } finally {
      // SIGTERM is pending in what the freeze stopped: it is handled first thing on SIGCONT.
      this.freezer.thaw();
    }
    let left = await waitGone(plan.pids, grace);
    // The forced phase sees the tree again: what started during the polite one goes too.
    plan = await planNow();
    await this.act(killActions('posix', { pids: [...new Set([...left, ...plan.pids])], pgids: plan.pgids }, true));
    left = await waitGone([...new Set([...left, ...plan.pids])], 2000);
    return left;
  }

  private async killWindows(grace: number): Promise<number[]> {
    const roots = [...this.roots];
    await this.act(killActions('win32', { pids: roots, pgids: [] }, false));
    let left = await waitGone(roots, grace);
    if (left.length) await this.act(killActions('win32', { pids: left, pgids: [] }, true));
    left = await waitGone(left, 2000);
    return left;
  }

  private async act(actions: readonly KillAction[]): Promise<void> {
    for (const a of actions) {
      if (a.kind === 'signal') {
        try {
          process.kill(a.target, a.signal);
        } catch {
          /* already gone, or not ours */
        }
      } else {
        await runProcess(a.cmd.command, a.cmd.args, { timeoutMs: 10_000 }).catch(() => undefined);
      }
    }
  }

  private trace(line: string): void {
    this.opts.trace?.(line);
  }
}

async function waitGone(pids: readonly number[], ms: number): Promise<number[]> {
  let left = pids.filter(isAlive);
  const deadline = Date.now() + ms;
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    left = left.filter(isAlive);
  }
  return left;
}
