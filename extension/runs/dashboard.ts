// Run dashboards: one webview per selection of runs, fed by incremental collectors (only what a
// run appended since the last poll is read). Restored after a reload by a serializer.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { RunCollector } from '../../core/runs/collector';
import { RolloutCurves } from '../../core/runs/curves';
import { FactsCache } from '../../core/logs/cache';
import { CancelledError } from '../../core/logs/index';
import type { RunsModel } from '../../core/runs/model';
import { DASHBOARD_VIEW_TYPE, type DashboardRun, type DashboardState, type HostToDashboard } from '../../core/protocol/dashboard';
import { checkDashboardToHost, describeRefused } from '../../core/protocol/validate';
import { restoreDashboardRuns } from '../../core/runs/dashboardRuns';
import { experimentHealth, healthText } from '../../core/runs/health';
import { causePlace } from '../../core/diagnose/format';
import { shownCauses } from '../../core/runs/format';
import type { ExperimentInfo } from '../../core/runs/discover';
import { runsStallMinutes } from '../settings';
import { isInside, resolveInside } from '../../core/fs/inside';
import { webviewHtml, webviewOptions } from '../webview';
import type { Services } from '../services';
import { MetricsFeed } from './metricsFeed';

const POLL_MS = 2500;
/** How often growing curves are posted while a run's rollout logs are read. */
const CURVES_POST_MS = 300;
/** Runs with less rollout log than this get their curves within the poll (one post, no progress). */
const INLINE_CURVE_BYTES = 32 * 1024 * 1024;

/** One run on the dashboard: evaluations and exceptions followed, per-step curves from the log engine. */
interface RunFeed {
  collector: RunCollector;
  curves: RolloutCurves;
  reading?: AbortController;
}

class Dashboard implements vscode.Disposable {
  private readonly collectors = new Map<string, RunFeed>();
  private readonly factsCache: FactsCache | undefined;
  private readonly sentStatus = new Map<string, string>();
  private readonly sentHealth = new Map<string, { state: string; text: string }>();
  private readonly sentCauses = new Map<string, NonNullable<DashboardRun['causes']>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private polling = false;
  private again = false;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** Training metrics (TensorBoard, console lines) of the runs. */
  readonly metrics: MetricsFeed;

  constructor(
    readonly panel: vscode.WebviewPanel,
    runs: string[],
    private readonly model: RunsModel,
    private readonly services: Services,
    private readonly pickRuns: () => Promise<string[]>,
    private readonly onDispose: (d: Dashboard) => void,
  ) {
    this.metrics = new MetricsFeed(
      model.fs,
      (m) => this.post(m),
      () => this.schedule(300),
      (msg) => services.log.warn(msg),
    );
    this.factsCache = services.storageDir ? new FactsCache(join(services.storageDir, 'tokenlog')) : undefined;
    for (const r of runs) this.collectors.set(r, this.feed(r));
    panel.webview.options = webviewOptions(services.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, services.extensionUri, 'dashboard', {
      title: 'Run Dashboard',
      styles: ['../dist/media/dashboard.css', 'dashboard/dashboard.css'],
    });
    panel.iconPath = vscode.Uri.joinPath(services.extensionUri, 'media', 'icons', 'agentjet.svg');
    this.updateTitle();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => {
        void this.onMessage(m);
      }),
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.schedule(0);
      }),
      panel.onDidDispose(() => this.dispose()),
      this.metrics,
    );
  }

  runs(): string[] {
    return [...this.collectors.keys()];
  }

  private feed(run: string): RunFeed {
    return {
      collector: new RunCollector(run, undefined, { followRollout: false }),
      curves: new RolloutCurves(run, { cache: this.factsCache }),
    };
  }

  private compose(path: string, f: RunFeed): DashboardRun {
    const run: DashboardRun = {
      ...f.collector.series(),
      steps: f.curves.points,
      status: (this.sentStatus.get(path) ?? 'unknown') as DashboardRun['status'],
    };
    const health = this.sentHealth.get(path);
    if (health) run.health = { ...health };
    const causes = this.sentCauses.get(path);
    if (causes) run.causes = causes.map((c) => ({ ...c }));
    if (f.curves.progress) run.stepsRead = { ...f.curves.progress };
    run.tasks = f.curves.tasks.size;
    run.tasksVersion = f.curves.tasksVersion;
    return run;
  }

  /**
   * Reads the run's per-step curves (all hosts, all rotated files) when its rollout logs changed;
   * one read per run at a time. A small run is read within the poll (the caller awaits the
   * result, the curves go out with the run); a large one in the background, posting the curves
   * as they grow with the reading progress. Resolves to whether the curves changed.
   */
  private readCurves(path: string, f: RunFeed, inline: boolean): Promise<boolean> | undefined {
    if (f.reading || this.disposed) return undefined;
    const ac = new AbortController();
    f.reading = ac;
    let last = 0;
    return (async () => {
      try {
        const changed = await f.curves.refresh(
          ac.signal,
          inline
            ? undefined
            : () => {
                const now = Date.now();
                if (now - last < CURVES_POST_MS || this.disposed || !this.ready) return;
                last = now;
                void this.post({ type: 'run', run: this.compose(path, f) });
              },
        );
        if (!inline && changed && !this.disposed && this.collectors.get(path) === f)
          await this.post({ type: 'run', run: this.compose(path, f) });
        return changed;
      } catch (err) {
        f.curves.progress = undefined;
        if (!(err instanceof CancelledError))
          this.services.log.warn(`dashboard: rollout curves of ${path}: ${err instanceof Error ? err.message : String(err)}`);
        return false;
      } finally {
        f.reading = undefined;
      }
    })();
  }

  private updateTitle(): void {
    const names = this.runs().map((r) => basename(r));
    this.panel.title = names.length === 1 ? `Run: ${names[0]}` : `Runs: ${names.length} compared`;
  }

  addRuns(runs: readonly string[]): void {
    for (const r of runs) if (!this.collectors.has(r)) this.collectors.set(r, this.feed(r));
    this.updateTitle();
    this.schedule(0, true);
  }

  /** Something under one of this dashboard's runs changed on disk. */
  touch(path: string): void {
    if (this.runs().some((r) => isInside(r, path))) this.schedule(300);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const checked = checkDashboardToHost(raw);
    if (!checked.ok) {
      this.services.log.warn(`dashboard: refused a message from the webview (${describeRefused(raw)}: ${checked.error})`);
      return;
    }
    const m = checked.value;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.schedule(0, true);
        return;
      case 'openFile': {
        // Only files under the runs on show (after realpath); the webview is not trusted to name others.
        const where = await resolveInside(m.path, this.runs());
        if (!where.ok) {
          this.services.log.warn(`dashboard: refused to open ${JSON.stringify(m.path.slice(0, 300))}: ${where.reason}`);
          return;
        }
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(where.path));
        return;
      }
      case 'removeRun':
        this.collectors.get(m.id)?.reading?.abort();
        this.collectors.delete(m.id);
        this.updateTitle();
        this.schedule(0, true);
        return;
      case 'addRuns':
        this.addRuns(await this.pickRuns());
        return;
      case 'tasks': {
        // Only this dashboard's runs; the table is the host's (read with the curves, cached per run).
        const f = this.collectors.get(m.run);
        if (!f) {
          this.services.log.warn(`dashboard: refused a task table query for a run not on this dashboard`);
          return;
        }
        const page = f.curves.tasks.query(m.query);
        await this.post({ type: 'tasks', run: m.run, seq: m.seq, ...page, reading: f.reading !== undefined });
        return;
      }
      case 'debugTask':
      case 'openTaskLog': {
        // The run folder is the host's own (a run on this dashboard), the task one its table lists.
        const f = this.collectors.get(m.run);
        if (!f || !f.curves.tasks.has(m.taskId)) {
          this.services.log.warn(`dashboard: refused ${m.type} for a run or task this dashboard does not list`);
          return;
        }
        if (m.type === 'debugTask') {
          await this.services.get('debugTask').debugTask({ taskId: m.taskId, run: m.run });
          return;
        }
        // The log of the task's latest record; a group whose live file rotated away opens from the run.
        const log = f.curves.tasks.logOf(m.taskId);
        await this.services.get('logs').openTokenLog(vscode.Uri.file(log && existsSync(log) ? log : m.run), { text: m.taskId });
        return;
      }
      case 'plot':
      case 'exportCsv':
      case 'exportPng':
        await this.metrics.handle(m);
        return;
    }
  }

  private fullNext = false;
  private schedule(ms: number, full = false): void {
    if (this.disposed) return;
    if (full) this.fullNext = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, ms);
  }

  private async poll(): Promise<void> {
    if (this.disposed || !this.ready) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    let keepPolling = false;
    try {
      const full = this.fullNext;
      this.fullNext = false;
      const changedRuns: DashboardRun[] = [];
      const all: DashboardRun[] = [];
      for (const [path, f] of this.collectors) {
        const changed = await f.collector.poll(this.model.fs);
        const info = await this.infoOf(path);
        const status = info?.status ?? 'unknown';
        const now = Date.now();
        const h = info && experimentHealth(info, now, runsStallMinutes());
        const health = h ? { state: h.state, text: healthText(h, now) } : undefined;
        const before = this.sentHealth.get(path);
        const causes = (info ? shownCauses(info, h) : undefined)?.map((c) => ({
          code: c.code,
          message: c.message,
          fix: c.fix,
          place: causePlace(c),
        }));
        const causesChanged = JSON.stringify(causes ?? []) !== JSON.stringify(this.sentCauses.get(path) ?? []);
        if (causes?.length) this.sentCauses.set(path, causes);
        else this.sentCauses.delete(path);
        const statusChanged = this.sentStatus.get(path) !== status || before?.text !== health?.text || causesChanged;
        this.sentStatus.set(path, status);
        if (health) this.sentHealth.set(path, health);
        else this.sentHealth.delete(path);
        let curvesChanged = false;
        if (!f.reading && (await f.curves.stale())) {
          const inline = f.curves.bytes <= INLINE_CURVE_BYTES;
          const reading = this.readCurves(path, f, inline);
          if (inline && reading) curvesChanged = await reading;
        }
        const run = this.compose(path, f);
        if (run.pendingBytes > 0 || status === 'running') keepPolling = true;
        all.push(run);
        if (changed || statusChanged || curvesChanged) changedRuns.push(run);
      }
      if (full) await this.post({ type: 'runs', runs: all });
      else for (const run of changedRuns) await this.post({ type: 'run', run });
      if ((await this.metrics.update(this.runs())) || full) await this.post(this.metrics.message());
    } catch (err) {
      this.services.log.warn(`dashboard: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.polling = false;
    }
    if (this.again) {
      this.again = false;
      this.schedule(0);
      return;
    }
    // Keep following only while something is being written and someone is looking.
    if (keepPolling && this.panel.visible) this.schedule(POLL_MS);
  }

  private async infoOf(path: string): Promise<ExperimentInfo | undefined> {
    const cached = this.model.cachedInfo(path);
    // A running run's details are re-read when stale (its health needs its latest writes).
    if (cached && !(cached.status === 'running' && this.model.needsInspect(cached.entry))) return cached;
    // Restored after a reload, before the Runs view read anything: ask the model once.
    const entry = (await this.model.experiments()).find((e) => e.path === path);
    return entry ? await this.model.info(entry) : cached;
  }

  private async post(msg: HostToDashboard): Promise<void> {
    await this.panel.webview.postMessage(msg);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const f of this.collectors.values()) f.reading?.abort();
    for (const d of this.disposables) d.dispose();
    this.onDispose(this);
  }
}

export class DashboardManager implements vscode.Disposable, vscode.WebviewPanelSerializer<DashboardState> {
  readonly open = new Set<Dashboard>();

  constructor(
    private readonly model: RunsModel,
    private readonly services: Services,
    private readonly pickRuns: () => Promise<string[]>,
  ) {}

  /**
   * Opens (or brings forward) the dashboard of exactly these runs. From the Runs view it opens
   * with `preserveFocus`: a new webview takes the focus when its page has loaded, which is a moment
   * later; taking it then closed the context menu the user had meanwhile opened on the next run,
   * and that click did nothing (issue 15, item 11).
   */
  show(runs: readonly string[], opts: { preserveFocus?: boolean } = {}): vscode.WebviewPanel {
    const preserveFocus = opts.preserveFocus ?? false;
    const want = [...new Set(runs)].sort().join('\n');
    const same = [...this.open].find((d) => [...d.runs()].sort().join('\n') === want);
    if (same) {
      same.panel.reveal(undefined, preserveFocus);
      return same.panel;
    }
    const panel = vscode.window.createWebviewPanel(
      DASHBOARD_VIEW_TYPE,
      'Run Dashboard',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus },
      { ...webviewOptions(this.services.extensionUri), retainContextWhenHidden: false },
    );
    this.attach(panel, [...runs]);
    return panel;
  }

  private attach(panel: vscode.WebviewPanel, runs: string[]): Dashboard {
    const d = new Dashboard(panel, runs, this.model, this.services, this.pickRuns, (x) => this.open.delete(x));
    this.open.add(d);
    return d;
  }

  /** Set by the runs feature: configures the model's roots (a restored dashboard may come before the tree loads). */
  beforeRestore: (() => void) | undefined;

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: DashboardState | undefined): Promise<void> {
    // The saved list is the page's word: only runs the host itself lists are shown (and so are
    // the only roots openFile accepts).
    let known: string[] = [];
    try {
      this.beforeRestore?.();
      known = (await this.model.experiments()).map((e) => e.path);
    } catch {
      // No listing: nothing restored.
    }
    this.attach(panel, restoreDashboardRuns(state, known).runs);
  }

  /** Tells dashboards showing a run under `path` that it changed on disk. */
  touch(path: string): void {
    for (const d of this.open) d.touch(path);
  }

  panels(): { runs: string[]; panel: vscode.WebviewPanel }[] {
    return [...this.open].map((d) => ({ runs: d.runs(), panel: d.panel }));
  }

  dispose(): void {
    for (const d of [...this.open]) d.panel.dispose();
  }
}
