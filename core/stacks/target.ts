// Which processes a run's stacks come from: the live locks of its latest session on this host
// (`.logger_lock` names the process AgentJet's logger runs in; a second process on the host has
// its own `<host>_<pid>` folder and lock).
import { basename, dirname, resolve } from 'node:path';
import { inspectExperiment, readExperimentEntry, type ExperimentInfo } from '../runs/discover';
import { syncNodeFs } from '../fs/seam';

/** The pids of the run's live local locks (latest session first; then any other live one). */
export function runPids(info: ExperimentInfo): number[] {
  const out: number[] = [];
  for (const s of [...info.sessions].reverse())
    for (const h of s.hosts) if (h.local && h.lock?.alive && h.lock.pid !== undefined && !out.includes(h.lock.pid)) out.push(h.lock.pid);
  return out;
}

/** Reads the experiment folder `dir` (as `agentjet runs` does) and returns it with its live pids. */
export async function runOfFolder(dir: string): Promise<{ info: ExperimentInfo; pids: number[] } | { error: string }> {
  const path = resolve(dir);
  const fs = syncNodeFs();
  const entry = await readExperimentEntry(fs, dirname(path), basename(path));
  if (!entry || entry.error) return { error: entry?.error ?? path };
  const info = await inspectExperiment(fs, entry);
  return { info, pids: runPids(info) };
}
