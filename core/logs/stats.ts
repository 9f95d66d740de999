// Whole-log statistics and per-timeline export rows, computed record by record in bounded memory.
import type { DecodedRecord, Timeline } from './decode';
import type { LogSession } from './session';
import type { RecordFacts } from './jobs';
import type { OpenedLogs } from './wholelog';
import type { LogIndex } from './index';
import { t } from '../l10n';

export interface StepStats {
  step: number;
  records: number;
  meanReward: number | null;
}

export interface LogStats {
  files: string[];
  bytes: number;
  records: number;
  tokenRecords: number;
  otherRecords: number;
  timelines: number;
  tokens: number;
  trainedTokens: number;
  corruptRecords: number;
  /** The first corrupt records (index, error), at most 50. */
  corrupt: { index: number; error: string }[];
  problems: { file: string; offset: number; length: number; reason: string }[];
  partialTail: boolean;
  steps: StepStats[];
}

/** What one readable record adds to the stats. */
interface StatsSample {
  kind?: string;
  timelines: number;
  tokens: number;
  trained: number;
  step?: number;
  reward?: number;
}

/** The counting both readers share: record kinds, tokens, corrupt records, the mean reward per step. */
class StatsBuilder {
  readonly out: LogStats;
  private readonly steps = new Map<number, { records: number; sum: number; n: number }>();

  constructor(indexes: readonly LogIndex[]) {
    this.out = {
      files: indexes.flatMap((ix) => ix.files.map((f) => f.path)),
      bytes: indexes.reduce((a, ix) => a + ix.bytes, 0),
      records: indexes.reduce((a, ix) => a + ix.count, 0),
      tokenRecords: 0,
      otherRecords: 0,
      timelines: 0,
      tokens: 0,
      trainedTokens: 0,
      corruptRecords: 0,
      corrupt: [],
      problems: indexes.flatMap((ix) => ix.problems.map((p) => ({ file: p.file, offset: p.offset, length: p.length, reason: p.reason }))),
      partialTail: indexes.some((ix) => ix.tailPartial),
      steps: [],
    };
  }

  corrupt(index: number, error: string): void {
    this.out.corruptRecords++;
    if (this.out.corrupt.length < 50) this.out.corrupt.push({ index, error });
  }

  add(r: StatsSample): void {
    const out = this.out;
    if (r.kind === 'tokens') out.tokenRecords++;
    else out.otherRecords++;
    out.timelines += r.timelines;
    out.tokens += r.tokens;
    out.trainedTokens += r.trained;
    if (r.step === undefined) return;
    const st = this.steps.get(r.step) ?? { records: 0, sum: 0, n: 0 };
    st.records++;
    if (r.reward !== undefined) {
      st.sum += r.reward;
      st.n++;
    }
    this.steps.set(r.step, st);
  }

  finish(): LogStats {
    this.out.steps = [...this.steps.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([step, v]) => ({ step, records: v.records, meanReward: v.n ? v.sum / v.n : null }));
    return this.out;
  }
}

/** Stats of opened logs from the facts of every record (wholelog.ts collectFacts). */
export function statsFromFacts(opened: OpenedLogs, facts: RecordFacts[][]): LogStats {
  const b = new StatsBuilder(opened.indexes);
  let i = 0;
  for (const list of facts) {
    for (const f of list) {
      if (f.error !== undefined) b.corrupt(i, f.error);
      else b.add(f);
      i++;
    }
  }
  return b.finish();
}

/** The reference: stats by decoding every record in full (tests check statsFromFacts against it). */
export async function computeStats(
  s: LogSession,
  opts: { signal?: AbortSignal; progress?: (done: number, total: number) => void } = {},
): Promise<LogStats> {
  const b = new StatsBuilder([s.index]);
  for (let i = 0; i < s.count; i++) {
    if (opts.signal?.aborted) throw new Error('cancelled');
    const r = await s.record(i);
    if (!r || !r.ok) b.corrupt(i, r ? r.error : 'unreadable');
    else {
      const rec = r.record;
      let tokens = 0;
      let trained = 0;
      for (const t of rec.timelines) {
        tokens += t.text.length;
        for (const m of t.mask) if (m === 1) trained++;
      }
      b.add({ kind: rec.kind, timelines: rec.timelines.length, tokens, trained, step: rec.step, reward: rec.reward });
    }
    if (opts.progress && (i % 64 === 0 || i === s.count - 1)) opts.progress(i + 1, s.count);
  }
  return b.finish();
}

/** One row per timeline, for pandas (`pd.read_json(path, lines=True)`). */
export interface ExportRow {
  record: number;
  task: string;
  step: number | null;
  reward: number | null;
  outcome: string;
  timeline: number;
  advantage: number | null;
  raw_reward: number | null;
  step_reward: number | null;
  len_prompt: number | null;
  len_response: number | null;
  tokens: string[];
  ids: (number | string | null)[];
  logprobs: (number | null)[];
  mask: number[];
}

export function exportRow(index: number, rec: DecodedRecord, t: Timeline): ExportRow {
  return {
    record: index,
    task: t.taskId,
    step: rec.step ?? null,
    reward: rec.reward ?? t.rawReward ?? null,
    outcome: t.outcome,
    timeline: t.index,
    advantage: t.advantage ?? null,
    raw_reward: t.rawReward ?? null,
    step_reward: t.stepReward ?? null,
    len_prompt: t.lenPrompt ?? null,
    len_response: t.lenResponse ?? null,
    tokens: t.text,
    ids: t.ids,
    logprobs: t.logprobs,
    mask: t.mask,
  };
}

export function formatStats(st: LogStats): string {
  const lines: string[] = [];
  const n = (x: number) => x.toLocaleString('en-US');
  // Labels padded to one column in terminal cells (a CJK character takes two).
  const cells = (s: string) => [...s].reduce((w, ch) => w + (/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/.test(ch) ? 2 : 1), 0);
  const rows: [string, string][] = [
    [t('files:'), st.files.join(', ')],
    [t('bytes:'), n(st.bytes)],
    [t('records:'), t('{0} ({1} with tokens, {2} other)', n(st.records), n(st.tokenRecords), n(st.otherRecords))],
    [t('timelines:'), n(st.timelines)],
    [
      t('tokens:'),
      st.tokens
        ? t('{0} ({1} trained, {2}%)', n(st.tokens), n(st.trainedTokens), ((st.trainedTokens / st.tokens) * 100).toFixed(1))
        : t('{0} ({1} trained)', n(st.tokens), n(st.trainedTokens)),
    ],
    [
      t('corrupt records:'),
      st.partialTail ? t('{0} (the last record is incomplete: file still being written?)', n(st.corruptRecords)) : n(st.corruptRecords),
    ],
  ];
  const width = Math.max(...rows.map(([l]) => cells(l))) + 1;
  for (const [label, value] of rows) lines.push(`${label}${' '.repeat(width - cells(label))}${value}`);
  for (const c of st.corrupt.slice(0, 10)) lines.push(`  #${c.index}: ${c.error}`);
  for (const p of st.problems) lines.push(`  ${p.file} @${p.offset} (+${p.length}): ${p.reason}`);
  if (st.steps.length) {
    lines.push('');
    lines.push(t('step  records  mean reward'));
    for (const s of st.steps)
      lines.push(
        `${String(s.step).padStart(4)}  ${String(s.records).padStart(7)}  ${s.meanReward === null ? '-' : s.meanReward.toFixed(4)}`,
      );
  }
  return lines.join('\n') + '\n';
}
