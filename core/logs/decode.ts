// Turns the bytes of one record into what the viewer, the CLI and search need: a cheap summary
// from the first bytes of the payload, or the full record with its token timelines.
import { isUtf8 } from 'node:buffer';
import { decodePayload, parseHeaderLine, parseNestedKey, parseRecordTitle, type HeaderLine, type Payload } from './record';
import { maskFromColor, type MaskValue } from './color';
import { keyValueRows, readRichTable } from './table';
import { inflatePrefix } from './inflate';

import type { RecordData, RecordKind, TimelineData } from '../protocol/tokenlog';
export type { RecordKind };

/** What the record list shows before (or without) a full decode. */
export interface RecordSummary {
  title?: string;
  step?: number;
  taskId?: string;
  reward?: number;
  outcome?: string;
  /** Set when the prefix already shows the record cannot decode. */
  error?: string;
}

export type Timeline = TimelineData;
export type DecodedRecord = RecordData;

export type RecordResult = { ok: true; record: DecodedRecord } | { ok: false; error: string; time?: string };

const NL = 10;

function splitHeader(bytes: Buffer): { header: string; payloadStart: number } {
  const e = bytes.indexOf(NL);
  const end = e < 0 ? bytes.length : e;
  return { header: bytes.toString('utf8', 0, Math.min(end, 4096)), payloadStart: e < 0 ? bytes.length : e + 1 };
}

/** Trims trailing whitespace bytes (CR/LF/space) of the payload region. */
function trimEnd(bytes: Buffer, start: number): number {
  let end = bytes.length;
  while (end > start && (bytes[end - 1] === 10 || bytes[end - 1] === 13 || bytes[end - 1] === 32 || bytes[end - 1] === 9)) end--;
  return end;
}

const HEADER_KEY_RE = /^\s*\{\s*"header"\s*:\s*("(?:[^"\\]|\\.)*")/;
const NESTED_KEY_RE = /"nested_json"\s*:\s*\{\s*("(?:[^"\\]|\\.)*")/;

function jsonString(quoted: string | undefined): string | undefined {
  if (quoted === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(quoted);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A summary from the first bytes of a record (header line + the start of its payload): for
 * compressed payloads only the start of the zlib stream is inflated, enough for the record title.
 */
export function summarizePrefix(bytes: Buffer): RecordSummary {
  const { payloadStart } = splitHeader(bytes);
  let p = payloadStart;
  while (p < bytes.length && (bytes[p] === 10 || bytes[p] === 13 || bytes[p] === 32)) p++;
  if (p >= bytes.length) return { error: 'empty payload' };
  let text: string;
  if (bytes.toString('latin1', p, p + 7) === 'base64:') {
    let end = bytes.indexOf(NL, p);
    if (end < 0) end = bytes.length;
    let b64 = bytes.toString('latin1', p + 7, end).replace(/\s+$/, '');
    b64 = b64.slice(0, b64.length - (b64.length % 4));
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return { error: 'invalid base64' };
    try {
      text = inflatePrefix(Buffer.from(b64, 'base64'), 16_384).toString('utf8');
    } catch (err) {
      return { error: `invalid zlib data (${err instanceof Error ? err.message : String(err)})` };
    }
  } else {
    text = bytes.toString('utf8', p);
  }
  if (text.length > 16_384) text = text.slice(0, 16_384);
  const out: RecordSummary = {};
  const title = jsonString(HEADER_KEY_RE.exec(text)?.[1]);
  if (title !== undefined) {
    out.title = title;
    Object.assign(out, parseRecordTitle(title));
  } else if (!/^\s*\{/.test(text)) {
    return { error: 'payload is not JSON' };
  }
  const key = jsonString(NESTED_KEY_RE.exec(text)?.[1]);
  if (key !== undefined) {
    const k = parseNestedKey(key, { taskId: out.taskId });
    if (k) out.outcome = k.outcome;
  }
  return out;
}

export function num(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

const ANSI_RE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** Key/value rows of the rich table in `content` (print_dict), wrapped cells joined: see ./table.ts. */
export function parseTableRows(content: string): [string, string][] {
  return keyValueRows(readRichTable(content));
}

/** Task, outcome and index of a timeline from its key and the item's own fields (shared with the scanner). */
export function timelineIdentity(
  key: string,
  outcomeField: unknown,
  taskIdField: unknown,
  fallbackTask: string | undefined,
): { taskId: string; outcome: string; index: number } {
  const nk = parseNestedKey(key, { outcome: typeof outcomeField === 'string' ? outcomeField : undefined, taskId: fallbackTask });
  return {
    taskId: nk?.taskId ?? (typeof taskIdField === 'string' ? taskIdField : (fallbackTask ?? key)),
    outcome: typeof outcomeField === 'string' ? outcomeField : (nk?.outcome ?? ''),
    index: nk?.index ?? 0,
  };
}

function parseTimeline(key: string, item: Record<string, unknown>, fallbackTask: string | undefined): Timeline {
  const warnings: string[] = [];
  const content = (item.content && typeof item.content === 'object' && !Array.isArray(item.content) ? item.content : {}) as Record<
    string,
    unknown
  >;
  const arr = (name: string): unknown[] | undefined => {
    const v = content[name];
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      warnings.push(`content.${name} is not an array`);
      return undefined;
    }
    return v;
  };
  const textA = arr('text') ?? [];
  const titleA = arr('title');
  const countA = arr('count');
  const colorA = arr('color');
  const n = textA.length;
  const lens = [
    ['title', titleA],
    ['count', countA],
    ['color', colorA],
  ] as const;
  const bad = lens.filter(([, a]) => a !== undefined && a.length !== n).map(([name, a]) => `${name} ${a!.length}`);
  if (bad.length) warnings.push(`token arrays differ in length (text ${n}, ${bad.join(', ')}); missing entries shown as unknown`);
  // ASTune's basic tracker logged the token text again as the title; AgentJet logs logprobs.
  const titles: Timeline['titles'] =
    titleA === undefined ? 'none' : n > 0 && titleA.length === n && titleA.every((v, i) => v === textA[i]) ? 'text' : 'logprob';
  const text = new Array<string>(n);
  const ids = new Array<number | string | null>(n);
  const logprobs = new Array<number | null>(n);
  const mask = new Array<MaskValue>(n);
  for (let i = 0; i < n; i++) {
    const t = textA[i];
    text[i] = typeof t === 'string' ? t : str(t);
    const c = countA?.[i];
    ids[i] = typeof c === 'number' ? c : typeof c === 'string' ? (/^-?\d+$/.test(c) ? Number(c) : c) : null;
    logprobs[i] = titles === 'logprob' ? (num(titleA?.[i]) ?? null) : null;
    mask[i] = maskFromColor(colorA?.[i]);
  }
  const fields: Record<string, string> = {};
  const known = new Set([
    'content',
    'outcome',
    'len_prompt_ids',
    'len_response_ids',
    'len_input_ids',
    'raw_reward',
    'step_reward',
    'step_advantage',
    'reward',
    'advantage',
  ]);
  for (const [k, v] of Object.entries(item)) {
    if (!known.has(k) && (v === null || typeof v !== 'object')) fields[k] = str(v);
  }
  return {
    key,
    ...timelineIdentity(key, item.outcome, item.task_id, fallbackTask),
    lenPrompt: num(item.len_prompt_ids),
    lenResponse: num(item.len_response_ids),
    lenInput: num(item.len_input_ids),
    rawReward: num(item.raw_reward) ?? num(item.reward),
    stepReward: num(item.step_reward),
    advantage: num(item.step_advantage) ?? num(item.advantage),
    fields,
    text,
    ids,
    logprobs,
    mask,
    warnings,
    titles,
  };
}

/** Builds the structured record from a decoded payload object. */
export function structure(
  header: { time: string; level: string; source: string },
  payload: Payload,
  extraWarnings: string[] = [],
): DecodedRecord {
  const title = str(payload.header);
  const t = parseRecordTitle(title);
  const warnings = [...extraWarnings];
  const timelines: Timeline[] = [];
  const nested = payload.nested_json;
  if (nested !== undefined && nested !== null) {
    if (typeof nested !== 'object' || Array.isArray(nested)) warnings.push('nested_json is not an object');
    else {
      for (const [key, item] of Object.entries(nested as Record<string, unknown>)) {
        if (item === null || typeof item !== 'object' || Array.isArray(item)) {
          warnings.push(`timeline ${key} is not an object`);
          continue;
        }
        const tl = parseTimeline(key, item as Record<string, unknown>, t.taskId);
        for (const w of tl.warnings) warnings.push(`${key}: ${w}`);
        timelines.push(tl);
      }
    }
  }
  const content = str(payload.content).replace(ANSI_RE, '');
  const grid = timelines.length ? undefined : readRichTable(content);
  const table = keyValueRows(grid);
  const kind: RecordKind = timelines.length ? 'tokens' : grid ? 'table' : 'text';
  const outcome = timelines[0]?.outcome || undefined;
  return {
    ...header,
    title,
    step: t.step,
    taskId: t.taskId ?? timelines[0]?.taskId,
    reward: t.reward ?? timelines[0]?.rawReward,
    outcome,
    kind,
    timelines,
    table,
    ...(grid && (grid.header || table.length === 0) ? { grid } : {}),
    content,
    attach: str(payload.attach).replace(ANSI_RE, ''),
    warnings,
  };
}

type PayloadBytesResult =
  { ok: true; header: HeaderLine; payload: Payload; warnings: string[] } | { ok: false; error: string; time?: string };

/** Header line + decoded payload object of a record's bytes; never throws. */
export function decodePayloadBytes(bytes: Buffer): PayloadBytesResult {
  try {
    const { header, payloadStart } = splitHeader(bytes);
    const h = parseHeaderLine(header);
    if (!h) return { ok: false, error: 'not a record header line' };
    const end = trimEnd(bytes, payloadStart);
    let p = payloadStart;
    while (p < end && (bytes[p] === 10 || bytes[p] === 13 || bytes[p] === 32)) p++;
    if (p >= end) {
      // A header line alone: loguru text record (a message, no JSON payload).
      if (h.message.trim()) return { ok: true, header: h, payload: { header: h.message, content: h.message }, warnings: [] };
      return { ok: false, error: 'record has no payload', time: h.time };
    }
    const region = bytes.subarray(p, end);
    const warnings: string[] = [];
    let text: string;
    if (region.length >= 7 && region.toString('latin1', 0, 7) === 'base64:') {
      text = region.toString('latin1').replace(/\s+/g, '');
    } else {
      if (!isUtf8(region)) warnings.push('payload is not valid UTF-8; bad bytes shown as \uFFFD');
      text = region.toString('utf8');
    }
    const r = decodePayload(text);
    if (!r.ok) return { ok: false, error: r.error, time: h.time };
    if (r.invalidUtf8) warnings.push('payload is not valid UTF-8; bad bytes shown as \uFFFD');
    return { ok: true, header: h, payload: r.payload, warnings };
  } catch (err) {
    return { ok: false, error: `cannot decode record: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Decodes a whole record (header line + payload bytes); never throws. */
export function decodeRecord(bytes: Buffer): RecordResult {
  const p = decodePayloadBytes(bytes);
  if (!p.ok) return p;
  try {
    return { ok: true, record: structure(p.header, p.payload, p.warnings) };
  } catch (err) {
    return { ok: false, error: `cannot decode record: ${err instanceof Error ? err.message : String(err)}`, time: p.header.time };
  }
}

/** Token counts of a decoded record, for the list. */
export function countTokens(r: DecodedRecord): { timelines: number; tokens: number; trained: number } {
  let tokens = 0,
    trained = 0;
  for (const t of r.timelines) {
    tokens += t.text.length;
    for (const m of t.mask) if (m === 1) trained++;
  }
  return { timelines: r.timelines.length, tokens, trained };
}
