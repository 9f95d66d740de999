// The Companions view's reader is the one in core/agentjet/companions.ts.
import { companionFolderOfRoot, listCompanions as list, type Companion } from '../agentjet';
import type { RunsFs } from '../fs/seam';

export { groupAlive, stopGroup, parseCompanionId, type Companion } from '../agentjet';

export function companionDir(experimentRoot: string): string {
  return companionFolderOfRoot(experimentRoot);
}

/** Companions recorded under an experiment root (`…/saved_experiments`). */
export function listCompanions(
  fs: RunsFs,
  experimentRoot: string,
  opts: { localHost?: string; isGroupAlive?: (pgid: number) => boolean } = {},
): Promise<Companion[]> {
  const alive = opts.isGroupAlive;
  return list(companionFolderOfRoot(experimentRoot), {
    fs,
    ...(opts.localHost ? { localHost: opts.localHost } : {}),
    ...(alive ? { groupProbe: (g: number) => (alive(g) ? [{ pid: g }] : []) } : {}),
  });
}
