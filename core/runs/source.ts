// Which workspace config a run's snapshot (yaml_backup.yaml) came from. The launcher names an
// experiment after `experiment_name`, or after the config file plus a timestamp, so those names,
// the project and the workflow say how likely a candidate is.
import { basename, extname } from 'node:path';
import { readConfigFacts } from '../agentjet/dialect';

export interface ConfigFacts {
  experimentName?: string;
  project?: string;
  workflow?: string;
}

export function configFacts(text: string): ConfigFacts | undefined {
  const f = readConfigFacts(text);
  if (!f.dialect || f.error) return undefined;
  const out: ConfigFacts = {};
  if (f.experimentName !== undefined) out.experimentName = f.experimentName;
  if (f.project !== undefined) out.project = f.project;
  if (f.workflow !== undefined) out.workflow = f.workflow;
  return out;
}

/** 0 = unrelated; higher = more likely the source of `experiment` (folder name) with snapshot facts `snap`. */
export function scoreSource(experiment: string, snap: ConfigFacts, candidatePath: string, cand: ConfigFacts): number {
  let score = 0;
  const stem = basename(candidatePath, extname(candidatePath));
  const names = [snap.experimentName, experiment].filter((n): n is string => !!n);
  if (cand.experimentName && names.includes(cand.experimentName)) score += 100;
  else if (cand.experimentName && names.some((n) => n.startsWith(`${cand.experimentName}_`))) score += 60;
  else if (names.some((n) => n.startsWith(`${stem}_`) || n === stem)) score += 50;
  if (score === 0 && !(cand.project && cand.project === snap.project)) return 0;
  if (cand.project && cand.project === snap.project) score += 20;
  if (cand.workflow && cand.workflow === snap.workflow) score += 10;
  return score;
}

export interface RankedSource {
  path: string;
  score: number;
}

/** Candidates by score; `best` is set only when one clearly wins (named after it, and no tie). */
export function rankSources(
  experiment: string,
  snapText: string,
  candidates: readonly { path: string; text: string }[],
): { ranked: RankedSource[]; best?: string } {
  const snap = configFacts(snapText) ?? {};
  const ranked = candidates
    .map((c) => ({ path: c.path, facts: configFacts(c.text) }))
    .filter((c): c is { path: string; facts: ConfigFacts } => c.facts !== undefined)
    .map((c) => ({ path: c.path, score: scoreSource(experiment, snap, c.path, c.facts) }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const out: { ranked: RankedSource[]; best?: string } = { ranked };
  if (ranked[0] && ranked[0].score >= 50 && (ranked.length === 1 || ranked[1]!.score < ranked[0].score)) out.best = ranked[0].path;
  return out;
}
