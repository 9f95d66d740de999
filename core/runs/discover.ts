// Run discovery: experiment roots -> experiments -> sessions -> hosts -> artefacts, one level at a
// time, all through the counted async RunsFs. Bad trees (missing folders, permission errors,
// dangling links, loops, files that appear or vanish mid-scan) become data, never exceptions.
// Split by concern: roots.ts (roots, experiments), hostStatus.ts (sessions, hosts, evidence),
// snapshot.ts (config snapshot, checkpoints), artefacts.ts (logs, trajectories, size); the
// rules themselves live in core/agentjet.
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { parseHostFolder as parseHost } from '../agentjet/hosts';
import { readLaunchRecords } from '../agentjet/launchRecord';
import { layoutOfRun, type LayoutVersion } from '../agentjet/layout';
import { combineStatus, reasonOf } from '../agentjet/status';
import { mapLimit, statOnce, type RunsFs } from '../fs/seam';
import { decide, decideLaunchOnly, readSession, type HostRead } from './hostStatus';
import { latestStepReward, readTailRecords } from './records';
import { parseRecordTitle } from '../logs/record';
import { listCheckpoints, readSnapshotFacts, type SnapshotFacts } from './snapshot';
import { existingTracking, trackingCandidates } from './tracking';
import { readProgress } from './progress';
import { launchForSession } from '../agentjet/launchRecord';
import type { DiscoverOptions, ExperimentEntry, ExperimentInfo, SessionInfo } from './runTypes';
import { t } from '../l10n';
import { diagnoseExperiment } from '../diagnose/experiment';

/** Bytes of each log a run listing reads for a failed run's cause (`agentjet diagnose` reads more). */
export const LISTING_CAUSE_BYTES = 512 * 1024;
/** A running run idle this long is looked at for a cause (the default `agentjet.runs.stallMinutes`). */
export const STALL_CAUSE_IDLE_MS = 10 * 60_000;

export type { RunStatus } from './types';
export type {
  CheckpointInfo,
  DiscoverOptions,
  ExperimentEntry,
  ExperimentInfo,
  ExperimentRoot,
  HostInfo,
  LockInfo,
  SessionInfo,
  TrackingLog,
} from './runTypes';
export type { Evidence } from '../agentjet/status';
export {
  candidateRoots,
  existingRoots,
  isSessionName,
  listExperiments,
  parseSessionTime,
  readExperimentEntry,
  sortNewestFirst,
} from './roots';
export { inspectSession, tracebackAtEnd, tracebackAtEndOf, countExceptionRecords } from './hostStatus';
export { listCheckpoints, readSnapshotFacts, snapshotFacts, type SnapshotFacts } from './snapshot';
export {
  folderSize,
  RUN_SIZE_MAX_ENTRIES,
  sizeIsStale,
  listHostArtefacts,
  listTrajectoryFiles,
  listTrajectorySteps,
  type HostArtefacts,
} from './artefacts';
export { combineStatus };

/** `gpu-node-0` or `gpu-node-0_4242` (a second process on the same host). */
export function parseHostFolder(name: string, localHost: string): { host: string; pid?: number } {
  return parseHost(name, localHost);
}

/** The generation a folder's layout belongs to, from its root's name and the snapshot's section. */
function layoutOf(entry: ExperimentEntry, snap: SnapshotFacts | undefined, hostless: boolean): LayoutVersion | undefined {
  const root = basename(entry.root);
  if (snap?.dialect === 'ajet') return snap.ajetLayout === 'agentjet-0.0.4' ? 'agentjet-0.0.4' : layoutOfRun(entry.name, undefined);
  if (snap?.dialect === 'astune') return 'astune';
  if (root === 'launcher_record' || hostless) return snap?.dialect === 'astuner' || !snap ? 'astuner-2025-11' : undefined;
  if (snap?.dialect === 'astuner') return 'astuner-2025-12';
  return root === 'saved_experiments' ? layoutOfRun(entry.name, undefined) : undefined;
}

/** Status, sessions, hosts, latest step/reward and checkpoints of one experiment. */
export async function inspectExperiment(outerFs: RunsFs, entry: ExperimentEntry, opts: DiscoverOptions = {}): Promise<ExperimentInfo> {
  const fs = statOnce(outerFs);
  const launches = entry.hasLaunchRecords === false ? [] : await readLaunchRecords(fs, entry.path);
  const reads = await mapLimit(entry.sessions, 4, (s) => readSession(fs, join(entry.path, s), opts, launches));
  const sessions = reads.map((r) => r.session);
  const info: ExperimentInfo = {
    entry,
    status: 'empty',
    evidence: [],
    sessions,
    hosts: [],
    checkpoints: [],
    exceptionCount: 0,
    noteCount: 0,
  };
  info.hosts = [...new Set(sessions.flatMap((s) => s.hosts.filter((h) => !h.hostless).map((h) => h.host)))];
  let snap: SnapshotFacts | undefined;
  if (entry.snapshot) {
    snap = await readSnapshotFacts(fs, entry.snapshot);
    if (snap.error) info.snapshotError = snap.error;
    if (snap.project) info.project = snap.project;
    if (snap.totalSteps !== undefined) info.totalSteps = snap.totalSteps;
    const base = snap.checkpointBase ?? 'saved_checkpoints';
    if (snap.project) {
      // The folder name is the experiment name the launcher used for both trees.
      const dir = join(isAbsolute(base) ? base : resolve(dirname(entry.root), base), snap.project, entry.name);
      info.checkpointDir = dir;
      info.checkpoints = (await hasFolder(fs, dir, opts.listingMemo)) ? await listCheckpoints(fs, dir) : [];
    }
    if (snap.loggers?.length) {
      const candidates = trackingCandidates({
        loggers: snap.loggers,
        projectDir: dirname(entry.root),
        ...(snap.project ? { project: snap.project } : {}),
        experiment: entry.name,
        env: opts.env ?? process.env,
      });
      const found = await existingTracking(fs, candidates);
      if (found.length) info.trackingLogs = found;
    }
  }
  const layout = layoutOf(
    entry,
    snap,
    sessions.some((s) => s.hosts.some((h) => h.hostless)),
  );
  if (layout) info.layout = layout;
  // Step and reward: the newest session with rollout records.
  for (let i = sessions.length - 1; i >= 0 && info.latestStep === undefined; i--) {
    const sr = await sessionStepReward(fs, sessions[i]!);
    if (sr) {
      info.latestStep = sr.step;
      if (sr.meanReward !== undefined) info.latestReward = sr.meanReward;
    }
  }
  const latestRead = reads[reads.length - 1];
  if (latestRead) addCompletion(info, latestRead.reads);
  const running = sessions.find((s) => s.status === 'running');
  const latest = sessions[sessions.length - 1];
  const decisive = running ?? latest;
  if (decisive) {
    info.status = decisive.status;
    // The host whose own files decided it (its own lock, a launch record) speaks for the run.
    const same = decisive.hosts.filter((h) => h.status === decisive.status);
    const host = same.find((h) => h.lock || h.evidence[0]?.kind === 'launch-record') ?? same[0];
    if (host?.reason) info.reason = host.reason;
    if (host) info.evidence = host.evidence;
  } else if (entry.error) {
    info.reason = entry.error;
  }
  // The newest launch made no session (stopped or failed before the logger registered): it speaks.
  const lastLaunch = launches.at(-1);
  if (lastLaunch && !running && (!latest || (latest.timeMs !== undefined && lastLaunch.record.startMs > latest.timeMs + 60_000))) {
    const d = await decideLaunchOnly(fs, lastLaunch, opts);
    if (d.status !== 'empty') {
      info.status = d.status;
      info.evidence = d.evidence;
      const reason = reasonOf(d);
      if (reason) info.reason = reason;
    }
  }
  // A launch that runs, decided by its live record: what it is doing (prepared, paused, stopped).
  const live = launches.at(-1)?.record;
  if (info.status === 'running' && live && live.endMs === undefined && live.phase && info.evidence[0]?.kind === 'launch-record')
    info.launch = { phase: live.phase, ...(live.phaseSinceMs !== undefined ? { sinceMs: live.phaseSinceMs } : {}) };
  if (info.status === 'running' && running) {
    // Only a host whose own live lock says it runs here: its files are this process's.
    const host = running.hosts.find((h) => h.status === 'running' && h.local && h.lock?.alive);
    if (host) {
      const L = running.timeMs !== undefined ? launchForSession(launches, running.timeMs) : undefined;
      const ck = info.checkpoints.at(-1);
      info.progress = await readProgress(fs, {
        hostPath: host.path,
        modules: host.modules,
        ...(L?.output ? { launchOutput: L.output } : {}),
        ...(info.checkpointDir ? { checkpointDir: info.checkpointDir } : {}),
        ...(ck ? { checkpoint: ck } : {}),
        ...(info.trackingLogs?.length ? { trackingDirs: info.trackingLogs.filter((l) => !l.shared).map((l) => l.path) } : {}),
      });
    }
  }
  // A running run idle past the shortest stall limit may be stalled: its material may say why
  // (a worker's OOM, an NCCL watchdog); the views show these causes only when it reads stalled.
  const idle = info.progress?.lastWriteMs !== undefined && (opts.now?.() ?? Date.now()) - info.progress.lastWriteMs > STALL_CAUSE_IDLE_MS;
  if (info.status === 'failed' || info.status === 'interrupted' || idle) {
    // The cause, from the run's own launcher output and logs; Ray's worker logs and the rest of a
    // large log are left to `agentjet diagnose` (a listing reads every failed run).
    try {
      const d = await diagnoseExperiment(fs, entry.path, { ray: false, maxBytes: LISTING_CAUSE_BYTES });
      if (d.causes.length) info.causes = d.causes;
    } catch {
      /* unreadable material: no cause */
    }
  }
  info.exceptionCount = latest ? latest.hosts.reduce((n, h) => n + h.exceptions, 0) : 0;
  info.noteCount = latest ? latest.hosts.reduce((n, h) => n + h.notes, 0) : 0;
  return info;
}

/**
 * Whether `dir` may exist, from one shared listing of its parent (a project's checkpoint folder
 * holds every experiment's): without a memo, always "may" (the caller's readdir decides).
 */
async function hasFolder(fs: RunsFs, dir: string, memo: DiscoverOptions['listingMemo']): Promise<boolean> {
  if (!memo) return true;
  const parent = dirname(dir);
  let names = memo.get(parent);
  if (!names)
    memo.set(
      parent,
      (names = fs.readdir(parent).then(
        (es) => new Set(es.filter((e) => e.kind === 'dir').map((e) => e.name)),
        () => undefined,
      )),
    );
  return (await names)?.has(basename(dir)) ?? false;
}

/** Proof that the latest session completed: the last step its settings call for, or that step's checkpoint. */
function addCompletion(info: ExperimentInfo, reads: readonly HostRead[]): void {
  const total = info.totalSteps;
  if (total === undefined) return;
  const ckpt = info.checkpoints.find((c) => c.step >= total);
  const text = ckpt
    ? t('checkpoint global_step_{0} reached the last step the settings call for ({1})', ckpt.step, total)
    : info.latestStep !== undefined && info.latestStep >= total
      ? t('rollout reached step {0}, the last step the settings call for ({1})', info.latestStep, total)
      : undefined;
  if (!text) return;
  const latest = info.sessions[info.sessions.length - 1]!;
  for (const r of reads) {
    if (r.info.status !== 'ended' && r.info.status !== 'failed') continue;
    r.facts.completion = { text, ...(ckpt ? { file: ckpt.path } : {}) };
    decide(r);
  }
  latest.status = combineStatus(latest.hosts.map((h) => h.status));
}

async function sessionStepReward(fs: RunsFs, session: SessionInfo): Promise<{ step: number; meanReward?: number } | undefined> {
  let best: { step: number; rewards: number[] } | undefined;
  for (const h of session.hosts) {
    if (!h.modules.includes('rollout')) continue;
    let tail;
    try {
      // A log's steps only grow: reading back, a record of a lower step means the latest step's
      // records are all in hand (the earlier ones are not decoded).
      let top = -Infinity;
      tail = await readTailRecords(fs, join(h.path, 'rollout', 'rollout.json.log'), {
        minRecords: 2,
        titles: true,
        stopBefore: (r) => {
          const header = r.payload?.header;
          const step = typeof header === 'string' ? parseRecordTitle(header).step : undefined;
          if (step === undefined) return false;
          if (step < top) return true;
          top = Math.max(top, step);
          return false;
        },
      });
    } catch {
      continue;
    }
    const sr = latestStepReward(tail.records);
    if (!sr) continue;
    const rewards = sr.meanReward !== undefined ? Array<number>(sr.records).fill(sr.meanReward) : [];
    if (!best || sr.step > best.step) best = { step: sr.step, rewards };
    else if (sr.step === best.step) best.rewards.push(...rewards);
  }
  if (!best) return undefined;
  const out: { step: number; meanReward?: number } = { step: best.step };
  if (best.rewards.length) out.meanReward = best.rewards.reduce((a, b) => a + b, 0) / best.rewards.length;
  return out;
}
