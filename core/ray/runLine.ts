// The Ray line of a run's row in the Runs tree (pure; extension/ray/runsRow.ts passes the
// localised words): which cluster (dashboard, else GCS address, else session folder), nodes alive,
// workers paused, and why a figure is missing.
import type { RayClusterInfo } from './types';

export interface RayLineWords {
  nodesAlive(n: number): string;
  workersPaused(n: number): string;
  /** The short form appended to the row's description while workers are paused. */
  paused(n: number): string;
}

export function describeRay(info: RayClusterInfo, w: RayLineWords): string {
  const parts = [
    info.dashboard ?? info.address ?? info.sessionDir?.replace(/^.*[\\/]/, ''),
    info.nodesAlive !== undefined ? w.nodesAlive(info.nodesAlive) : undefined,
    w.workersPaused(info.paused),
  ];
  return `Ray: ${parts.filter(Boolean).join(' · ')}${info.note ? ` (${info.note})` : ''}`;
}

/** The row's description with the paused count appended (unchanged when nothing is paused). */
export function rayDescription(description: string | undefined, info: RayClusterInfo, w: RayLineWords): string | undefined {
  if (info.paused <= 0) return description;
  return `${description ?? ''} · ${w.paused(info.paused)}`.replace(/^ · /, '');
}
