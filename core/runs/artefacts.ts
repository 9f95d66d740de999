// What a host folder holds for the tree's artefact nodes (logs, trajectories) and how much disk a
// run takes.
import { join } from 'node:path';
import { mapLimit, numberedDirs, tryReaddir, tryStat, type RunsFs } from '../fs/seam';

/** What a host folder holds, for the tree's artefact nodes. */
export interface HostArtefacts {
  logs: { module: string; jsonLog?: string; textLog?: string; size: number }[];
  regularLog?: string;
  trajectorySplits: { split: string; path: string }[];
  error?: string;
}

export async function listHostArtefacts(fs: RunsFs, hostPath: string): Promise<HostArtefacts> {
  const { entries, error } = await tryReaddir(fs, hostPath);
  const out: HostArtefacts = { logs: [], trajectorySplits: [] };
  if (error) {
    out.error = error;
    return out;
  }
  const mods = entries
    .filter((e) => e.kind === 'dir' && e.name !== 'trajectory')
    .map((e) => e.name)
    .sort(moduleOrder);
  await mapLimit(mods, 8, async (mod) => {
    const dir = join(hostPath, mod);
    const files = (await tryReaddir(fs, dir)).entries.filter((e) => e.kind === 'file');
    if (mod === 'regular') {
      if (files.some((f) => f.name === 'regular.log')) out.regularLog = join(dir, 'regular.log');
      return;
    }
    const json = files.find((f) => f.name === `${mod}.json.log`);
    const text = files.find((f) => f.name === `${mod}.log`);
    if (!json && !text) return;
    const item: HostArtefacts['logs'][number] = { module: mod, size: 0 };
    if (json) {
      item.jsonLog = join(dir, json.name);
      item.size = (await tryStat(fs, item.jsonLog))?.size ?? 0;
    }
    if (text) item.textLog = join(dir, text.name);
    out.logs.push(item);
  });
  out.logs.sort((a, b) => moduleOrder(a.module, b.module));
  if (entries.some((e) => e.kind === 'dir' && e.name === 'trajectory')) {
    const t = await tryReaddir(fs, join(hostPath, 'trajectory'));
    out.trajectorySplits = t.entries
      .filter((e) => e.kind === 'dir')
      .map((e) => ({ split: e.name, path: join(hostPath, 'trajectory', e.name) }))
      .sort((a, b) => a.split.localeCompare(b.split));
  }
  return out;
}

const MODULE_ORDER = ['rollout', 'evaluation', 'exception', 'token_clip', 'bad_case', 'benchmark'];
function moduleOrder(a: string, b: string): number {
  const ia = MODULE_ORDER.indexOf(a),
    ib = MODULE_ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

/** `trajectory/<split>/step_<N>` folders, by step. */
export async function listTrajectorySteps(fs: RunsFs, splitPath: string): Promise<{ step: number; path: string }[]> {
  return numberedDirs(fs, splitPath, 'step_');
}

/** The JSON files of one trajectory step folder. */
export async function listTrajectoryFiles(fs: RunsFs, stepPath: string, limit = 500): Promise<{ files: string[]; more: number }> {
  const { entries } = await tryReaddir(fs, stepPath);
  const files = entries
    .filter((e) => e.kind === 'file' && e.name.endsWith('.json'))
    .map((e) => e.name)
    .sort();
  return { files: files.slice(0, limit).map((f) => join(stepPath, f)), more: Math.max(0, files.length - limit) };
}

/** Entries counted for a run's size, in the Runs view and in `agentjet runs --format json` alike. */
export const RUN_SIZE_MAX_ENTRIES = 5000;

/**
 * Bytes under a folder, without following links (so loops cannot recurse); capped by entry count.
 * Exact and the same on every call for an unchanged tree: folders are read level by level, each
 * one's entries in name order, the sizes summed only once all of a level's stats are back (a sum
 * updated inside concurrent callbacks loses updates), and the cap cuts the same entries each time.
 */
export async function folderSize(
  fs: RunsFs,
  path: string,
  maxEntries = RUN_SIZE_MAX_ENTRIES,
): Promise<{ bytes: number; complete: boolean }> {
  let bytes = 0;
  let seen = 0;
  let complete = true;
  let level = [path];
  while (level.length && complete) {
    const listed = await mapLimit(level, 8, (dir) => tryReaddir(fs, dir));
    const next: string[] = [];
    const files: string[] = [];
    walk: for (let i = 0; i < level.length; i++) {
      const entries = [...listed[i]!.entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries) {
        if (++seen > maxEntries) {
          complete = false;
          break walk;
        }
        if (e.symlink) continue;
        if (e.kind === 'dir') next.push(join(level[i]!, e.name));
        else if (e.kind === 'file') files.push(join(level[i]!, e.name));
      }
    }
    const sizes = await mapLimit(files, 16, async (f) => (await tryStat(fs, f))?.size ?? 0);
    for (const n of sizes) bytes += n;
    level = next;
  }
  return { bytes, complete };
}
/** Re-measure a size when there is none, it was forgotten (`at` 0: files changed, Refresh), or a running run's is 30 s old. */
export function sizeIsStale(prev: { at: number } | undefined, running: boolean, now: number, maxAgeMs = 30_000): boolean {
  return !prev || prev.at <= 0 || (running && now - prev.at >= maxAgeMs);
}
