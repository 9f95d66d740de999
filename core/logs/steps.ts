// Per-step accumulation over rollout records, the one rule for every reader: the dashboard's live
// aggregation (core/runs/metrics.ts), whole-run curves (wholelog.ts stepCurves) and log stats
// (stats.ts). The reward is the one in the record's title; a record counts as a success when it is
// at least 1.
import type { StepPoint } from '../protocol/runs';

interface StepAcc {
  n: number;
  rewardSum: number;
  rewardN: number;
  success: number;
  lenSum: number;
  lenN: number;
  firstTime: string | undefined;
}

/** What one record adds to its step. `time` is the header time as written (`YYYY-MM-DD HH:MM:SS.mmm`). */
export interface StepSample {
  reward?: number;
  responseLength?: number;
  time?: string;
}

export class StepCurves {
  private readonly steps = new Map<number, StepAcc>();

  add(step: number, s: StepSample): void {
    let acc = this.steps.get(step);
    if (!acc) {
      acc = { n: 0, rewardSum: 0, rewardN: 0, success: 0, lenSum: 0, lenN: 0, firstTime: undefined };
      this.steps.set(step, acc);
    }
    acc.n++;
    if (s.reward !== undefined) {
      acc.rewardSum += s.reward;
      acc.rewardN++;
      if (s.reward >= 1 - 1e-9) acc.success++;
    }
    if (s.responseLength !== undefined) {
      acc.lenSum += s.responseLength;
      acc.lenN++;
    }
    // The earliest: records may arrive out of order (worker threads); the format sorts as text.
    if (s.time !== undefined && (acc.firstTime === undefined || s.time < acc.firstTime)) acc.firstTime = s.time;
  }

  points(): StepPoint[] {
    return [...this.steps.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([step, a]) => {
        const p: StepPoint = { step, records: a.n, firstTime: a.firstTime ?? '' };
        if (a.rewardN) {
          p.meanReward = a.rewardSum / a.rewardN;
          p.successRate = a.success / a.rewardN;
        }
        if (a.lenN) p.meanResponseLength = a.lenSum / a.lenN;
        return p;
      });
  }

  clear(): void {
    this.steps.clear();
  }
}
