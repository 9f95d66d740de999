// The folders agentjet_wait watches in a run: the run folder and the levels where AgentJet writes
// (<run>/<session>/<host>/<module>/…, beast-logger's layout), newest session first, each watched on
// its own, depth first (not recursively: a recursive watch on Linux is one inotify watch per folder of the whole
// tree, and a run with thousands of checkpoint folders would take thousands, near the user's limit).
// At most WATCH_CAP folders; what is not watched is still read on the wait's heartbeat.
import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSessionName } from '../runs/roots';

/** The most folders one wait watches. */
export const WATCH_CAP = 32;
/** How deep below the run folder: session, host, module. */
export const WATCH_DEPTH = 3;
/** Folders that hold weights, never the records the wait reads. */
const HEAVY = /^(global_step_\d+|checkpoints?|ckpts?|huggingface|\..*)$/i;

/**
 * The folders to watch: `dir`, then its folders depth first, newest (highest-named) first, down to
 * `depth` levels, at most `cap` in all: the newest session whole before an older one, and the
 * sessions before other folders.
 */
export async function watchFolders(dir: string, cap = WATCH_CAP, depth = WATCH_DEPTH): Promise<string[]> {
  const out: string[] = [];
  const visit = async (folder: string, level: number): Promise<void> => {
    out.push(folder);
    if (level >= depth) return;
    const names = await readdir(folder, { withFileTypes: true }).then(
      (es) =>
        es
          .filter((e) => e.isDirectory() && !HEAVY.test(e.name))
          .map((e) => e.name)
          .sort()
          .reverse()
          // The run's sessions (timestamped) before its other folders (a logger's, trajectories).
          .sort((a, b) => Number(isSessionName(b)) - Number(isSessionName(a))),
      () => [] as string[],
    );
    for (const n of names) {
      if (out.length >= cap) return;
      await visit(join(folder, n), level + 1);
    }
  };
  await visit(dir, 0);
  return out;
}

/** Watches a changing set of folders (each on its own), calling `poke` on any change. */
export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  constructor(private readonly poke: () => void) {}

  /** Watches exactly `paths` from now on (folders no longer named are let go). */
  set(paths: readonly string[]): void {
    const want = new Set(paths);
    for (const [p, w] of this.watchers)
      if (!want.has(p)) {
        w.close();
        this.watchers.delete(p);
      }
    for (const p of want) this.add(p);
  }

  /** Watches one more path (a metric file outside the run). */
  add(p: string): void {
    if (this.watchers.has(p)) return;
    try {
      const w = watch(p, this.poke);
      w.on('error', () => undefined);
      this.watchers.set(p, w);
    } catch {
      // Not watchable (gone, a platform without it): the heartbeat still reads it.
    }
  }

  get size(): number {
    return this.watchers.size;
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
