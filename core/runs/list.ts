// The runs listing as data: one row per experiment (status with its evidence, sessions, hosts,
// step, reward, checkpoints), shared by `agentjet runs`, the MCP server and the language-model tools.
import { resolve, sep } from 'node:path';
import { trackingOpenCommand } from './tracking';
import { candidateRoots, type Evidence, type ExperimentInfo } from './discover';
import { formatLocalTime, formatReward, launchPhaseText, shownCauses } from './format';
import { syncNodeFs, mapLimit } from '../fs/seam';
import { folderSize, RUN_SIZE_MAX_ENTRIES } from './artefacts';
import { RunsModel } from './model';
import { inspectAll } from './parallel';
import { experimentHealth, healthJson, stallMinutesOf, type HealthJson } from './health';
import { diagnoseExperiment } from '../diagnose/experiment';
import type { Cause } from '../diagnose/types';

export interface RunRow {
  experiment: string;
  path: string;
  status: string;
  reason?: string;
  started: string;
  sessions: string[];
  hosts: string[];
  latestStep?: number;
  latestReward?: number;
  checkpoints: number[];
  exceptions: number;
  /** Harmless notes in exception.json.log (never a failure). */
  notes: number;
  /** What decided the status, first. */
  evidence: Evidence[];
  /** The latest session's hosts, each with its own status and evidence. */
  latestSession?: { name: string; hosts: { name: string; status: string; evidence: Evidence[] }[] };
  layout?: string;
  totalSteps?: number;
  /** SwanLab / TensorBoard log folders of the run that exist, and the command that opens each. */
  trackingLogs?: { logger: string; path: string; shared: boolean; open: string }[];
  /** Bytes under the experiment folder (JSON only): the number the Runs view shows (folderSize). */
  sizeBytes?: number;
  /** False when the folder has more entries than are counted (sizeBytes is then a floor). */
  sizeComplete?: boolean;
  /** A running run with a live local lock: whether it still makes progress (core/runs/health.ts). */
  health?: HealthJson;
  /** A running launch from the editor: its phase (preparing, running, paused, stopping), since when, and the words the Runs view shows. */
  launch?: { phase: string; since?: string; text?: string };
  /** A failed, interrupted or stalled run: why, each cause with its fix and evidence (core/diagnose). */
  causes?: Cause[];
}

export interface HealthOptions {
  /** `agentjet.runs.stallMinutes` / `--stall-minutes` (default 10). */
  stallMinutes?: number;
  /** The clock (tests pass a fixed one). */
  now?: number;
}

export function toRow(i: ExperimentInfo, h: HealthOptions = {}): RunRow {
  const row: RunRow = {
    experiment: i.entry.name,
    path: i.entry.path,
    status: i.status,
    started: formatLocalTime(i.entry.timeMs),
    sessions: i.entry.sessions,
    hosts: i.hosts,
    checkpoints: i.checkpoints.map((c) => c.step),
    exceptions: i.exceptionCount,
    notes: i.noteCount,
    evidence: i.evidence,
  };
  const last = i.sessions.at(-1);
  if (last)
    row.latestSession = { name: last.name, hosts: last.hosts.map((h) => ({ name: h.name, status: h.status, evidence: h.evidence })) };
  if (i.layout) row.layout = i.layout;
  if (i.totalSteps !== undefined) row.totalSteps = i.totalSteps;
  if (i.reason) row.reason = i.reason;
  if (i.trackingLogs?.length) row.trackingLogs = i.trackingLogs.map((l) => ({ ...l, open: trackingOpenCommand(l.logger, l.path) }));
  if (i.latestStep !== undefined) row.latestStep = i.latestStep;
  if (i.latestReward !== undefined) row.latestReward = Number(formatReward(i.latestReward));
  const now = h.now ?? Date.now();
  const health = experimentHealth(i, now, stallMinutesOf(h.stallMinutes));
  if (health) row.health = healthJson(health, now);
  if (i.launch) {
    const text = launchPhaseText(i.launch, now);
    row.launch = {
      phase: i.launch.phase,
      ...(i.launch.sinceMs !== undefined ? { since: new Date(i.launch.sinceMs).toISOString() } : {}),
      ...(text ? { text } : {}),
    };
  }
  const causes = shownCauses(i, health);
  if (causes.length) row.causes = causes;
  return row;
}

export async function collectRuns(
  args: readonly string[],
  opts: { sizes?: boolean; within?: readonly string[] } & HealthOptions = {},
): Promise<{ rows: RunRow[]; infos: ExperimentInfo[]; rootsFound: string[]; errors: string[] }> {
  // `within` (an agent's roots): experiments, logs and snapshots reached through links out of them are not read.
  const fs = syncNodeFs(opts.within ? { within: opts.within } : {});
  const folders = args.length ? args.map((a) => resolve(a)) : [process.cwd()];
  // A folder may be a project (holding saved_experiments/launcher_record) or a root itself.
  const roots = [...candidateRoots(folders), ...folders.map((p) => ({ path: p, source: 'configured' as const }))];
  // One listing: shared folders (a project's checkpoints) are read once.
  const model = new RunsModel(fs, { listingMemo: new Map() });
  model.setRoots(roots);
  const found = await model.roots();
  // A project folder given as a root would list saved_experiments itself as an experiment.
  const projectDirs = new Set(folders.filter((f) => found.some((r) => r.path.startsWith(f + sep))));
  model.setRoots(found.filter((r) => !projectDirs.has(r.path)));
  const rootsFound = (await model.roots()).map((r) => r.path);
  const entries = await model.experiments();
  // Thousands of experiments are inspected on two threads (core/runs/parallel.ts).
  const infos = await inspectAll(fs, entries, model.opts, undefined, undefined, undefined, opts.within);
  const now = opts.now ?? Date.now();
  const rows = infos.map((i) => toRow(i, { now, ...(opts.stallMinutes !== undefined ? { stallMinutes: opts.stallMinutes } : {}) }));
  // Failed, interrupted and stalled runs: their causes from all their material, this node's Ray
  // worker logs included (an agent's listing reads only inside its roots).
  await mapLimit(rows, 4, async (r) => {
    if (r.status !== 'failed' && r.status !== 'interrupted' && r.health?.state !== 'stalled') return;
    try {
      const d = await diagnoseExperiment(fs, r.path, { ray: !opts.within });
      if (d.causes.length) r.causes = d.causes;
    } catch {
      /* the listing's causes stay */
    }
  });
  if (opts.sizes)
    await mapLimit(rows, 16, async (r) => {
      const s = await folderSize(fs, r.path, RUN_SIZE_MAX_ENTRIES);
      r.sizeBytes = s.bytes;
      if (!s.complete) r.sizeComplete = false;
    });
  return { rows, infos, rootsFound, errors: model.rootErrors().map((e) => `${e.root}: ${e.error}`) };
}
