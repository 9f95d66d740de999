// Whole-log statistics and per-timeline export rows, computed record by record in bounded memory.
import type { DecodedRecord, Timeline } from './decode';
import type { LogSession } from './session';
import type { RecordFacts } from './jobs';
import type { OpenedLogs } from './wholelog';
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

/** Stats of opened logs from the facts of every record (wholelog.ts collectFacts). */
export function statsFromFacts(opened: OpenedLogs, facts: RecordFacts[][]): LogStats {
  const out: LogStats = {
    files: opened.indexes.flatMap((ix) => ix.files.map((f) => f.path)),
    bytes: opened.indexes.reduce((a, ix) => a + ix.bytes, 0),
    records: opened.indexes.reduce((a, ix) => a + ix.count, 0),
    tokenRecords: 0,
    otherRecords: 0,
    timelines: 0,
    tokens: 0,
    trainedTokens: 0,
    corruptRecords: 0,
    corrupt: [],
    problems: opened.indexes.flatMap((ix) =>
      ix.problems.map((p) => ({ file: p.file, offset: p.offset, length: p.length, reason: p.reason })),
    ),
    partialTail: opened.indexes.some((ix) => ix.tailPartial),
    steps: [],
  };
  const steps = new Map<number, { records: number; sum: number; n: number }>();
  let i = 0;
  for (const list of facts) {
    for (const f of list) {
      if (f.error !== undefined) {
        out.corruptRecords++;
        if (out.corrupt.length < 50) out.corrupt.push({ index: i, error: f.error });
        i++;
        continue;
      }
      if (f.kind === 'tokens') out.tokenRecords++;
      else out.otherRecords++;
      out.timelines += f.timelines;
      out.tokens += f.tokens;
      out.trainedTokens += f.trained;
      if (f.step !== undefined) {
        const st = steps.get(f.step) ?? { records: 0, sum: 0, n: 0 };
        st.records++;
        if (f.reward !== undefined) {
          st.sum += f.reward;
          st.n++;
        }
        steps.set(f.step, st);
      }
      i++;
    }
  }
  out.steps = [...steps.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, v]) => ({ step, records: v.records, meanReward: v.n ? v.sum / v.n : null }));
  return out;
}

/** The reference: stats by decoding every record in full (tests check statsFromFacts against it). */
export async function computeStats(
  s: LogSession,
  opts: { signal?: AbortSignal; progress?: (done: number, total: number) => void } = {},
): Promise<LogStats> {
  const out: LogStats = {
    files: s.index.files.map((f) => f.path),
    bytes: s.index.bytes,
    records: s.count,
    tokenRecords: 0,
    otherRecords: 0,
    timelines: 0,
    tokens: 0,
    trainedTokens: 0,
    corruptRecords: 0,
    corrupt: [],
    problems: s.index.problems.map((p) => ({ file: p.file, offset: p.offset, length: p.length, reason: p.reason })),
    partialTail: s.index.tailPartial,
    steps: [],
  };
  const steps = new Map<number, { records: number; sum: number; n: number }>();
  for (let i = 0; i < s.count; i++) {
    if (opts.signal?.aborted) throw new Error('cancelled');
    const r = await s.record(i);
    if (!r || !r.ok) {
      out.corruptRecords++;
      if (out.corrupt.length < 50) out.corrupt.push({ index: i, error: r ? r.error : 'unreadable' });
      continue;
    }
    const rec = r.record;
    if (rec.kind === 'tokens') out.tokenRecords++;
    else out.otherRecords++;
    out.timelines += rec.timelines.length;
    for (const t of rec.timelines) {
      out.tokens += t.text.length;
      for (const m of t.mask) if (m === 1) out.trainedTokens++;
    }
    if (rec.step !== undefined) {
      const st = steps.get(rec.step) ?? { records: 0, sum: 0, n: 0 };
      st.records++;
      if (rec.reward !== undefined) {
        st.sum += rec.reward;
        st.n++;
      }
      steps.set(rec.step, st);
    }
    if (opts.progress && (i % 64 === 0 || i === s.count - 1)) opts.progress(i + 1, s.count);
  }
  out.steps = [...steps.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, v]) => ({ step, records: v.records, meanReward: v.n ? v.sum / v.n : null }));
  return out;
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
