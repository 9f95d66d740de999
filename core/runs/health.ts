// Whether a running run still makes progress: pure rules over times read from its files (step
// starts from rollout record headers, the newest write among its logs and checkpoints, the phase
// its last log lines name). The clock is a parameter, so the rules are tested without waiting.
import { t } from '../l10n';

/** `stalled` is the only alarm; the others say what the run is doing. */
export type HealthState = 'progressing' | 'stalled' | 'starting' | 'validating' | 'saving-checkpoint' | 'loading-model';

/** A known long phase, as the run's own files show it. */
export type PhaseKind = 'validation' | 'checkpoint' | 'loading';

export interface StepStart {
  step: number;
  /** When the step's first rollout record was written (ms). */
  startMs: number;
}

/** What the files of a running run show about its progress (core/runs/progress.ts reads them). */
export interface RunProgress {
  /** Recent steps with their start times, ascending by step. */
  steps: StepStart[];
  /** Newest write among the run's logs, records, launcher output and checkpoints (ms); the lock is not progress. */
  lastWriteMs?: number;
  /** A long phase begun after the latest step started and not yet ended. */
  phase?: { kind: PhaseKind; sinceMs: number; line?: string };
}

export interface RunHealth {
  state: HealthState;
  /** Stalled: the last progress. Otherwise: when the current state began, when known (ms). */
  sinceMs?: number;
  /** The run's usual step time (median of its recent steps), once two steps are known. */
  usualStepS?: number;
  /** Seconds since the last progress. */
  idleS?: number;
  /** Seconds of no progress that make this run stalled (undefined while that cannot be judged). */
  thresholdS?: number;
}

export const DEFAULT_STALL_MINUTES = 10;
/** "Several times its usual step time". */
export const STEP_FACTOR = 4;
/** A known long phase (validation, checkpoint save, model loading) gets this many times longer. */
export const PHASE_FACTOR = 4;

/** A usable `stallMinutes` (positive and finite), else the default. */
export function stallMinutesOf(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : DEFAULT_STALL_MINUTES;
}

/** Median seconds between consecutive step starts; undefined with fewer than two steps. */
export function usualStepSeconds(steps: readonly StepStart[]): number | undefined {
  const gaps: number[] = [];
  for (let i = 1; i < steps.length; i++) {
    const a = steps[i - 1]!,
      b = steps[i]!;
    // Only neighbouring steps: a gap over a resume (step 5 -> 40) is no step time.
    if (b.step !== a.step + 1) continue;
    const d = (b.startMs - a.startMs) / 1000;
    if (Number.isFinite(d) && d >= 0) gaps.push(d);
  }
  if (!gaps.length) return undefined;
  gaps.sort((x, y) => x - y);
  const mid = gaps.length >> 1;
  return gaps.length % 2 ? gaps[mid]! : (gaps[mid - 1]! + gaps[mid]!) / 2;
}

const PHASE_STATE: Record<PhaseKind, HealthState> = {
  validation: 'validating',
  checkpoint: 'saving-checkpoint',
  loading: 'loading-model',
};

/**
 * The health of a running run at `now`. Stalled only when both hold: no progress for more than
 * STEP_FACTOR times its usual step time, and for more than `stallMinutes`; a known long phase
 * multiplies that by PHASE_FACTOR. With fewer than two steps there is no usual step time, so no alarm.
 */
export function runHealth(p: RunProgress, now: number, stallMinutes: number): RunHealth {
  const minutes = stallMinutesOf(stallMinutes);
  const lastStep = p.steps.at(-1);
  const times = [p.lastWriteMs, lastStep?.startMs].filter((x): x is number => x !== undefined && Number.isFinite(x));
  const last = times.length ? Math.max(...times) : undefined;
  const usual = usualStepSeconds(p.steps);
  // A phase counts only if it began after the latest step did (a later step ends it).
  const phase = p.phase && (!lastStep || p.phase.sinceMs >= lastStep.startMs) ? p.phase : undefined;
  const out: RunHealth = { state: phase ? PHASE_STATE[phase.kind] : 'progressing' };
  if (usual !== undefined) out.usualStepS = usual;
  if (last !== undefined) out.idleS = Math.max(0, (now - last) / 1000);
  if (usual === undefined || last === undefined) {
    if (!phase) out.state = 'starting';
    const since = phase?.sinceMs ?? lastStep?.startMs;
    if (since !== undefined) out.sinceMs = since;
    return out;
  }
  const threshold = Math.max(STEP_FACTOR * usual, minutes * 60) * (phase ? PHASE_FACTOR : 1);
  out.thresholdS = threshold;
  if (out.idleS! > threshold) {
    out.state = 'stalled';
    out.sinceMs = last;
  } else if (phase) out.sinceMs = phase.sinceMs;
  return out;
}

/** `45 s`, `41 min`, `2 h 5 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t('{0} s', s);
  const m = Math.round(s / 60);
  if (m < 60) return t('{0} min', m);
  const h = Math.floor(m / 60);
  return m % 60 ? t('{0} h {1} min', h, m % 60) : t('{0} h', h);
}

/** `14:02` (local time); with the date when it is not today. */
export function formatClock(ms: number, now: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  const hm = `${p(d.getHours())}:${p(d.getMinutes())}`;
  return new Date(now).toDateString() === d.toDateString() ? hm : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${hm}`;
}

/** One line for people: "stalled since 14:02 (no step for 41 min; its steps took 3 min)". */
export function healthText(h: RunHealth, now: number): string {
  const since = h.sinceMs !== undefined ? formatClock(h.sinceMs, now) : undefined;
  switch (h.state) {
    case 'stalled':
      return t(
        'stalled since {0} (no step for {1}; its steps took {2})',
        since ?? '?',
        formatDuration(h.idleS ?? 0),
        formatDuration(h.usualStepS ?? 0),
      );
    case 'progressing':
      return h.usualStepS !== undefined ? t('progressing (steps take {0})', formatDuration(h.usualStepS)) : t('progressing');
    case 'starting':
      return t('first steps in progress (no step time to compare yet)');
    case 'validating':
      return since ? t('validating since {0}', since) : t('validating');
    case 'saving-checkpoint':
      return since ? t('saving a checkpoint since {0}', since) : t('saving a checkpoint');
    case 'loading-model':
      return since ? t('loading the model since {0}', since) : t('loading the model');
  }
}

/** The few words a narrow row shows (`stalled since 14:02`); undefined when all is well. */
export function healthShort(h: RunHealth, now: number): string | undefined {
  const since = h.sinceMs !== undefined ? formatClock(h.sinceMs, now) : undefined;
  switch (h.state) {
    case 'stalled':
      return since ? t('stalled since {0}', since) : t('stalled');
    case 'validating':
    case 'saving-checkpoint':
    case 'loading-model':
      return healthText(h, now);
    default:
      return undefined;
  }
}

/** The health as plain JSON for `agentjet runs --format json` and the agents' tools. */
export interface HealthJson {
  state: HealthState;
  /** ISO 8601 (UTC). */
  since?: string;
  usualStepS?: number;
  idleS?: number;
  thresholdS?: number;
  text: string;
}

export function healthJson(h: RunHealth, now: number): HealthJson {
  const out: HealthJson = { state: h.state, text: healthText(h, now) };
  if (h.sinceMs !== undefined) out.since = new Date(h.sinceMs).toISOString();
  if (h.usualStepS !== undefined) out.usualStepS = Math.round(h.usualStepS * 10) / 10;
  if (h.idleS !== undefined) out.idleS = Math.round(h.idleS);
  if (h.thresholdS !== undefined) out.thresholdS = Math.round(h.thresholdS);
  return out;
}

/** A run's health at `now`, when it is running and its progress was read (a live local lock). */
export function experimentHealth(
  info: { status: string; progress?: RunProgress },
  now: number,
  stallMinutes: number,
): RunHealth | undefined {
  return info.status === 'running' && info.progress ? runHealth(info.progress, now, stallMinutes) : undefined;
}
