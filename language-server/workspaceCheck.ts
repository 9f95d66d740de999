// Background checking of every AgentJet/ASTuner config in the workspace (like a linter's
// workspace mode), so Problems lists what `agentjet lint .` finds, not only open files. Bounded
// (file count, size, depth, skipped folders), one file at a time with the event loop free between
// files, and cancelled when a new pass starts or the setting turns it off.
import { stat } from 'node:fs/promises';
import { isInside, readInside } from '../core/fs/inside';
import { looksLikeConfig } from '../core/agentjet/dialect';
import { MAX_SEMANTIC_BYTES } from '../core/config/parse';
import { yamlFilesUnder } from '../core/config/workspaceScan';

export { WORKSPACE_LIMITS, yamlFilesUnder } from '../core/config/workspaceScan';

export interface WorkspaceCheckHost {
  /** True when the file is open in an editor (the editor's text is checked instead). */
  isOpen(path: string): boolean;
  /** Check `text` of `path` and publish (or clear, when not ours) its problems. */
  check(path: string, text: string): Promise<void>;
  /** Clear what an earlier pass published for `path`. */
  clear(path: string): void;
  /** The workspace folders: no file whose real path leaves them is read (core/fs/inside); absent: any file. */
  folders?(): readonly string[];
}

export class WorkspaceChecker {
  private generation = 0;
  /** Files this checker published problems for (to clear them when turned off). */
  readonly published = new Set<string>();
  /** Modification stamp (mtime and size) of every file a pass or a check read, to find what is new since. */
  private readonly stamps = new Map<string, string>();

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
      const { bytes, size } = await readInside(path, this.host.folders?.(), MAX_SEMANTIC_BYTES + 1);
      const st = await stat(path);
      this.stamps.set(path, `${st.mtimeMs}:${st.size}`);
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

  forget(path: string): void {
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
      for (const f of await yamlFilesUnder(root, cancelled, undefined, this.host.folders?.())) {
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
      for (const p of [...this.stamps.keys()])
        if (p !== root && isInside(root, p) && !present.has(p)) {
          this.stamps.delete(p);
          this.forget(p);
        }
    }
    return checked;
  }

  /** One pass over `roots`; resolves with the number of configs checked (stops early when cancelled). */
  async run(roots: readonly string[]): Promise<number> {
    const gen = ++this.generation;
    const cancelled = () => gen !== this.generation;
    let checked = 0;
    for (const root of roots) {
      const files = await yamlFilesUnder(root, cancelled, undefined, this.host.folders?.());
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
