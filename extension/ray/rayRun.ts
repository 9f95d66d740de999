// One launch that debugs Ray, as the Ray feature follows it: the Ray session folder it started or
// joined (its worker logs watched for paused workers), the dashboard polled for paused workers and
// live nodes, and the debug sessions attached to its workers.
import * as vscode from 'vscode';
import { SessionLogWatcher } from '../../core/ray/watcher';
import { listPausedWorkers, nodesAlive, StateApiError } from '../../core/ray/stateApi';
import { defaultDashboardFor, parseRayAddress, rayTempRoot, sessionForRunAsync } from '../../core/ray/session';
import { debugTagsArg } from '../../core/ray/tags';
import type { PausedWorker, RayClusterInfo } from '../../core/ray/types';
import { listenersKey, type ListeningWorker } from '../../core/ray/breakpoints';
import { DriverDoorbells, mergeListeners } from '../../core/ray/driverDoorbells';
import { ConsolePaused } from '../../core/ray/consolePaused';

/** What we follow for one launch that debugs Ray. */
export class RayRun implements vscode.Disposable {
  readonly startedAt = Date.now();
  sessionDir: string | undefined;
  dashboard: string | undefined;
  gcs: string | undefined;
  experiment: string | undefined;
  nodes: number | undefined;
  note: string | undefined;
  watcher: SessionLogWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private disposed = false;
  readonly attached = new Map<string, vscode.DebugSession | 'starting'>();
  /** Editor-breakpoint listeners already attached or skipped (by `host:port`). */
  readonly decided = new Set<string>();
  /** Listener keys attached through the editor-breakpoints mode. */
  readonly hookAttached = new Set<string>();
  /** Listeners already reported as over the session cap. */
  readonly capNoted = new Set<string>();
  /** Doorbells announced in the launch's console: the only trace of workers on other nodes. */
  private readonly doorbells = new DriverDoorbells();
  /** Workers paused at bp() as the console tells it (workers on other nodes, no dashboard needed). */
  private readonly consolePaused = new ConsolePaused('console');
  private lastListeners = '';

  constructor(
    readonly session: vscode.DebugSession,
    private readonly env: NodeJS.ProcessEnv,
    private readonly joinsExisting: boolean,
    private readonly onPaused: (run: RayRun, workers: PausedWorker[], source: string) => void,
    private readonly onListeners?: (run: RayRun, workers: ListeningWorker[]) => void,
  ) {
    const addr = parseRayAddress(env.RAY_ADDRESS || vscode.workspace.getConfiguration('agentjet').get<string>('ray.dashboardAddress'));
    this.dashboard = addr.dashboard;
    this.gcs = addr.gcs;
    if (!this.dashboard && this.gcs) this.dashboard = defaultDashboardFor(this.gcs);
    this.timer = setInterval(() => void this.tick(), 1000);
    void this.tick();
  }

  get tempRoot(): string {
    return rayTempRoot(this.env);
  }

  useSession(dir: string): void {
    if (this.sessionDir === dir) return;
    this.sessionDir = dir;
    this.watcher?.dispose();
    this.watcher = new SessionLogWatcher(dir).start();
    this.watcher.on('change', (w: PausedWorker[]) => this.onPaused(this, w, dir));
    this.watcher.on('listeners', () => this.emitListeners());
  }

  private get breakpointsMode(): boolean {
    return !!this.onListeners && this.session.configuration.rayBreakpoints === true;
  }

  /** A line of the launch's console (Ray relays the workers' lines of every node there). */
  feedOutput(line: string): void {
    if (this.breakpointsMode && this.doorbells.feed(line)) this.emitListeners();
    if (this.consolePaused.feed(line)) this.onPaused(this, this.consolePaused.list(), 'console');
  }

  /** The workers with a doorbell, from the log files here and from the console, once per change. */
  private emitListeners(): void {
    if (!this.onListeners) return;
    const all = mergeListeners(this.watcher?.hookListeners ?? [], this.doorbells.list());
    const key = listenersKey(all);
    if (key === this.lastListeners) return;
    this.lastListeners = key;
    this.onListeners(this, all);
  }

  useDashboard(url: string): void {
    if (!this.dashboard) this.dashboard = url;
  }

  private async tick(): Promise<void> {
    if (!this.sessionDir) {
      const dir = await sessionForRunAsync(this.tempRoot, this.startedAt, this.joinsExisting);
      if (dir && !this.sessionDir && !this.disposed) this.useSession(dir);
    }
    if (this.breakpointsMode) {
      // Workers whose logs are here are named by their logs; attached ones are settled.
      const settled = new Set([...this.attached.keys(), ...(this.watcher?.hookListeners ?? []).map((l) => l.key)]);
      void this.doorbells.refresh(settled).then((changed) => {
        if (changed) this.emitListeners();
      });
    }
    if (this.dashboard && !this.polling) {
      this.polling = true;
      try {
        const [workers, nodes] = await Promise.all([
          listPausedWorkers(this.dashboard, { timeoutMs: 2500 }),
          nodesAlive(this.dashboard, { timeoutMs: 2500 }),
        ]);
        this.nodes = nodes;
        this.note = undefined;
        this.onPaused(this, workers, this.dashboard);
      } catch (e) {
        this.note = e instanceof StateApiError ? e.message : String(e);
        this.onPaused(this, [], this.dashboard);
      } finally {
        this.polling = false;
      }
    }
  }

  info(paused: number): RayClusterInfo {
    return { sessionDir: this.sessionDir, dashboard: this.dashboard, address: this.gcs, nodesAlive: this.nodes, paused, note: this.note };
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    this.watcher?.dispose();
  }
}

/** A launch that asks for Ray debugging (`rayDebug`, `debugTags`). */
export function wantsRay(c: vscode.DebugConfiguration): boolean {
  return (
    c.request === 'launch' &&
    (c.rayDebug === true || c.rayBreakpoints === true || !!debugTagsArg((c.debugTags as unknown[] | undefined) ?? []))
  );
}
