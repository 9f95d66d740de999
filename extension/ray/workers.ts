// The Ray feature's state: the Paused workers view, the Ray runs it follows (one per launch that
// wants Ray, by debug session id), the idle watch while no launch runs and the view is shown, and
// the attached worker sessions. index.ts wires VS Code's events and commands to it.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { PausedWorkersView } from './pausedView';
import { setRayRunInfo } from './runsRow';
import { RayRun, wantsRay } from './rayRun';
import { SessionLogWatcher } from '../../core/ray/watcher';
import { listPausedWorkers } from '../../core/ray/stateApi';
import {
  dashboardFromOutput,
  defaultDashboardFor,
  latestSessionAsync,
  parseRayAddress,
  rayTempRoot,
  sessionFromOutput,
} from '../../core/ray/session';
import { parseDriverLine } from '../../core/ray/workerLog';
import { validPathMappings, type PathMapping, type PausedWorker } from '../../core/ray/types';
import { EVENT_EXPERIMENT, type ExperimentEventBody } from '../../core/protocol/debug';
import { EVENT_RAY_PAUSE, REQUEST_CONSOLE, type ConsoleRequestArguments, type RayPauseEventBody } from '../../core/protocol/ray';
import { maxSessions, nameKey, selectWorkers, workerPatterns, type ListeningWorker } from '../../core/ray/breakpoints';
import { DEBUG_TYPE } from '../debug/configs';

export class RayWorkers implements vscode.Disposable {
  readonly view = new PausedWorkersView();
  readonly tree: vscode.TreeView<PausedWorker>;
  private readonly runs = new Map<string, RayRun>();
  /** Without a launch: the newest local session, and the dashboard setting, while the view is visible. */
  private idleWatcher: SessionLogWatcher | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly services: Services) {
    this.tree = vscode.window.createTreeView('agentjet.rayPaused', { treeDataProvider: this.view });
  }

  private cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('agentjet');
  }

  private pathMappings(): PathMapping[] {
    return validPathMappings(this.cfg().get<unknown>('ray.pathMappings'));
  }

  updateMessage(): void {
    const n = this.view.all().length;
    this.tree.badge = n ? { value: n, tooltip: vscode.l10n.t('{0} Ray worker(s) paused', n) } : undefined;
    this.tree.message = n
      ? undefined
      : (this.view.message ??
        vscode.l10n.t(
          'No Ray worker is paused. Launch with "rayDebug": true or a bp() tag; workers that stop at a breakpoint or an uncaught exception appear here.',
        ));
  }

  async attach(
    w: Pick<PausedWorker, 'host' | 'port' | 'name' | 'pid'> & { doorbell?: boolean },
    parent?: vscode.DebugSession,
    run?: RayRun,
  ): Promise<boolean> {
    if (!this.services.trust.require('run-process', vscode.l10n.t('AgentJet: attaching a debugger needs a trusted workspace.')))
      return false;
    const key = `${w.host}:${w.port}`;
    if (run?.attached.has(key)) return true;
    run?.attached.set(key, 'starting');
    const folder = parent?.workspaceFolder ?? vscode.workspace.workspaceFolders?.[0];
    const config: vscode.DebugConfiguration = {
      type: DEBUG_TYPE,
      request: 'attach',
      name: vscode.l10n.t('Ray: {0} (pid {1})', w.name ?? 'worker', String(w.pid ?? '?')),
      connect: { host: w.host, port: w.port },
      pathMappings: validPathMappings(parent?.configuration.pathMappings).length
        ? validPathMappings(parent?.configuration.pathMappings)
        : this.pathMappings(),
      justMyCode: false,
      rayWorker: w.name ?? undefined,
      agentjetRayWorker: key,
      // An editor-breakpoints worker: `connect` is its doorbell; the adapter rings it to start debugpy.
      ...(w.doorbell ? { rayDoorbell: true } : {}),
    };
    this.services.log.info(`ray: attaching to ${w.name ?? 'worker'} at ${key}${parent ? ` under ${parent.name}` : ''}`);
    const ok = await vscode.debug.startDebugging(
      folder,
      config,
      parent ? { parentSession: parent, lifecycleManagedByParent: false } : undefined,
    );
    if (!ok) {
      run?.attached.delete(key);
      this.services.log.info(`ray: attaching to ${key} failed`);
    }
    return ok;
  }

  private readonly onPaused = (run: RayRun, workers: PausedWorker[], source: string): void => {
    this.view.set(`${run.session.id}:${source}`, workers);
    this.updateMessage();
    if (run.experiment) setRayRunInfo(run.experiment, run.info(workers.length));
    if (this.cfg().get<boolean>('ray.autoAttach') ?? true) {
      for (const w of workers) void this.attach(w, run.session, run);
    }
  };

  /** Editor-breakpoints mode: attach to the workers whose names match, up to the cap; say which were skipped. */
  private readonly onListeners = (run: RayRun, workers: ListeningWorker[]): void => {
    const c = run.session.configuration;
    if (c.rayBreakpoints !== true) return;
    const cap = maxSessions(c.rayMaxSessions);
    const patterns = workerPatterns(c.rayBreakpointWorkers);
    const live = [...run.hookAttached].filter((k) => run.attached.has(k)).length;
    const sel = selectWorkers(workers, patterns, cap, live, run.decided);
    const say = (text: string): void => {
      run.session.customRequest(REQUEST_CONSOLE, { text } satisfies ConsoleRequestArguments).then(undefined, () => undefined);
    };
    for (const w of sel.attach) {
      run.decided.add(w.key);
      run.hookAttached.add(w.key);
      void this.attach({ host: w.host, port: w.port, name: w.names.join(', '), pid: w.pid, doorbell: true }, run.session, run);
    }
    for (const { worker: w, reason } of sel.skipped) {
      if (reason === 'name') {
        run.decided.add(nameKey(w));
        say(
          vscode.l10n.t(
            'AgentJet: Ray worker pid {0} ({1}) not attached: no name matches {2} (launch attribute "rayBreakpointWorkers").',
            String(w.pid ?? '?'),
            w.names.join(', '),
            patterns.join(', '),
          ),
        );
      } else if (!run.capNoted.has(w.key)) {
        run.capNoted.add(w.key);
        say(
          vscode.l10n.t(
            'AgentJet: Ray worker pid {0} ({1}) not attached yet: {2} sessions already attached (launch attribute "rayMaxSessions").',
            String(w.pid ?? '?'),
            w.names.join(', '),
            cap,
          ),
        );
      }
    }
    const now = Date.now();
    this.view.set(
      `${run.session.id}:bp`,
      workers
        .filter((w) => run.hookAttached.has(w.key))
        .map((w) => ({
          id: `bp:${w.key}`,
          source: 'log' as const,
          name: w.names.join(', '),
          role: w.role,
          node: w.host,
          pid: w.pid,
          workerId: undefined,
          host: w.host,
          port: w.port,
          kind: 'attached' as const,
          tag: undefined,
          since: now,
          origin: run.sessionDir ?? '',
        })),
    );
    this.updateMessage();
  };

  private startIdle(): void {
    if (this.idleTimer || this.runs.size) return;
    const tick = async (): Promise<void> => {
      const dir = await latestSessionAsync(rayTempRoot());
      if (!this.idleTimer) return; // stopped meanwhile
      if (dir && this.idleWatcher?.sessionDir !== dir) {
        this.idleWatcher?.dispose();
        this.idleWatcher = new SessionLogWatcher(dir).start();
        this.idleWatcher.on('change', (w: PausedWorker[]) => {
          this.view.set('idle:log', w);
          this.updateMessage();
        });
      }
      const dash = parseRayAddress(this.cfg().get<string>('ray.dashboardAddress') || process.env.RAY_ADDRESS);
      const url = dash.dashboard ?? (dash.gcs ? defaultDashboardFor(dash.gcs) : undefined);
      if (url) {
        try {
          this.view.set('idle:api', await listPausedWorkers(url, { timeoutMs: 2500 }));
          this.view.setNote(undefined);
        } catch (e) {
          this.view.set('idle:api', []);
          this.view.setNote(e instanceof Error ? e.message : String(e));
        }
        this.updateMessage();
      }
    };
    this.idleTimer = setInterval(() => void tick(), 2000);
    void tick();
  }

  private stopIdle(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = undefined;
    this.idleWatcher?.dispose();
    this.idleWatcher = undefined;
    this.view.set('idle:log', []);
    this.view.set('idle:api', []);
  }

  /** The Attach command: the worker given (a view row), else one picked from the paused workers. */
  async attachFromView(w?: PausedWorker): Promise<boolean> {
    const target =
      w ??
      (
        await vscode.window.showQuickPick(
          this.view.all().map((p) => ({ label: p.name ?? String(p.pid), description: `${p.host}:${p.port}`, p })),
          { title: vscode.l10n.t('Attach to which paused Ray worker?') },
        )
      )?.p;
    if (!target) return false;
    // An editor-breakpoints row (`bp:`) gives the worker's doorbell, not debugpy's port.
    const doorbell = target.id.startsWith('bp:');
    const run = [...this.runs.values()].find(
      (r) =>
        r.watcher?.paused.some((p) => p.port === target.port && p.host === target.host) ||
        (doorbell && r.hookAttached.has(`${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`)),
    );
    return this.attach({ ...target, doorbell }, run?.session, run);
  }

  /** The Refresh command: every watcher scans its session's logs again. */
  refresh(): void {
    for (const r of this.runs.values()) void r.watcher?.scan();
    void this.idleWatcher?.scan();
    this.updateMessage();
  }

  visibilityChanged(visible: boolean): void {
    if (visible) this.startIdle();
    else if (!this.runs.size) this.stopIdle();
  }

  /** A debug session of ours started: a worker attach gets its session, a launch that wants Ray a RayRun. */
  sessionStarted(s: vscode.DebugSession): void {
    if (s.type !== DEBUG_TYPE) return;
    if (s.configuration.request === 'attach' && typeof s.configuration.agentjetRayWorker === 'string') {
      for (const r of this.runs.values())
        if (r.attached.get(s.configuration.agentjetRayWorker) === 'starting') r.attached.set(s.configuration.agentjetRayWorker, s);
      return;
    }
    if (!wantsRay(s.configuration)) return;
    this.stopIdle();
    const env = { ...process.env, ...((s.configuration.env as Record<string, string> | undefined) ?? {}) };
    const args = (s.configuration.args as string[] | undefined) ?? [];
    const joins = !!env.RAY_ADDRESS || args.includes('--with-ray-cluster');
    this.runs.set(s.id, new RayRun(s, env, joins, this.onPaused, this.onListeners));
    this.services.log.info(
      `ray: following Ray for ${s.name} (temp root ${rayTempRoot(env)}${env.RAY_ADDRESS ? `, RAY_ADDRESS ${env.RAY_ADDRESS}` : ''})`,
    );
  }

  sessionTerminated(s: vscode.DebugSession): void {
    const run = this.runs.get(s.id);
    if (run) {
      run.dispose();
      this.runs.delete(s.id);
      // Stop detaches every worker session of the launch (workers of a cluster go on).
      for (const child of run.attached.values()) if (child !== 'starting') void vscode.debug.stopDebugging(child);
      for (const src of [run.sessionDir, run.dashboard, 'bp']) if (src) this.view.set(`${s.id}:${src}`, []);
      this.updateMessage();
      if (this.tree.visible && !this.runs.size) this.startIdle();
      return;
    }
    // A child attach ended (Stop = detach): it may be attached again from the view.
    const key = s.configuration.agentjetRayWorker;
    if (typeof key === 'string') for (const r of this.runs.values()) if (r.attached.get(key) === s) r.attached.delete(key);
  }

  customEvent(e: vscode.DebugSessionCustomEvent): void {
    if (e.session.type !== DEBUG_TYPE) return;
    if (e.event === EVENT_RAY_PAUSE) {
      const b = e.body as RayPauseEventBody;
      const c = e.session.configuration.connect as { host?: string; port?: number } | undefined;
      if (c?.host && c.port) this.view.learn(c.host, c.port, { kind: b.kind, tag: b.tag });
      this.services.log.info(
        `ray: ${e.session.name} stopped (${b.kind}${b.tag ? `, tag ${b.tag}` : ''}) at ${b.file ?? '?'}:${b.line ?? '?'}`,
      );
    } else if (e.event === EVENT_EXPERIMENT) {
      const run = this.runs.get(e.session.id);
      if (run) {
        run.experiment = (e.body as ExperimentEventBody).folder;
        setRayRunInfo(run.experiment, run.info(run.watcher?.paused.length ?? 0));
      }
    }
  }

  /** A line of a launch's console: where Ray says which session and dashboard it uses. */
  consoleLine(sessionId: string, line: string): void {
    const run = this.runs.get(sessionId);
    if (!run) return;
    const dir = sessionFromOutput(line);
    if (dir) run.useSession(dir);
    const dash = dashboardFromOutput(line);
    if (dash) run.useDashboard(dash);
    if (parseDriverLine(line)?.event === 'waiting') void run.watcher?.scan();
    run.feedOutput(line);
  }

  /** Whether the launch of this session is followed (its console is worth reading). */
  follows(sessionId: string): boolean {
    return this.runs.has(sessionId);
  }

  dispose(): void {
    this.stopIdle();
    for (const r of this.runs.values()) r.dispose();
    this.runs.clear();
    this.tree.dispose();
    this.view.dispose();
  }
}
