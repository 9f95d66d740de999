// The list rows of an open log (LogSession): per record the step, reward, token counts, kind, task,
// title, outcome and error, in columns (typed arrays where numeric), filled from summaries, facts or
// full decodes; filtering, sorting and the filter choices read them.
import type { RecordKind } from './decode';
import type { Filter, Row, Sort } from '../protocol/tokenlog';

const KINDS: RecordKind[] = ['tokens', 'table', 'text'];

/** What a header summary tells of a record (decode.ts summarizePrefix). */
export interface RowSummary {
  step?: number;
  reward?: number;
  taskId?: string;
  title?: string;
  outcome?: string;
  error?: string;
}

/** What the whole record tells (a full decode, or its facts): the summary plus the counts. */
export interface RowWhole extends Omit<RowSummary, 'error'> {
  kind?: RecordKind;
  tokens: number;
  trained: number;
  timelines: number;
}

export class RecordRows {
  private step = new Float64Array(0);
  private reward = new Float64Array(0);
  /** -1 until decoded in full. */
  private tokens = new Int32Array(0);
  private trained = new Int32Array(0);
  private timelines = new Int32Array(0);
  private kind = new Int8Array(0);
  private task: (string | undefined)[] = [];
  private title: (string | undefined)[] = [];
  private outcome: (string | undefined)[] = [];
  private error: (string | undefined)[] = [];

  grow(n: number): void {
    if (this.step.length >= n) return;
    const size = Math.max(n, this.step.length * 2, 256);
    const f64 = (old: Float64Array) => {
      const a = new Float64Array(size).fill(NaN);
      a.set(old);
      return a;
    };
    const i32 = (old: Int32Array) => {
      const a = new Int32Array(size).fill(-1);
      a.set(old);
      return a;
    };
    this.step = f64(this.step);
    this.reward = f64(this.reward);
    this.tokens = i32(this.tokens);
    this.trained = i32(this.trained);
    this.timelines = i32(this.timelines);
    const k = new Int8Array(size).fill(-1);
    k.set(this.kind);
    this.kind = k;
  }

  /** Forgets records i and later (their bytes changed). */
  clearFrom(i: number): void {
    if (this.step.length > i) {
      this.step.fill(NaN, i);
      this.reward.fill(NaN, i);
      this.tokens.fill(-1, i);
      this.trained.fill(-1, i);
      this.timelines.fill(-1, i);
      this.kind.fill(-1, i);
    }
    for (const col of [this.task, this.title, this.outcome, this.error]) col.length = Math.min(col.length, i);
  }

  /** Has record i a summary or an error already? */
  known(i: number): boolean {
    return this.title[i] !== undefined || this.error[i] !== undefined;
  }

  setSummary(i: number, s: RowSummary): void {
    if (s.step !== undefined) this.step[i] = s.step;
    if (s.reward !== undefined) this.reward[i] = s.reward;
    this.task[i] = s.taskId;
    this.title[i] = s.title;
    this.outcome[i] = s.outcome;
    this.error[i] = s.error;
  }

  setWhole(i: number, w: RowWhole): void {
    this.grow(i + 1);
    this.setSummary(i, w);
    this.error[i] = undefined;
    this.tokens[i] = w.tokens;
    this.trained[i] = w.trained;
    this.timelines[i] = w.timelines;
    if (w.kind) this.kind[i] = KINDS.indexOf(w.kind);
  }

  setError(i: number, error: string): void {
    this.grow(i + 1);
    this.error[i] = error;
  }

  /** Record i's row; `time` and `partial` come from the index. */
  row(i: number, time: number | undefined, partial: boolean): Row {
    const r: Row = { index: i };
    if (time !== undefined) r.time = time;
    if (i < this.step.length) {
      if (!Number.isNaN(this.step[i]!)) r.step = this.step[i];
      if (!Number.isNaN(this.reward[i]!)) r.reward = this.reward[i];
      if (this.tokens[i]! >= 0) {
        r.tokens = this.tokens[i];
        r.trained = this.trained[i];
        r.timelines = this.timelines[i];
      }
      if (this.kind[i]! >= 0) r.kind = KINDS[this.kind[i]!];
    }
    if (this.title[i] !== undefined) r.title = this.title[i];
    if (this.task[i] !== undefined) r.taskId = this.task[i];
    if (this.outcome[i] !== undefined) r.outcome = this.outcome[i];
    if (this.error[i] !== undefined) r.error = this.error[i];
    if (partial) r.partial = true;
    return r;
  }

  /** Distinct steps and outcomes of records [0, n) (for filter choices). */
  facets(n: number): { steps: [number, number] | undefined; outcomes: string[] } {
    let lo = Infinity,
      hi = -Infinity;
    const outcomes = new Set<string>();
    for (let i = 0; i < n; i++) {
      const s = this.step[i]!;
      if (!Number.isNaN(s)) {
        lo = Math.min(lo, s);
        hi = Math.max(hi, s);
      }
      const o = this.outcome[i];
      if (o !== undefined) outcomes.add(o);
    }
    return { steps: lo <= hi ? [lo, hi] : undefined, outcomes: [...outcomes].sort() };
  }

  /** Records of [0, n) matching the filters (step, reward, outcome), sorted; `time` from the index. */
  query(n: number, filter: Filter, sort: Sort, time: (i: number) => number | undefined): number[] {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = i < this.step.length ? this.step[i]! : NaN;
      const r = i < this.reward.length ? this.reward[i]! : NaN;
      if (filter.stepMin !== undefined && !(s >= filter.stepMin)) continue;
      if (filter.stepMax !== undefined && !(s <= filter.stepMax)) continue;
      if (filter.rewardMin !== undefined && !(r >= filter.rewardMin)) continue;
      if (filter.rewardMax !== undefined && !(r <= filter.rewardMax)) continue;
      if (filter.outcome !== undefined && filter.outcome !== '' && this.outcome[i] !== filter.outcome) continue;
      out.push(i);
    }
    if (sort.key === 'index') return sort.desc ? out.reverse() : out;
    const dir = sort.desc ? -1 : 1;
    const val = (i: number): number | string => {
      switch (sort.key) {
        case 'step':
          return this.step[i]!;
        case 'reward':
          return this.reward[i]!;
        case 'tokens':
          return this.tokens[i]!;
        case 'time':
          return time(i) ?? NaN;
        case 'task':
          return this.task[i] ?? '';
        default:
          return i;
      }
    };
    return out.sort((a, b) => {
      const x = val(a),
        y = val(b);
      // Unknown values go last in both directions.
      const xu = typeof x === 'number' && (Number.isNaN(x) || (x < 0 && sort.key === 'tokens'));
      const yu = typeof y === 'number' && (Number.isNaN(y) || (y < 0 && sort.key === 'tokens'));
      if (xu !== yu) return xu ? 1 : -1;
      if (x < y) return -dir;
      if (x > y) return dir;
      return a - b;
    });
  }
}
