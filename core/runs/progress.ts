// Reads what core/runs/health.ts judges for a running run: when its recent steps began (the
// header times of its rollout records), its newest write (logs, records, launcher output,
// checkpoints, tracking folders; not the lock, which is written once) and the long phase its last
// log lines name (validation, checkpoint save, model loading). Bounded reads of file tails only.
import { join } from 'node:path';
import { parseRecordTitle } from '../logs/record';
import { tryStat, type RunsFs } from '../fs/seam';
import { readTailRecords, type DecodedRecord } from './records';
import type { PhaseKind, RunProgress, StepStart } from './health';

/** Steps kept for the usual step time. */
const MAX_STEPS = 16;
/** Log tail read for phase markers. */
const PHASE_TAIL_BYTES = 64 * 1024;

/** `2026-01-05 10:00:00.123` (local time, as loguru writes it) to ms. */
export function loguruTimeMs(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/.exec(s);
  if (!m) return undefined;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const t = new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, ms).getTime();
  return Number.isFinite(t) ? t : undefined;
}

/**
 * Each step's first record time, ascending by step. `whole`: the records start at the file's
 * start; otherwise the earliest step seen may have begun before the window and is left out.
 */
export function stepStarts(records: readonly DecodedRecord[], whole: boolean): StepStart[] {
  const first = new Map<number, number>();
  for (const r of records) {
    const header = r.payload?.header;
    if (typeof header !== 'string') continue;
    const step = parseRecordTitle(header).step;
    const ms = loguruTimeMs(r.header.time);
    if (step === undefined || ms === undefined) continue;
    const had = first.get(step);
    if (had === undefined || ms < had) first.set(step, ms);
  }
  const out = [...first].map(([step, startMs]) => ({ step, startMs })).sort((a, b) => a.step - b.step);
  if (!whole) out.shift();
  return out.slice(-MAX_STEPS);
}

interface Marker {
  re: RegExp;
  /** A phase begins (its kind), or the phases end (`end`). */
  kind: PhaseKind | 'end';
}

// What the run's own code prints around its long phases: AgentJet's trainer (ajet/backbone/
// trainer_verl.py, `_validate`: "start validate rollout" ... "end validate rollout", "validation
// generation end"; "Force saving checkpoint" before an ESI save), verl's PPO trainer
// (verl/trainer/ppo/ray_trainer.py `_save_checkpoint` prints `local_global_step_folder: <dir>/global_step_N`
// first, prints nothing when done and ends by writing `latest_checkpointed_iteration.txt`;
// `_load_checkpoint` prints "Load from checkpoint folder"; verl's SFT checkpoint handler prints
// "Saving checkpoint to:") and the model loaders of transformers and vLLM ("Loading checkpoint
// shards", "Loading safetensors checkpoint shards", "Loading model weights").
const MARKERS: Marker[] = [
  { re: /end validate rollout|validation generation end|(?:Initial|Final) validation metrics/, kind: 'end' },
  { re: /start validate rollout/, kind: 'validation' },
  { re: /local_global_step_folder: |Force saving checkpoint|Saving checkpoint to: /, kind: 'checkpoint' },
  {
    re: /Load from checkpoint folder|Loading (?:safetensors )?checkpoint shards|Loading model weights|Loading weights took/,
    kind: 'loading',
  },
];

/** verl's checkpoint tracker, written in `trainer.default_local_dir` when a save has ended. */
export const CHECKPOINT_TRACKER = 'latest_checkpointed_iteration.txt';

/** The step a checkpoint marker line names (`.../global_step_N`), if any. */
export function checkpointStepOfLine(line: string): number | undefined {
  const m = /global_step_(\d+)/.exec(line);
  return m ? Number(m[1]) : undefined;
}

/** The phase the last marker line of `lines` opens (undefined when none, or the last one closes). */
export function phaseOfLines(lines: readonly string[]): { kind: PhaseKind; index: number; line: string } | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const m = MARKERS.find((k) => k.re.test(line));
    if (!m) continue;
    return m.kind === 'end' ? undefined : { kind: m.kind, index: i, line: line.trim().slice(0, 200) };
  }
  return undefined;
}

async function tailLines(fs: RunsFs, path: string): Promise<{ lines: string[]; mtimeMs: number } | undefined> {
  const st = await tryStat(fs, path);
  if (!st || !st.isFile()) return undefined;
  try {
    const start = Math.max(0, st.size - PHASE_TAIL_BYTES);
    const text = (await fs.readRange(path, start, st.size - start)).toString('utf8');
    const lines = text.split('\n');
    if (start > 0) lines.shift();
    return { lines: lines.filter((l) => l.trim() !== ''), mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

async function readTracker(fs: RunsFs, dir: string): Promise<{ step: number | undefined; mtimeMs: number } | undefined> {
  const path = join(dir, CHECKPOINT_TRACKER);
  const st = await tryStat(fs, path);
  if (!st || !st.isFile()) return undefined;
  try {
    const n = Number((await fs.readRange(path, 0, 64)).toString('utf8').trim());
    return { step: Number.isInteger(n) ? n : undefined, mtimeMs: st.mtimeMs };
  } catch {
    return { step: undefined, mtimeMs: st.mtimeMs };
  }
}

export interface ProgressSources {
  /** The host folder holding the run's lock and logs. */
  hostPath: string;
  /** Its module folders (`rollout`, `regular`, `exception`, ...). */
  modules: readonly string[];
  /** The launcher output VS Code kept for this launch. */
  launchOutput?: string;
  checkpointDir?: string;
  /** Newest checkpoint folder. */
  checkpoint?: { step: number; path: string };
  /** Tracking folders (SwanLab, TensorBoard): a metric written touches them. */
  trackingDirs?: readonly string[];
}

/** Reads the progress facts of one running host. Never throws: what cannot be read is left out. */
export async function readProgress(fs: RunsFs, src: ProgressSources): Promise<RunProgress> {
  const out: RunProgress = { steps: [] };
  const writes: number[] = [];
  const note = async (path: string) => {
    const st = await tryStat(fs, path);
    if (st) writes.push(st.mtimeMs);
  };
  const rollout = join(src.hostPath, 'rollout', 'rollout.json.log');
  if (src.modules.includes('rollout')) {
    try {
      // A window with a few steps' records; records can be large, so a second, wider look if not.
      let tail = await readTailRecords(fs, rollout, { titles: true, initialBytes: 256 * 1024, maxBytes: 256 * 1024 });
      let whole = tail.size <= 256 * 1024;
      let steps = stepStarts(tail.records, whole);
      if (steps.length < 3 && !whole) {
        tail = await readTailRecords(fs, rollout, { titles: true, initialBytes: 4 * 1024 * 1024, maxBytes: 4 * 1024 * 1024 });
        whole = tail.size <= 4 * 1024 * 1024;
        steps = stepStarts(tail.records, whole);
      }
      out.steps = steps;
      writes.push(tail.mtimeMs);
    } catch {
      /* no rollout log yet */
    }
  }
  for (const m of src.modules) {
    if (m === 'rollout') continue;
    await note(join(src.hostPath, m, `${m}.log`));
    await note(join(src.hostPath, m, `${m}.json.log`));
  }
  if (src.launchOutput) await note(src.launchOutput);
  if (src.checkpoint) await note(src.checkpoint.path);
  for (const d of src.trackingDirs ?? []) await note(d);
  if (writes.length) out.lastWriteMs = Math.max(...writes);

  // The phase: the last marker of the regular log (timed lines), else of the launcher output
  // (untimed: only when among its last lines, and dated by the file's last write).
  const lastStart = out.steps.at(-1)?.startMs ?? -Infinity;
  const regular = await tailLines(fs, join(src.hostPath, 'regular', 'regular.log'));
  const inRegular = regular && phaseOfLines(regular.lines);
  if (inRegular) {
    const ms = loguruTimeMs(inRegular.line) ?? regular.mtimeMs;
    if (ms >= lastStart) out.phase = { kind: inRegular.kind, sinceMs: ms, line: inRegular.line };
  }
  if (!out.phase && src.launchOutput) {
    const o = await tailLines(fs, src.launchOutput);
    const p = o && phaseOfLines(o.lines.slice(-20));
    if (p) out.phase = { kind: p.kind, sinceMs: Math.max(lastStart, o.mtimeMs), line: p.line };
  }
  const tracker = src.checkpointDir ? await readTracker(fs, src.checkpointDir) : undefined;
  // verl prints nothing when a save ends: its tracker naming the step (or written after the line) closes it.
  if (out.phase?.kind === 'checkpoint' && tracker) {
    const step = checkpointStepOfLine(out.phase.line ?? '');
    if (step !== undefined ? tracker.step !== undefined && tracker.step >= step : tracker.mtimeMs >= out.phase.sinceMs) delete out.phase;
  }
  // A checkpoint folder of the latest step that verl's tracker does not name yet is being written.
  if (!out.phase && src.checkpoint && src.checkpointDir) {
    const latest = out.steps.at(-1)?.step;
    if (latest === undefined || src.checkpoint.step >= latest) {
      const st = await tryStat(fs, src.checkpoint.path);
      if ((tracker?.step === undefined || tracker.step < src.checkpoint.step) && st && st.mtimeMs >= lastStart)
        out.phase = { kind: 'checkpoint', sinceMs: st.mtimeMs };
    }
  }
  return out;
}
