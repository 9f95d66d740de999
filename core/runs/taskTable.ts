// The dashboard's per-task table: one row per task id seen in a run's rollout records (every host,
// every rotated file), with how often it was rolled out, its rewards and AgentJet's success rate.
// Pure and linear: records are added one by one (in any order: worker threads hand them back in
// chunks), rows are made once per change, and each sort order is computed once and kept until
// the next change, so a page of a 10,000-task table costs a slice.
import { MAX_TASK_ID, type TaskQuery, type TaskRow, type TaskSortKey } from '../protocol/dashboard';

/** What one rollout record adds to its task (fields as read; anything may be missing or odd). */
export interface TaskSample {
  /** The record's task id (AgentJet writes a string; "" is its JSONL reader's default). */
  taskId: unknown;
  step?: unknown;
  /** The reward of the record's title (AgentJet: the last timeline's step reward). */
  reward?: unknown;
  /** The timelines' outcome: AgentJet writes `str(reward_structure.success_rate)`. */
  outcome?: unknown;
  /** Header time, ms since the epoch, for "last"; records without one keep their arrival order. */
  time?: unknown;
  /** The log file (group) the record is in: "Open in token log" opens the one of the latest record. */
  log?: string;
  /** The record's place in the run, for "last" among records of the same time; else arrival order. */
  order?: number;
}

interface Acc {
  id: string;
  n: number;
  rewardN: number;
  rewardSum: number;
  min: number;
  max: number;
  last: number | undefined;
  lastAt: number;
  lastSeq: number;
  successN: number;
  successSum: number;
  steps: Set<number>;
  /** Index into TaskTable.logs of the latest record's log. */
  log: number;
  logSeq: number;
}

/** Steps listed per row at most (the count says how many in all). */
export const MAX_ROW_STEPS = 50;

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** A task id as a string, or undefined when the record names none (numbers are written as Python would). */
export function taskIdOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v.length > MAX_TASK_ID ? v.slice(0, MAX_TASK_ID) : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return String(v);
  return undefined;
}

export class TaskTable {
  private readonly tasks = new Map<string, Acc>();
  private seq = 0;
  /** Records that named no task (not rollout records, or broken). */
  skipped = 0;
  /** Rollout records counted. */
  records = 0;
  private version = 0;
  private cached: { version: number; rows: TaskRow[] } | undefined;
  private readonly orders = new Map<string, { version: number; rows: TaskRow[] }>();
  /** Log paths, each kept once (a run has one per host and module). */
  private readonly logs: string[] = [];
  private readonly logIndex = new Map<string, number>();

  add(s: TaskSample): void {
    const id = taskIdOf(s.taskId);
    if (id === undefined) {
      this.skipped++;
      return;
    }
    let a = this.tasks.get(id);
    if (!a) {
      a = {
        id,
        n: 0,
        rewardN: 0,
        rewardSum: 0,
        min: Infinity,
        max: -Infinity,
        last: undefined,
        lastAt: -Infinity,
        lastSeq: -1,
        successN: 0,
        successSum: 0,
        steps: new Set(),
        log: -1,
        logSeq: -Infinity,
      };
      this.tasks.set(id, a);
    }
    this.records++;
    this.version++;
    const arrived = this.seq++;
    const seq = typeof s.order === 'number' && Number.isFinite(s.order) ? s.order : arrived;
    a.n++;
    let log = -1;
    if (typeof s.log === 'string') {
      log = this.logIndex.get(s.log) ?? -1;
      if (log < 0) {
        log = this.logs.push(s.log) - 1;
        this.logIndex.set(s.log, log);
      }
    }
    if (log >= 0 && seq >= a.logSeq) {
      a.log = log;
      a.logSeq = seq;
    }
    const r = num(s.reward);
    if (r !== undefined) {
      a.rewardN++;
      a.rewardSum += r;
      if (r < a.min) a.min = r;
      if (r > a.max) a.max = r;
      const at = num(s.time) ?? -Infinity;
      // The latest record by time; records without a time, or at the same time, by arrival.
      if (at > a.lastAt || (at === a.lastAt && seq > a.lastSeq)) {
        a.last = r;
        a.lastAt = at;
        a.lastSeq = seq;
      }
    }
    const o = num(s.outcome);
    if (o !== undefined) {
      a.successN++;
      a.successSum += o;
    }
    // Steps are numbers as the title parser gives them ("NA", ASTune's default, is none).
    const step = typeof s.step === 'number' ? s.step : undefined;
    // All distinct steps are kept (bounded by the run's steps); a row lists the first MAX_ROW_STEPS.
    if (step !== undefined && Number.isSafeInteger(step)) a.steps.add(step);
  }

  get size(): number {
    return this.tasks.size;
  }

  has(id: string): boolean {
    return this.tasks.has(id);
  }

  /** The log holding the task's latest (last read) record. */
  logOf(id: string): string | undefined {
    const a = this.tasks.get(id);
    return a && a.log >= 0 ? this.logs[a.log] : undefined;
  }

  clear(): void {
    this.tasks.clear();
    this.skipped = 0;
    this.records = 0;
    this.seq = 0;
    this.version++;
  }

  /** One row per task, in first-seen order. */
  rows(): TaskRow[] {
    if (this.cached?.version === this.version) return this.cached.rows;
    const rows: TaskRow[] = [];
    for (const a of this.tasks.values()) {
      const steps = [...a.steps].sort((x, y) => x - y);
      const row: TaskRow = { id: a.id, rollouts: a.n, steps: steps.slice(0, MAX_ROW_STEPS), stepCount: steps.length };
      if (a.rewardN) {
        row.meanReward = a.rewardSum / a.rewardN;
        row.minReward = a.min;
        row.maxReward = a.max;
        if (a.last !== undefined) row.lastReward = a.last;
      }
      if (a.successN) row.successRate = a.successSum / a.successN;
      rows.push(row);
    }
    this.cached = { version: this.version, rows };
    this.orders.clear();
    return rows;
  }

  /** The rows in one order, computed once per change. */
  sorted(key: TaskSortKey, desc: boolean): TaskRow[] {
    const rows = this.rows();
    const k = `${key}:${desc}`;
    const have = this.orders.get(k);
    if (have?.version === this.version) return have.rows;
    let rank: Map<TaskRow, number> | undefined;
    if (key !== 'id' || desc) {
      const byId = this.sorted('id', false);
      rank = new Map(byId.map((r, i) => [r, i]));
    }
    const out = sortTaskRows(rows, key, desc, rank);
    this.orders.set(k, { version: this.version, rows: out });
    return out;
  }

  /** A page of the filtered, sorted rows. */
  query(q: TaskQuery): TaskPage {
    return pageTaskRows(this.sorted(q.sort, q.desc), q);
  }
}

const collator = new Intl.Collator('en', { numeric: true });

/**
 * Rows in the order of `key`. Rows without the value (no reward recorded) come last in both
 * directions: a user sorting for the worst tasks wants the known-worst first, not the unknowns.
 * Ties are broken by task id so that pages are stable.
 */
export function sortTaskRows(rows: readonly TaskRow[], key: TaskSortKey, desc: boolean, rank?: ReadonlyMap<TaskRow, number>): TaskRow[] {
  const sign = desc ? -1 : 1;
  const value = (r: TaskRow): number | string | undefined => {
    switch (key) {
      case 'id':
        return r.id;
      case 'rollouts':
        return r.rollouts;
      case 'meanReward':
        return r.meanReward;
      case 'minReward':
        return r.minReward;
      case 'maxReward':
        return r.maxReward;
      case 'lastReward':
        return r.lastReward;
      case 'successRate':
        return r.successRate;
      case 'step':
        return r.steps.length ? r.steps[r.steps.length - 1] : undefined;
    }
  };
  // The value and the tie rank looked up once per row, not once per comparison.
  const keyed = rows.map((r) => ({ r, v: value(r), k: rank?.get(r) ?? 0 }));
  keyed.sort((a, b) => {
    if (a.v === undefined || b.v === undefined) {
      if (a.v !== b.v) return a.v === undefined ? 1 : -1;
    } else if (a.v !== b.v) {
      return sign * (typeof a.v === 'string' || typeof b.v === 'string' ? collator.compare(String(a.v), String(b.v)) : a.v < b.v ? -1 : 1);
    }
    // Ties by id: by its rank in the id order when given (one collator sort per change, not one
    // collator call per tie), else in plain code-unit order. Either is total, so pages are stable.
    if (rank) return a.k - b.k;
    return a.r.id < b.r.id ? -1 : a.r.id > b.r.id ? 1 : 0;
  });
  return keyed.map((k) => k.r);
}

/** Filters by task id text (case-insensitive substring) and cuts one page. */
export function pageTaskRows(sorted: readonly TaskRow[], q: Pick<TaskQuery, 'text' | 'offset' | 'limit'>): TaskPage {
  const needle = q.text.trim().toLowerCase();
  const matching = needle ? sorted.filter((r) => r.id.toLowerCase().includes(needle)) : sorted;
  const limit = Math.max(1, Math.floor(q.limit));
  // Past the end (the table shrank, a filter matched fewer): the last page.
  const lastPage = Math.max(0, Math.floor((matching.length - 1) / limit) * limit);
  const asked = Math.max(0, Math.floor(q.offset));
  const offset = asked >= matching.length ? lastPage : asked;
  return { total: matching.length, offset, rows: matching.slice(offset, offset + limit) };
}

export interface TaskPage {
  /** Rows matching the filter. */
  total: number;
  /** Where the page starts (the asked offset, moved back onto the last page when past the end). */
  offset: number;
  rows: TaskRow[];
}
