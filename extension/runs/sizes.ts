// The sizes of run folders for the Runs view's tooltips: measured in the background, two walks at
// a time, after everything else; a caller may wait for one (the tooltip made when the pointer
// rests on a row). A measure is kept until it goes stale or is forgotten.
import type * as vscode from 'vscode';
import { folderSize, RUN_SIZE_MAX_ENTRIES, sizeIsStale } from '../../core/runs/discover';
import type { RunsFs } from '../../core/fs/seam';

export interface RunSize {
  bytes: number;
  complete: boolean;
  at: number;
}

export class RunSizes {
  private readonly sizes = new Map<string, RunSize>();
  private readonly queue: string[] = [];
  private active = 0;
  private readonly measuring = new Set<string>();
  /** Callers waiting for a run's size to be measured (resolveTreeItem), by run folder. */
  private readonly waiters = new Map<string, (() => void)[]>();

  constructor(private readonly fs: RunsFs) {}

  /** The last measure of the run, fresh or not. */
  get(path: string): RunSize | undefined {
    return this.sizes.get(path);
  }

  /** Queues a measure of the run (nothing when one is queued or under way). */
  request(path: string): void {
    if (this.queue.includes(path) || this.measuring.has(path)) return;
    this.queue.push(path);
    this.pump();
  }

  /** The run's size, measured now unless the last measure is recent; the old one when cancelled. */
  async measured(
    path: string,
    running: boolean,
    token: vscode.CancellationToken,
  ): Promise<{ bytes: number; complete: boolean } | undefined> {
    const known = this.sizes.get(path);
    if (!sizeIsStale(known, running, Date.now()) || token.isCancellationRequested) return known;
    await new Promise<void>((resolve) => {
      const list = this.waiters.get(path) ?? [];
      this.waiters.set(path, list);
      const done = () => {
        sub.dispose();
        resolve();
      };
      const sub = token.onCancellationRequested(() => {
        const i = list.indexOf(done);
        if (i >= 0) list.splice(i, 1);
        done();
      });
      list.push(done);
      this.request(path);
    });
    return this.sizes.get(path);
  }

  /** Forget a cached size (the run changed). */
  forget(path: string): void {
    const s = this.sizes.get(path);
    if (s) s.at = 0;
  }

  /** Every size goes stale (a refresh: a cached size never hides what is on disk now). */
  forgetAll(): void {
    for (const v of this.sizes.values()) v.at = 0;
  }

  private pump(): void {
    // Sizes are a walk each: two at a time.
    while (this.active < 2 && this.queue.length) {
      const path = this.queue.shift()!;
      this.active++;
      this.measuring.add(path);
      void folderSize(this.fs, path, RUN_SIZE_MAX_ENTRIES)
        .then(
          // Only the tooltip shows it (resolveTreeItem): the row is not redrawn.
          (s) => void this.sizes.set(path, { ...s, at: Date.now() }),
          () => undefined,
        )
        .finally(() => {
          this.active--;
          this.measuring.delete(path);
          for (const w of this.waiters.get(path)?.splice(0) ?? []) w();
          this.pump();
        });
    }
  }
}
