// Live updates of the Runs feature: debounced file watchers on the experiment roots, plus a
// >= 2 s poll only while something runs (liveness has no file event).
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, isAbsolute, resolve } from 'node:path';
import { LAUNCH_RECORD_DIR } from '../../core/agentjet/launchRecord';
import { experimentRoots, runsPollIntervalSeconds } from '../settings';
import { candidateRoots } from '../../core/runs/discover';
import { expDirsFromLaunchConfigs } from '../../core/runs/launch';
import { expandWorkspaceFolder, hasUnresolvedVariable } from '../../core/agentjet/naming';
import type { RunsModel } from '../../core/runs/model';
import type { CompanionsProvider } from './companions';
import type { DashboardManager } from './dashboard';
import type { RunsTreeProvider } from './tree';
import type { Services } from '../services';

const DEBOUNCE_MS = 400;

/** File watchers on the experiment roots (debounced) and a slow poll while anything runs. */
export class LiveUpdates implements vscode.Disposable {
  private watchers: vscode.Disposable[] = [];
  private started = false;
  private changed = new Set<string>();
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private flushing = false;
  private disposed = false;
  private poll: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly model: RunsModel,
    private readonly tree: RunsTreeProvider,
    private readonly companions: CompanionsProvider,
    private readonly dashboards: DashboardManager,
    private readonly services: Services,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.configure();
    // Rows that just learned they are running start the liveness poll.
    this.subs.push(
      this.tree.onDidChangeTreeData(() => this.schedulePoll()),
      this.companions.onDidChangeTreeData(() => this.schedulePoll()),
    );
  }

  private readonly subs: vscode.Disposable[] = [];

  restart(): void {
    if (!this.started) return;
    this.configure();
    this.model.reset();
    this.tree.refreshAll();
    this.companions.refresh();
  }

  private pollSeconds(): number {
    return runsPollIntervalSeconds();
  }

  private configure(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const configured = experimentRoots();
    const named = Object.fromEntries((vscode.workspace.workspaceFolders ?? []).map((f) => [f.name, f.uri.fsPath]));
    // Each folder's launch configurations name roots relative to that folder (their default cwd).
    const launchDirs = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .flatMap((f) =>
        expDirsFromLaunchConfigs(vscode.workspace.getConfiguration('launch', f.uri).get<unknown[]>('configurations'))
          .map((d) => expandWorkspaceFolder(d, f.uri.fsPath, named, homedir()))
          .filter((d) => !hasUnresolvedVariable(d))
          .map((d) => resolve(f.uri.fsPath, d)),
      );
    const roots = candidateRoots(folders, configured, launchDirs);
    this.model.setRoots(roots);
    const onEvent = (uri: vscode.Uri) => this.onChange(uri.fsPath);
    const watch = (pattern: vscode.RelativePattern) => {
      const w = vscode.workspace.createFileSystemWatcher(pattern);
      this.watchers.push(w, w.onDidCreate(onEvent), w.onDidChange(onEvent), w.onDidDelete(onEvent));
    };
    for (const f of vscode.workspace.workspaceFolders ?? []) watch(new vscode.RelativePattern(f, '{saved_experiments,launcher_record}/**'));
    // Roots outside the default places get a watcher each (RelativePattern on a folder outside the workspace works too).
    for (const r of roots) {
      if (r.source === 'saved_experiments' || r.source === 'launcher_record') continue;
      const inFolder = folders.some((f) => {
        const rel = relative(f, r.path);
        return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && /^(saved_experiments|launcher_record)([\\/]|$)/.test(rel);
      });
      if (!inFolder) watch(new vscode.RelativePattern(vscode.Uri.file(r.path), '**'));
      // Its parent too, so that a root created later is noticed.
      if (!inFolder) watch(new vscode.RelativePattern(vscode.Uri.file(dirname(r.path)), basename(r.path)));
    }
    this.services.log.info(`runs: watching ${roots.length} candidate roots`);
    this.schedulePoll();
  }

  /**
   * The launch owner's event (extension/debug): a launch's record in `folder` changed. Not left to
   * the file watcher (slow under load, and the row kept "empty" for 20-50 s after a Stop made while
   * the sidebar was hidden): the run is read again now, and its row redrawn from what was read.
   */
  launchChanged(folder: string): void {
    this.start();
    const inv = this.model.invalidate(join(folder, LAUNCH_RECORD_DIR));
    if (inv.level === 'none') return;
    this.dashboards.touch(folder);
    this.tree.forgetSize(folder);
    void this.model
      .experiments()
      .then(async (entries) => {
        const entry = entries.find((e) => e.path === folder);
        if (entry) await this.model.info(entry);
        this.tree.refreshAll();
        this.schedulePoll();
      })
      .catch((err: unknown) => this.services.log.warn(`runs: ${folder}: ${String(err)}`));
  }

  private onChange(path: string): void {
    this.changed.add(path);
    this.debounce ??= setTimeout(() => this.flush(), DEBOUNCE_MS);
  }

  private flush(): void {
    this.debounce = undefined;
    // One batch at a time: changes that come meanwhile wait for the next.
    if (this.flushing) {
      this.debounce = setTimeout(() => this.flush(), DEBOUNCE_MS);
      return;
    }
    const paths = [...this.changed];
    this.changed.clear();
    this.flushing = true;
    // A slice of paths per turn of the loop (a batch can be tens of thousands of files).
    void this.model
      .invalidateAll(paths, (p) => this.dashboards.touch(p))
      .then((inv) => {
        if (this.disposed) return;
        for (const e of inv.experiments) this.tree.forgetSize(e);
        // A new session or snapshot changes the row's order and children: re-render the list.
        if (inv.all) this.tree.refreshAll();
        else for (const e of inv.experiments) this.tree.refreshExperiment(e);
        if (inv.companions) this.companions.refresh();
        this.schedulePoll();
      })
      .catch((err: unknown) => this.services.log.warn(`runs: changes: ${String(err)}`))
      .finally(() => (this.flushing = false));
  }

  /** Liveness has no file event (a process can die without removing its lock): poll, slowly, only while needed. */
  private schedulePoll(): void {
    if (this.poll) return;
    this.poll = setTimeout(() => {
      this.poll = undefined;
      const running = this.model.runningPaths();
      for (const p of running) {
        this.model.forgetInfo(p);
        this.tree.refreshExperiment(p);
      }
      if (this.companions.anyAlive())
        void this.companions.poll().catch((err: unknown) => this.services.log.warn(`runs: companions: ${String(err)}`));
      if (running.length || this.companions.anyAlive()) this.schedulePoll();
    }, this.pollSeconds() * 1000);
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.watchers) w.dispose();
    for (const s of this.subs) s.dispose();
    if (this.debounce) clearTimeout(this.debounce);
    if (this.poll) clearTimeout(this.poll);
  }
}
