// Background checking of every AgentJet/ASTuner config in the workspace (like a linter's
// workspace mode), so Problems lists what `agentjet lint .` finds, not only open files. Bounded
// (file count, size, depth, skipped folders), one file at a time with the event loop free between
// files, and cancelled when a new pass starts or the setting turns it off.
// One config reached by several names (links inside the folders, a `loop -> .`) is published once.
import { stat } from 'node:fs/promises';
import { isInside, readInside } from '../core/fs/inside';
import { looksLikeConfig } from '../core/agentjet/dialect';
import { MAX_SEMANTIC_BYTES } from '../core/config/parse';
import { WORKSPACE_LIMITS, yamlFilesUnder, type YamlWalkCap } from '../core/config/workspaceScan';

export { WORKSPACE_LIMITS, yamlFilesUnder, type YamlWalkCap } from '../core/config/workspaceScan';

export interface WorkspaceCheckHost {
  /** True when the file is open in an editor (the editor's text is checked instead). */
  isOpen(path: string): boolean;
  /** Check `text` of `path` and publish (or clear, when not ours) its problems. */
  check(path: string, text: string): Promise<void>;
  /** Clear what an earlier pass published for `path`. */
  clear(path: string): void;
  /** The workspace folders: no file whose real path leaves them is read (core/fs/inside); absent: any file. */
  folders?(): readonly string[];
  /** How many YAML files a walk of `root` reads (`agentjet.config.workspaceMaxFiles`; undefined: the default). */
  maxFiles?(root: string): Promise<number | undefined>;
  /** The YAML files under `root`, listed by the client (its file search and the user's excludes); undefined: the server walks. */
  listYaml?(root: string, max: number): Promise<{ files: string[]; more: boolean } | undefined>;
  /** A walk of `root` stopped at its cap: the files past it get no Problems (tell the user). */
  capped?(root: string, cap: YamlWalkCap): void;
}

export class WorkspaceChecker {
  private generation = 0;
  /** Files this checker published problems for (to clear them when turned off). */
  readonly published = new Set<string>();
  /** Modification stamp (mtime and size) of every file a pass or a check read, to find what is new since. */
  private readonly stamps = new Map<string, string>();
  /** The real path of every file read, its names, and which of them publishes it (one config, one entry in Problems). */
  private readonly realOf = new Map<string, string>();
  private readonly names = new Map<string, Set<string>>();
  private readonly owner = new Map<string, string>();

  constructor(private readonly host: WorkspaceCheckHost) {}

  cancel(): void {
    this.generation++;
  }

  /** Clears everything the background passes published (the setting says open files only). */
  clearAll(): void {
    this.cancel();
    for (const p of this.published) if (!this.host.isOpen(p)) this.host.clear(p);
    this.published.clear();
  }

  /** Checks one file from disk (a watched file changed, or an open file was closed). */
  async checkFile(path: string): Promise<boolean> {
    if (this.host.isOpen(path)) return false;
    let text: string;
    try {
      // Opened first, then checked: a link out of the folders (or one swapped in) is not read, a FIFO never waited on.
      const { bytes, size, real, stat: st } = await readInside(path, this.host.folders?.(), MAX_SEMANTIC_BYTES + 1);
      this.stamps.set(path, `${st.mtimeMs}:${st.size}`);
      if (!this.claim(path, real)) return false;
      if (size > MAX_SEMANTIC_BYTES) return false;
      text = bytes.toString('utf8');
    } catch {
      this.stamps.delete(path);
      this.forget(path);
      return false;
    }
    if (!looksLikeConfig(text)) {
      this.forget(path);
      return false;
    }
    await this.host.check(path, text);
    this.published.add(path);
    return true;
  }

  /**
   * May `path` (whose real path is `real`) publish? One name per real path does: the file's own
   * name when it is read under it, else the first name that read it; any other name is cleared.
   */
  private claim(path: string, real: string): boolean {
    const was = this.realOf.get(path);
    if (was !== undefined && was !== real) this.release(path);
    this.realOf.set(path, real);
    let names = this.names.get(real);
    if (!names) this.names.set(real, (names = new Set()));
    names.add(path);
    const owner = this.owner.get(real);
    if (owner === undefined || owner === path) {
      this.owner.set(real, path);
      return true;
    }
    if (path !== real && this.realOf.get(owner) === real) {
      // Another name publishes this file: this one stays quiet (its stamp is kept, so no pass reads it again).
      if (this.published.delete(path)) this.host.clear(path);
      return false;
    }
    // The file's own name (or a stale owner) takes over from a link's name.
    this.owner.set(real, path);
    if (this.published.delete(owner)) this.host.clear(owner);
    return true;
  }

  /** `path` no longer names its real file: another name of that file may publish it (read again next pass). */
  private release(path: string): void {
    const real = this.realOf.get(path);
    this.realOf.delete(path);
    if (real === undefined) return;
    const names = this.names.get(real);
    names?.delete(path);
    if (!names?.size) this.names.delete(real);
    if (this.owner.get(real) !== path) return;
    this.owner.delete(real);
    for (const other of names ?? []) this.stamps.delete(other);
  }

  forget(path: string): void {
    this.release(path);
    if (this.published.delete(path)) this.host.clear(path);
  }

  /**
   * Checks the files under `roots` that are new or changed since this checker last read them, and
   * forgets those gone: what a file watcher would have reported. Resolves with the number checked.
   * For the start-up window in which the client's file watcher may not deliver yet (VS Code's
   * recursive watcher starts after the window; the client forwards events only once it runs).
   */
  async catchUp(roots: readonly string[]): Promise<number> {
    const gen = this.generation;
    const cancelled = () => gen !== this.generation;
    let checked = 0;
    const present = new Set<string>();
    for (const root of roots) {
      let capped = false;
      const files = await this.walk(root, cancelled, () => (capped = true));
      for (const f of files) {
        if (cancelled()) return checked;
        present.add(f);
        let stamp: string | undefined;
        try {
          const st = await stat(f);
          stamp = `${st.mtimeMs}:${st.size}`;
        } catch {
          /* gone meanwhile */
        }
        if (stamp === undefined || stamp === this.stamps.get(f)) continue;
        if (await this.checkFile(f)) checked++;
        await new Promise<void>((r) => setImmediate(r));
      }
      // A walk stopped at its cap did not see every file: none is taken for gone.
      for (const p of capped ? [] : [...this.stamps.keys()])
        if (p !== root && isInside(root, p) && !present.has(p)) {
          this.stamps.delete(p);
          this.forget(p);
        }
    }
    return checked;
  }

  private async walk(root: string, cancelled: () => boolean, onCap?: () => void): Promise<string[]> {
    const max = await this.host.maxFiles?.(root);
    if (this.host.listYaml) {
      const cap = Math.max(1, Math.floor(max ?? WORKSPACE_LIMITS.maxYamlFiles));
      const listed = await this.host.listYaml(root, cap).catch(() => undefined);
      if (listed) {
        if (listed.more) {
          onCap?.();
          if (!cancelled()) this.host.capped?.(root, { cap, total: cap, exact: false });
        }
        return listed.files.filter((f) => isInside(root, f)).slice(0, cap);
      }
    }
    return yamlFilesUnder(root, cancelled, undefined, this.host.folders?.(), {
      ...(max !== undefined ? { max } : {}),
      onCap: (c) => {
        onCap?.();
        if (!cancelled()) this.host.capped?.(root, c);
      },
    });
  }

  /** One pass over `roots`; resolves with the number of configs checked (stops early when cancelled). */
  async run(roots: readonly string[]): Promise<number> {
    const gen = ++this.generation;
    const cancelled = () => gen !== this.generation;
    let checked = 0;
    for (const root of roots) {
      const files = await this.walk(root, cancelled);
      for (const f of files) {
        if (cancelled()) return checked;
        if (await this.checkFile(f)) checked++;
        await new Promise<void>((r) => setImmediate(r)); // keep requests flowing between files
      }
    }
    return checked;
  }
}

/**
 * Start-up catch-up: VS Code's file watcher may not deliver events for a while after the window
 * opens (and the client forwards them only once it has started), so a config created then would get
 * its problems only at its next save. Until the watcher has delivered its first event, `run` (a
 * WorkspaceChecker.catchUp over the folders) is called at these growing gaps, about 30 s in all.
 */
export const CATCH_UP_GAPS_MS: readonly number[] = [1000, 2000, 3000, 5000, 8000, 13000];

export class StartupCatchUp {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private over = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly gaps: readonly number[] = CATCH_UP_GAPS_MS,
  ) {}

  /** Is a catch-up waiting for its gap? */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** After the first pass: the first catch-up after the first gap. */
  start(): void {
    this.schedule(0);
  }

  /** The watcher delivers now: one last catch-up for what it may have missed before, then no more. */
  watcherDelivered(): void {
    if (this.over) return;
    this.stop();
    void this.run();
  }

  stop(): void {
    this.over = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(step: number): void {
    const gap = this.gaps[step];
    if (gap === undefined || this.over) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run().finally(() => this.schedule(step + 1));
    }, gap);
    this.timer.unref?.();
  }
}
