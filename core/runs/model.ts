// A cache over discovery that the tree, the CLI and the benchmark share. Each level is read once and
// kept until a change under it invalidates it, so a refresh costs what changed, not the whole tree.
import { relative, sep, isAbsolute } from 'node:path';
import {
  existingRoots,
  inspectExperiment,
  listExperiments,
  readExperimentEntry,
  sortNewestFirst,
  type DiscoverOptions,
  type ExperimentEntry,
  type ExperimentInfo,
  type ExperimentRoot,
} from './discover';
import { mergeSplitExperiments } from './roots';
import { mapLimit, type RunsFs } from '../fs/seam';

interface RootState {
  root: ExperimentRoot;
  entries?: Map<string, ExperimentEntry>;
  /** Names whose entry must be read again (a session or the snapshot appeared or went). */
  staleNames: Set<string>;
  error?: string;
}

export type Invalidation =
  | { level: 'roots' }
  | { level: 'root'; root: string }
  /** `entry`: the experiment's own listing changed (a session or the snapshot came or went). */
  | { level: 'experiment'; root: string; experiment: string; entry: boolean }
  | { level: 'companions'; root: string }
  | { level: 'none' };

/** Changed paths handled per turn of the event loop by invalidateAll. */
const INVALIDATE_SLICE = 250;

/** What a batch of changes made stale, summed up. */
export interface Invalidations {
  /** The list itself changed (roots, a new experiment, a session or snapshot came or went). */
  all: boolean;
  /** Experiments whose details changed. */
  experiments: Set<string>;
  companions: boolean;
}

export class RunsModel {
  private configured: ExperimentRoot[] = [];
  private rootStates: RootState[] | undefined;
  private readonly merged = new Map<string, ExperimentEntry>();
  private readonly infos = new Map<string, ExperimentInfo>();
  /** Experiments whose cached info is kept for display but must be read again. */
  private readonly stale = new Set<string>();
  private readonly inflight = new Map<string, Promise<ExperimentInfo>>();
  private generation = new Map<string, number>();

  constructor(
    readonly fs: RunsFs,
    readonly opts: DiscoverOptions = {},
  ) {}

  setRoots(roots: readonly ExperimentRoot[]): void {
    this.configured = [...roots];
    this.rootStates = undefined;
  }

  /** The roots that exist (checked once until `invalidate` says otherwise). */
  async roots(): Promise<ExperimentRoot[]> {
    if (!this.rootStates) {
      const live = await existingRoots(this.fs, this.configured);
      this.rootStates = live.map((root) => ({ root, staleNames: new Set<string>() }));
    }
    return this.rootStates.map((s) => s.root);
  }

  /** Every experiment of every root, newest first. */
  async experiments(): Promise<ExperimentEntry[]> {
    await this.roots();
    const all: ExperimentEntry[] = [];
    for (const st of this.rootStates ?? []) all.push(...(await this.rootEntries(st)));
    return sortNewestFirst(mergeSplitExperiments(all, this.merged));
  }

  rootErrors(): { root: string; error: string }[] {
    return (this.rootStates ?? []).filter((s) => s.error).map((s) => ({ root: s.root.path, error: s.error! }));
  }

  private async rootEntries(st: RootState): Promise<ExperimentEntry[]> {
    if (!st.entries) {
      const { experiments, error } = await listExperiments(this.fs, st.root.path, this.opts);
      st.entries = new Map(experiments.map((e) => [e.name, e]));
      st.staleNames.clear();
      if (error) st.error = error;
      else delete st.error;
    }
    if (st.staleNames.size) {
      // Only the experiments a change touched are read again; the root is not re-listed.
      const names = [...st.staleNames];
      st.staleNames.clear();
      await mapLimit(names, this.opts.concurrency ?? 32, async (name) => {
        const e = await readExperimentEntry(this.fs, st.root.path, name);
        if (e) st.entries!.set(name, e);
        else st.entries!.delete(name);
      });
    }
    return [...st.entries.values()];
  }

  /** The last known details, possibly stale (see `needsInspect`): rows keep showing them while a re-read runs. */
  cachedInfo(path: string): ExperimentInfo | undefined {
    return this.infos.get(path);
  }

  needsInspect(entry: ExperimentEntry): boolean {
    const cached = this.infos.get(entry.path);
    return !cached || cached.entry !== entry || this.stale.has(entry.path);
  }

  /** Status and details of one experiment, read once until invalidated; concurrent callers share the read. */
  info(entry: ExperimentEntry): Promise<ExperimentInfo> {
    const cached = this.infos.get(entry.path);
    if (cached && !this.needsInspect(entry)) return Promise.resolve(cached);
    const running = this.inflight.get(entry.path);
    if (running) return running;
    const gen = this.generation.get(entry.path) ?? 0;
    const p = inspectExperiment(this.fs, entry, this.opts)
      .then((info) => {
        // A change that arrived while reading makes this result stale: do not cache it.
        if ((this.generation.get(entry.path) ?? 0) === gen) {
          this.infos.set(entry.path, info);
          this.stale.delete(entry.path);
        }
        return info;
      })
      .finally(() => this.inflight.delete(entry.path));
    this.inflight.set(entry.path, p);
    return p;
  }

  /** Experiments whose cached status needs watching over time (running ones). */
  runningPaths(): string[] {
    return [...this.infos.values()].filter((i) => i.status === 'running').map((i) => i.entry.path);
  }

  /** Forgets what a change at `path` may have made stale and says which level changed. */
  invalidate(path: string): Invalidation {
    for (const st of this.rootStates ?? []) {
      const rel = relative(st.root.path, path);
      if (rel.startsWith('..') || isAbsolute(rel)) continue;
      if (rel === '') {
        this.rootStates = undefined;
        return { level: 'roots' };
      }
      const parts = rel.split(sep);
      const name = parts[0]!;
      if (name === 'companion_logs') return { level: 'companions', root: st.root.path };
      const expPath = `${st.root.path}${sep}${name}`;
      if (parts.length <= 2) st.staleNames.add(name);
      this.forgetInfo(expPath);
      return parts.length === 1 && !st.entries?.has(name)
        ? { level: 'root', root: st.root.path }
        : { level: 'experiment', root: st.root.path, experiment: expPath, entry: parts.length <= 2 };
    }
    // A configured root that did not exist when last checked may just have been created.
    for (const r of this.configured) {
      const rel = relative(r.path, path);
      if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) || !relative(path, r.path).startsWith('..')) {
        if (!this.rootStates?.some((s) => s.root.path === r.path)) {
          this.rootStates = undefined;
          return { level: 'roots' };
        }
      }
    }
    return { level: 'none' };
  }

  /**
   * `invalidate` for a watcher's batch of changes (20,000 new files are 20,000 events), a slice of
   * paths per turn of the event loop; `each` sees every path and what it invalidated.
   */
  async invalidateAll(
    paths: readonly string[],
    each?: (path: string, inv: Invalidation) => void,
    slice = INVALIDATE_SLICE,
  ): Promise<Invalidations> {
    const out: Invalidations = { all: false, experiments: new Set(), companions: false };
    for (let i = 0; i < paths.length; i++) {
      if (i > 0 && i % slice === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const inv = this.invalidate(paths[i]!);
      if (inv.level === 'roots' || inv.level === 'root' || (inv.level === 'experiment' && inv.entry)) out.all = true;
      if (inv.level === 'experiment') out.experiments.add(inv.experiment);
      else if (inv.level === 'companions') out.companions = true;
      each?.(paths[i]!, inv);
    }
    return out;
  }

  /** Drops one experiment's details (e.g. to re-check a running run's liveness). */
  forgetInfo(expPath: string): void {
    if (this.infos.has(expPath)) this.stale.add(expPath);
    this.generation.set(expPath, (this.generation.get(expPath) ?? 0) + 1);
  }

  /** Forgets everything (the Refresh command). */
  reset(): void {
    this.rootStates = undefined;
    this.infos.clear();
    this.stale.clear();
    for (const k of this.generation.keys()) this.generation.set(k, (this.generation.get(k) ?? 0) + 1);
  }
}
