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
// generation end"; "Force saving checkpoint"), verl's trainer (`_save_checkpoint` prints the
// `local_global_step_folder`, `_load_checkpoint` "Load from checkpoint folder") and the model
// loaders of transformers and vLLM ("Loading checkpoint shards", "Loading safetensors checkpoint shards",
// "Loading model weights").
const MARKERS: Marker[] = [
  { re: /end validate rollout|validation generation end|(?:Initial|Final) validation metrics/, kind: 'end' },
  { re: /start validate rollout/, kind: 'validation' },
  { re: /local_global_step_folder:|Force saving checkpoint|[Ss]aving checkpoint/, kind: 'checkpoint' },
  {
    re: /Load from checkpoint folder|Loading (?:safetensors )?checkpoint shards|Loading model weights|Loading weights took/,
    kind: 'loading',
  },
];

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
  // A checkpoint folder of the latest step that verl's tracker file does not name yet is being written.
  if (!out.phase && src.checkpoint && src.checkpointDir) {
    const latest = out.steps.at(-1)?.step;
    if (latest === undefined || src.checkpoint.step >= latest) {
      let tracked: number | undefined;
      try {
        const buf = await fs.readRange(join(src.checkpointDir, 'latest_checkpointed_iteration.txt'), 0, 64);
        const n = Number(buf.toString('utf8').trim());
        if (Number.isInteger(n)) tracked = n;
      } catch {
        /* not written yet */
      }
      const st = await tryStat(fs, src.checkpoint.path);
      if ((tracked === undefined || tracked < src.checkpoint.step) && st && st.mtimeMs >= lastStart)
        out.phase = { kind: 'checkpoint', sinceMs: st.mtimeMs };
    }
  }
  return out;
}
