// The Runs view: experiments (newest first, status, step, reward, age, size) expanding into the
// config snapshot, sessions, hosts, logs, trajectories and checkpoints. All reads go through the
// shared RunsModel cache; details arrive in the background and refresh only their own rows. The
// node types are nodes.ts, the rows below an experiment items.ts, the folder sizes sizes.ts.
import * as vscode from 'vscode';
import {
  listHostArtefacts,
  sizeIsStale,
  listTrajectoryFiles,
  listTrajectorySteps,
  type ExperimentEntry,
  type ExperimentInfo,
  type HostInfo,
  type RunStatus,
} from '../../core/runs/discover';
import { describeRun, formatAge, launchPhaseText, runRowLabel, runTooltip, shownCauses, splitRunName } from '../../core/runs/format';
import { Limiter, mapLimit } from '../../core/fs/seam';
import type { RunsModel } from '../../core/runs/model';
import { decorateRunItem } from '../ray/runsRow';
import { treeItem } from './items';
import { RunSizes } from './sizes';
import { runIcon, type RunNode, type RunsFilter, type SortKey } from './nodes';
import { experimentHealth, healthShort, type RunHealth } from '../../core/runs/health';
import { runsStallMinutes } from '../settings';

export type { RunNode, RunsFilter, SortKey } from './nodes';

export class RunsTreeProvider implements vscode.TreeDataProvider<RunNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly experimentNodes = new Map<string, RunNode & { kind: 'experiment' }>();
  private readonly sizes: RunSizes;
  private pendingItems = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private loadingDetails = new Set<string>();
  /** Rows ask for their details all at once when the list appears: read a few runs at a time. */
  private readonly detailLimiter = new Limiter(8);
  /** Called once, on the first request for the first level (the view became visible). */
  onFirstLoad: (() => void) | undefined;
  private loaded = false;
  /** Resolves when the first level and its details have been read (for tests). */
  private idleWaiters: (() => void)[] = [];
  /** Callers waiting for the view to list a run (a row must be drawn before it can be revealed). */
  private listWaiters = new Map<string, (() => void)[]>();
  private busy = 0;

  constructor(
    private readonly model: RunsModel,
    private filter: RunsFilter,
    private sort: SortKey,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.sizes = new RunSizes(model.fs);
  }

  dispose(): void {
    this.changed.dispose();
    if (this.flushTimer) clearTimeout(this.flushTimer);
  }

  setFilter(filter: RunsFilter): void {
    this.filter = filter;
    this.changed.fire(undefined);
  }
  setSort(sort: SortKey): void {
    this.sort = sort;
    this.changed.fire(undefined);
  }
  getFilter(): RunsFilter {
    return this.filter;
  }
  getSort(): SortKey {
    return this.sort;
  }

  /** Re-renders everything (after the model was reset or roots changed). */
  refreshAll(): void {
    // Refresh re-measures sizes too (a cached size never hides what is on disk now).
    this.sizes.forgetAll();
    this.changed.fire(undefined);
  }

  /** Re-renders one experiment row and its children; re-reads it only if the model forgot it. */
  refreshExperiment(path: string): void {
    const node = this.experimentNodes.get(path);
    if (!node || this.sort === 'reward' || this.filter.statuses.length) {
      this.changed.fire(undefined);
      return;
    }
    this.queueItem(path);
  }

  private queueItem(path: string): void {
    this.pendingItems.add(path);
    // Coalesce bursts of per-row updates into one refresh round.
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      const paths = [...this.pendingItems];
      this.pendingItems.clear();
      for (const p of paths) {
        const n = this.experimentNodes.get(p);
        if (n) this.changed.fire(n);
      }
      // The refresh may start no read at all: waiters must not depend on one finishing.
      this.settleSoon();
    }, 50);
  }

  experimentNode(path: string): RunNode | undefined {
    return this.experimentNodes.get(path);
  }

  /** Resolves once no read started by the tree is in flight. */
  whenIdle(): Promise<void> {
    if (this.busy === 0 && !this.flushTimer) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private async track<T>(p: Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await p;
    } finally {
      this.busy--;
      if (this.busy === 0) this.settleSoon();
    }
  }

  /** Releases idle waiters shortly, unless a read or a row refresh started in between. */
  private settleSoon(): void {
    setTimeout(() => {
      if (this.busy === 0 && !this.flushTimer) for (const w of this.idleWaiters.splice(0)) w();
    }, 60);
  }

  getParent(node: RunNode): RunNode | undefined {
    return node.kind === 'experiment' ? undefined : node.parent;
  }

  async getChildren(node?: RunNode): Promise<RunNode[]> {
    try {
      return await this.track(node ? this.children(node) : this.topLevel());
    } catch (err) {
      this.log.error(`runs: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return [
        {
          kind: 'message',
          path: `error:${node?.path ?? ''}`,
          text: vscode.l10n.t('Could not read: {0}', err instanceof Error ? err.message : String(err)),
          icon: 'warning',
        },
      ];
    }
  }

  private async topLevel(): Promise<RunNode[]> {
    if (!this.loaded) {
      this.loaded = true;
      this.onFirstLoad?.();
    }
    let entries = await this.model.experiments();
    const needInfo = this.sort === 'reward' || this.filter.statuses.length > 0;
    if (needInfo) await mapLimit(entries, 16, (e) => this.model.info(e));
    const text = this.filter.text.trim().toLowerCase();
    if (text)
      entries = entries.filter(
        (e) => e.name.toLowerCase().includes(text) || (this.model.cachedInfo(e.path)?.project ?? '').toLowerCase().includes(text),
      );
    if (this.filter.statuses.length)
      entries = entries.filter((e) => this.filter.statuses.includes(this.model.cachedInfo(e.path)?.status ?? 'empty'));
    if (this.sort === 'name') entries = [...entries].sort((a, b) => a.name.localeCompare(b.name));
    if (this.sort === 'reward')
      entries = [...entries].sort(
        (a, b) => (this.model.cachedInfo(b.path)?.latestReward ?? -Infinity) - (this.model.cachedInfo(a.path)?.latestReward ?? -Infinity),
      );
    const nodes = entries.map((entry) => {
      let n = this.experimentNodes.get(entry.path);
      if (n) n.entry = entry;
      else {
        n = { kind: 'experiment', path: entry.path, entry };
        this.experimentNodes.set(entry.path, n);
      }
      return n;
    });
    if (!nodes.length) {
      const roots = await this.model.roots();
      const errors = this.model.rootErrors();
      if (errors.length)
        return errors.map((e) => ({ kind: 'message', path: `err:${e.root}`, text: `${e.root}: ${e.error}`, icon: 'warning' }));
      if (roots.length && (text || this.filter.statuses.length))
        return [{ kind: 'message', path: 'nomatch', text: vscode.l10n.t('No runs match the filter.'), icon: 'filter' }];
      // An empty array lets the view show its welcome content.
      return [];
    }
    for (const n of nodes) for (const w of this.listWaiters.get(n.path)?.splice(0) ?? []) w();
    return nodes;
  }

  /**
   * Asks the view to list the runs again and resolves true once it has a row for `path`, or false
   * after `timeoutMs` (the run is filtered out, or the view is hidden and asks for nothing).
   */
  relistUntil(path: string, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const list = this.listWaiters.get(path) ?? [];
      this.listWaiters.set(path, list);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        const i = list.indexOf(hit);
        if (i >= 0) list.splice(i, 1);
        if (!list.length && this.listWaiters.get(path) === list) this.listWaiters.delete(path);
        resolve(ok);
      };
      const hit = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      list.push(hit);
      this.changed.fire(undefined);
    });
  }

  private async children(node: RunNode): Promise<RunNode[]> {
    switch (node.kind) {
      case 'experiment': {
        const info = await this.model.info(node.entry);
        const out: RunNode[] = [];
        if (node.entry.snapshot) out.push({ kind: 'snapshot', path: node.entry.snapshot, parent: node });
        for (const s of [...info.sessions].reverse()) out.push({ kind: 'session', path: s.path, session: s, exp: node.path, parent: node });
        if (info.checkpoints.length) out.push({ kind: 'checkpoints', path: info.checkpointDir ?? `${node.path}#ckpt`, info, parent: node });
        for (const log of info.trackingLogs ?? []) out.push({ kind: 'tracking', path: log.path, log, parent: node });
        if (info.entry.error)
          out.push({ kind: 'message', path: `${node.path}#err`, text: info.entry.error, icon: 'warning', parent: node });
        return out;
      }
      case 'session': {
        if (node.session.error)
          return [{ kind: 'message', path: `${node.path}#err`, text: node.session.error, icon: 'warning', parent: node }];
        if (node.session.hosts.length === 1) return this.hostChildren(node.session.hosts[0]!, node);
        return node.session.hosts.map((h) => ({ kind: 'host', path: h.path, host: h, exp: node.exp, parent: node }));
      }
      case 'host':
        return this.hostChildren(node.host, node);
      case 'trajSplit':
        return (await listTrajectorySteps(this.model.fs, node.path)).map((s) => ({
          kind: 'trajStep',
          path: s.path,
          step: s.step,
          parent: node,
        }));
      case 'trajStep': {
        const { files, more } = await listTrajectoryFiles(this.model.fs, node.path);
        const out: RunNode[] = files.map((f) => ({ kind: 'trajFile', path: f, parent: node }));
        if (more)
          out.push({
            kind: 'message',
            path: `${node.path}#more`,
            text: vscode.l10n.t('{0} more files (open the folder in the explorer)', more),
            parent: node,
          });
        return out;
      }
      case 'checkpoints':
        return node.info.checkpoints.map((c) => ({ kind: 'checkpoint', path: c.path, step: c.step, parent: node }));
      default:
        return [];
    }
  }

  private async hostChildren(host: HostInfo, parent: RunNode): Promise<RunNode[]> {
    const a = await listHostArtefacts(this.model.fs, host.path);
    if (a.error) return [{ kind: 'message', path: `${host.path}#err`, text: a.error, icon: 'warning', parent }];
    const out: RunNode[] = [];
    for (const l of a.logs) {
      if (l.jsonLog) {
        const n: RunNode = { kind: 'log', path: l.jsonLog, module: l.module, size: l.size, parent };
        if (l.textLog) n.textLog = l.textLog;
        out.push(n);
      } else if (l.textLog) out.push({ kind: 'textlog', path: l.textLog, label: `${l.module}.log`, parent });
    }
    if (a.regularLog) out.push({ kind: 'textlog', path: a.regularLog, label: 'regular.log', parent });
    for (const s of a.trajectorySplits) out.push({ kind: 'trajSplit', path: s.path, split: s.split, parent });
    return out;
  }

  getTreeItem(node: RunNode): vscode.TreeItem {
    if (node.kind !== 'experiment') return treeItem(node);
    const item = this.experimentItem(node);
    const later = item.tooltip === undefined;
    decorateRunItem(node.path, item); // Ray line (extension/ray/runsRow.ts)
    // A tooltip left to resolveTreeItem gets the Ray line there, with the size.
    if (later) item.tooltip = undefined;
    return item;
  }

  /**
   * The tooltip of a run whose size was not measured yet when its row was drawn, made when the
   * pointer rests on the row (VS Code asks only then). A size that arrives never redraws the row:
   * each redraw made VS Code give the focus back to the tree, and one landing just after the user
   * opened the row's context menu closed that menu (the fast-click dashboard UI test).
   */
  async resolveTreeItem(item: vscode.TreeItem, node: RunNode, token: vscode.CancellationToken): Promise<vscode.TreeItem> {
    if (node.kind !== 'experiment' || item.tooltip !== undefined) return item;
    const info = this.model.cachedInfo(node.path);
    if (!info) return item;
    const size = await this.sizes.measured(node.path, info.status === 'running', token);
    const full = new vscode.TreeItem(node.entry.name);
    const now = Date.now();
    full.tooltip = new vscode.MarkdownString(runTooltip(info, size, now, this.health(info, now)), true);
    decorateRunItem(node.path, full);
    item.tooltip = full.tooltip;
    return item;
  }

  /** The row's data as the view shows it (used by the extension-host tests through a command). */
  describe(node: RunNode & { kind: 'experiment' }): {
    name: string;
    path: string;
    status?: RunStatus;
    health?: RunHealth['state'];
    icon?: string;
    label: string;
    description: string;
    tooltip: string;
  } {
    const info = this.model.cachedInfo(node.path);
    const item = this.experimentItem(node, true);
    const tip = item.tooltip;
    const out: ReturnType<RunsTreeProvider['describe']> = {
      name: node.entry.name,
      path: node.path,
      label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''),
      description: String(item.description ?? ''),
      tooltip: tip === undefined ? '' : typeof tip === 'string' ? tip : tip.value,
    };
    if (info) out.status = info.status;
    const health = info && this.health(info, Date.now());
    if (health) out.health = health.state;
    if (item.iconPath instanceof vscode.ThemeIcon) out.icon = item.iconPath.id;
    return out;
  }

  /** `fullTooltip`: the tooltip with whatever size is known, instead of leaving it to resolveTreeItem. */
  private experimentItem(node: RunNode & { kind: 'experiment' }, fullTooltip = false): vscode.TreeItem {
    const e = node.entry;
    const item = new vscode.TreeItem(e.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `exp:${e.path}`;
    item.resourceUri = vscode.Uri.file(e.path);
    const info = this.model.cachedInfo(e.path);
    const age = formatAge(e.timeMs);
    if (this.model.needsInspect(e)) this.loadDetails(e);
    if (!info) {
      item.iconPath = new vscode.ThemeIcon('loading~spin');
      item.description = '…';
      item.tooltip = age;
      item.contextValue = `experiment${e.snapshot ? ' snapshot' : ''}`;
      return item;
    }
    const size = this.sizes.get(e.path);
    const now = Date.now();
    const health = this.health(info, now);
    // A stalled run keeps its true status (running) in the label; the icon and description warn.
    item.iconPath = runIcon(info.status, info.launch?.phase === 'paused', health?.state === 'stalled');
    // The status word first, in the label, so the default sidebar width never cuts it (issue 23
    // item 3: "stopp…" beside `math_agent_20261125_0130`); then the name without AgentJet's time
    // stamp, which goes to the description (VS Code cuts that first): the name fits the default
    // width (issue 29). The tooltip has the name whole with everything else.
    const { base, stamp } = splitRunName(e.name);
    item.label = runRowLabel(describeRun(info), base);
    // A launch from the editor says what it does (preparing, paused in the debugger, stopping) as `agentjet runs` does.
    const short = launchPhaseText(info.launch, now) ?? (health && healthShort(health, now));
    // A failed or stalled run's first cause (`cuda-oom`, `nccl` ...) before the stamp; the tooltip says it whole.
    item.description = [short, shownCauses(info, health)[0]?.code, stamp].filter(Boolean).join(' · ');
    item.contextValue = `experiment ${info.status}${health?.state === 'stalled' ? ' stalled' : ''}${e.snapshot ? ' snapshot' : ''}`;
    // The size is measured in the background; until it is, the tooltip waits for resolveTreeItem.
    const stale = sizeIsStale(size, info.status === 'running', Date.now());
    if (stale) this.sizes.request(e.path);
    if (!stale || fullTooltip) item.tooltip = new vscode.MarkdownString(runTooltip(info, size, now, health), true);
    return item;
  }

  /** A running run's health now, judged with the current `agentjet.runs.stallMinutes`. */
  private health(info: ExperimentInfo, now: number): RunHealth | undefined {
    return experimentHealth(info, now, runsStallMinutes());
  }

  private loadDetails(e: ExperimentEntry): void {
    if (this.loadingDetails.has(e.path)) return;
    this.loadingDetails.add(e.path);
    void this.track(this.detailLimiter.run(() => this.model.info(e)))
      .then(
        () => this.queueItem(e.path),
        (err: unknown) => this.log.warn(`runs: ${e.path}: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => this.loadingDetails.delete(e.path));
  }

  /** Forget a cached size (the run changed). */
  forgetSize(path: string): void {
    this.sizes.forget(path);
  }
}
