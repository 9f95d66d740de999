// Pure aggregation for the run dashboard: rollout records grouped by training step, evaluation
// tables, exception records. Fed incrementally so a live run costs only what it appended.
import { parseRecordTitle, type Payload } from '../logs/record';
import { num } from '../logs/decode';
import { keyValueRows, oneLine, readRichTable } from '../logs/table';
import { StepCurves } from '../logs/steps';
import type { DecodedRecord } from './records';
import { isHarmlessException } from '../agentjet/status';
import type { EvalPoint, ExceptionItem, StepPoint } from './types';

export type { EvalPoint, ExceptionItem, StepPoint } from './types';

/** Rollout records grouped by training step (core/logs/steps.ts), fed one decoded record at a time. */
export class StepAggregator {
  private readonly curves = new StepCurves();
  /** Records without a `[step]` header or with an undecodable payload. */
  skipped = 0;

  add(rec: DecodedRecord): void {
    const header = rec.payload?.header;
    if (typeof header !== 'string') {
      this.skipped++;
      return;
    }
    const t = parseRecordTitle(header);
    if (t.step === undefined) {
      this.skipped++;
      return;
    }
    this.curves.add(t.step, { reward: t.reward, responseLength: meanResponseLength(rec.payload!), time: rec.header.time });
  }

  points(): StepPoint[] {
    return this.curves.points();
  }

  clear(): void {
    this.curves.clear();
    this.skipped = 0;
  }
}

function meanResponseLength(p: Payload): number | undefined {
  const nested = p.nested_json;
  if (!nested || typeof nested !== 'object') return undefined;
  let sum = 0,
    n = 0;
  for (const item of Object.values(nested as Record<string, unknown>)) {
    if (!item || typeof item !== 'object') continue;
    // AgentJet writes len(response_ids), always a number: a missing, null or non-numeric length is
    // unknown and left out of the mean (not counted as 0), the same rule as the token-log engine's.
    const v = num((item as Record<string, unknown>).len_response_ids);
    if (v !== undefined) {
      sum += v;
      n++;
    }
  }
  return n ? sum / n : undefined;
}

/**
 * Key/value rows of a rich table as beast-logger's print_dict writes it (panels, wrapped and folded
 * cells): the same reader as the token log viewer's (core/logs/table.ts). Keys are one line (metric
 * names); values keep their line breaks.
 */
export function parseRichTable(content: string): [string, string][] {
  return keyValueRows(readRichTable(content)).map(([k, v]) => [oneLine(k), v]);
}

export function numericMetrics(rows: readonly [string, string][]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of rows) {
    if (!/^[-+]?(?:\d|\.\d)/.test(v)) continue;
    const n = Number(v.replace(/%$/, ''));
    if (Number.isFinite(n)) out[k] = n;
  }
  return out;
}

export function evalPoint(rec: DecodedRecord, index: number): EvalPoint | undefined {
  const content = rec.payload?.content;
  if (typeof content !== 'string') return undefined;
  const rows = parseRichTable(content);
  if (!rows.length) return undefined;
  return {
    index,
    time: rec.header.time,
    header: typeof rec.payload?.header === 'string' ? rec.payload.header : '',
    metrics: numericMetrics(rows),
    rows,
  };
}

export function exceptionItem(rec: DecodedRecord, file: string): ExceptionItem {
  const title = typeof rec.payload?.header === 'string' ? rec.payload.header : rec.header.message || rec.error || 'exception';
  const content = rec.payload?.content;
  let detail = '';
  if (typeof content === 'string') {
    const rows = parseRichTable(content);
    detail = rows.length ? rows.map(([k, v]) => `${k}: ${v}`).join('\n') : content.trim();
  }
  const item: ExceptionItem = { time: rec.header.time, title, detail: detail.slice(0, 4000), source: 'exception', file };
  // One classification for the tree, the CLI and the dashboard.
  if (isHarmlessException(typeof rec.payload?.header === 'string' ? rec.payload.header : undefined)) item.harmless = true;
  return item;
}
