// Token-level rollout logs in the on-disk format AgentJet's context tracker writes through
// beast-logger (upstream beast_logger/print_basic.py, _log_final_exe_nested): every record is a
// loguru file line `<time> | INFO     | <module>:<function>:<line> - ` (the message starts with a
// newline) followed by the payload line, `base64:` + base64(zlib(JSON)) or, uncompressed, the JSON
// itself. The JSON is written the way Python's json.dumps(..., ensure_ascii=False) writes it
// (", " and ": " separators). Deterministic for a given seed; used by test fixtures and benches.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { deflateSync } from 'node:zlib';

/** AgentJet's colours: trained tokens (loss_mask 1) and context tokens (loss_mask 0). */
const TRAINED = '#09ABCF';
const CONTEXT = '#D98510';
const ROLLOUT_SOURCE = 'ajet.context_tracker.multiagent_tracking:generate_log:556';

/** mulberry32: a tiny PRNG whose output never changes between Node versions. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
/** Exponential draw, mean 1/rate. */
const expo = (r: () => number, rate: number) => -Math.log(1 - r()) / rate;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** loguru's `YYYY-MM-DD HH:mm:ss.SSS`, from the UTC fields (fixtures do not depend on the time zone). */
export function logTime(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}
/** `YYYY_MM_DD_HH_MM`, AgentJet's session folder name. */
export function sessionName(d: Date): string {
  return `${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}`;
}

/** JSON as Python's json.dumps(ensure_ascii=False) spells it: ", " between items, ": " after keys. */
export function pyJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NaN';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) {
    // Fast path for token arrays: in JSON text of an array of strings, `","` only ever separates
    // two elements (a quote inside a string is always escaped), so one native stringify will do.
    if (v.every((x) => typeof x === 'string')) return JSON.stringify(v).replaceAll('","', '", "');
    return '[' + v.map(pyJson).join(', ') + ']';
  }
  return (
    '{' +
    Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
      .join(', ') +
    '}'
  );
}

/** One loguru record of a `*.json.log` file: header line, then the payload line. */
export function frame(when: Date, payload: unknown, opts: { plain?: boolean; source?: string; level?: string } = {}): string {
  const head = `${logTime(when)} | ${(opts.level ?? 'INFO').padEnd(8)} | ${opts.source ?? ROLLOUT_SOURCE} - \n`;
  const body = typeof payload === 'string' ? payload : pyJson(payload);
  return head + (opts.plain ? body : 'base64:' + deflateSync(Buffer.from(body, 'utf8')).toString('base64')) + '\n';
}

/** AgentJet's viewer colour: the base colour's HLS saturation scaled by x0.333 (logprob <= -7) .. x1 (logprob 0). */
export function shadeByLogprob(base: string, logprob: number): string {
  const f = logprob <= -7 ? 0.333 : logprob >= 0 ? 1 : 0.333 + ((logprob + 7) / 7) * (1 - 0.333);
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(base.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b),
    min = Math.min(r, g, b),
    l = (max + min) / 2,
    d = max - min;
  if (d === 0) return base.toLowerCase();
  const s = l <= 0.5 ? d / (max + min) : d / (2 - max - min);
  // Same operation order as Python's colorsys, so channels truncate to the same bytes.
  const rc = (max - r) / d,
    gc = (max - g) / d,
    bc = (max - b) / d;
  let h = r === max ? bc - gc : g === max ? 2 + rc - bc : 4 + gc - rc;
  const pyMod1 = (x: number) => {
    const m = x % 1;
    return m < 0 ? m + 1 : m;
  };
  h = pyMod1(h / 6);
  const s2 = s * f;
  const m2 = l <= 0.5 ? l * (1 + s2) : l + s2 - l * s2,
    m1 = 2 * l - m2;
  const v = (hue: number) => {
    hue = pyMod1(hue);
    if (hue < 1 / 6) return m1 + (m2 - m1) * hue * 6;
    if (hue < 0.5) return m2;
    if (hue < 2 / 3) return m1 + (m2 - m1) * (2 / 3 - hue) * 6;
    return m1;
  };
  return (
    '#' +
    [v(h + 1 / 3), v(h), v(h - 1 / 3)]
      .map((x) =>
        Math.floor(x * 255)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')
  );
}
const shadeCache = new Map<string, string>();
/** shadeByLogprob to 0.01 of logprob, cached: the generators' colours. */
export function shade(base: string, logprob: number): string {
  // Colours have 8-bit channels: a 0.01 logprob step never changes one, so cache by it (fast for GB files).
  const key = `${base}${Math.round(logprob * 100)}`;
  let c = shadeCache.get(key);
  if (c === undefined) {
    c = shadeByLogprob(base, Math.round(logprob * 100) / 100);
    shadeCache.set(key, c);
  }
  return c;
}

const WORDS = (
  'the of to and a in is it you that was for on are with as be at one have this from or had by word but what some we can ' +
  'out other were all there when up use your how said an each which do their time if will way about many then them would like so ' +
  'these long make thing see two has look more day could go come did number no most people over know water than call first who may ' +
  'down side now find answer tool python result compute total step reward boxed final print import math def return value'
).split(' ');
const SPECIAL = ['<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<think>', '</think>'];
const UNICODE = ['你好', '世界', 'é', 'ß', '😀', '→', '∑', '\t', '  ', '\n\n'];
const PUNCT = [',', '.', '\n', ':', '(', ')', '=', '+', '0', '1', '2', '42'];
/** Tokens a viewer must show literally: HTML/JS-looking text, an entity, bidi override, NUL, BEL, an ANSI escape. */
export const HOSTILE_TOKENS = [
  '<script>alert(1)</script>',
  '</span>',
  '&amp;',
  '<img src=x onerror=alert(1)>',
  '\u202e',
  '\u0000',
  '\u0007',
  '\u001b[31m',
];

function token(r: () => number, hostile: boolean): string {
  const x = r();
  if (hostile && x < 0.01) return pick(r, HOSTILE_TOKENS);
  if (x < 0.03) return pick(r, UNICODE);
  if (x < 0.05) return pick(r, SPECIAL);
  if (x < 0.15) return pick(r, PUNCT);
  return r() < 0.8 ? ' ' + pick(r, WORDS) : pick(r, WORDS);
}

export interface TimelineContent {
  text: string[];
  title: string[];
  count: string[];
  color: string[];
}

/** A prompt (context, no logprobs) then alternating model turns (trained) and tool output (context). */
function timeline(r: () => number, n: number, hostile: boolean, forced: string[]): { prompt: number; content: TimelineContent } {
  const prompt = Math.max(8, Math.floor(n * (0.2 + r() * 0.3)));
  const content: TimelineContent = { text: [], title: [], count: [], color: [] };
  let trained = false,
    left = prompt,
    i = 0;
  while (i < n) {
    if (i >= prompt && left === 0) {
      trained = !trained;
      left = trained ? int(r, 20, 400) : int(r, 10, 200);
    }
    const k = Math.min(left, n - i);
    for (let j = 0; j < k; j++, i++) {
      const t = forced.length > 0 && i >= prompt && r() < 0.2 ? forced.shift()! : token(r, hostile);
      const lp = i >= prompt ? -expo(r, 1.2) : 0;
      content.text.push(t);
      content.count.push(String(int(r, 0, 151_642)));
      content.title.push(i >= prompt ? lp.toFixed(4) : 'N/A');
      content.color.push(shade(trained ? TRAINED : CONTEXT, lp));
    }
    left -= k;
  }
  return { prompt, content };
}

export interface RolloutOptions {
  /** Records to write (ignored when targetBytes is set). */
  entries?: number;
  /** Keep writing until the file reaches this many bytes. */
  targetBytes?: number;
  /** Mean tokens per timeline. */
  tokens?: number;
  /** Timelines (samples) per record. */
  timelines?: number;
  tasksPerStep?: number;
  seed?: number;
  /** Uncompressed JSON payloads. */
  plain?: boolean;
  /** Mix HTML/JS-looking and control-character tokens in (every one of HOSTILE_TOKENS at least once). */
  hostile?: boolean;
  start?: Date;
  /** The rewards to draw from (default: 0, 0, 0.5, 1, 1). */
  rewards?: readonly number[];
}

/** The payloads of a rollout log, one per record, with their times. */
export function* rolloutRecords(o: RolloutOptions = {}): Generator<{ when: Date; payload: Record<string, unknown> }> {
  const r = prng(o.seed ?? 0);
  const tokens = o.tokens ?? 2000,
    timelines = o.timelines ?? 2,
    perStep = o.tasksPerStep ?? 8;
  let when = o.start ?? new Date(Date.UTC(2026, 0, 5, 10, 0, 0));
  const forced = o.hostile ? [...HOSTILE_TOKENS] : [];
  for (let n = 0; ; n++) {
    const step = Math.floor(n / perStep);
    const taskId = Math.floor(r() * 0x10000000)
      .toString(16)
      .padStart(7, '0');
    const reward = pick(r, o.rewards ?? [0, 0, 0.5, 1, 1]);
    const outcome = reward.toFixed(1);
    const nested: Record<string, unknown> = {};
    for (let k = 0; k < timelines; k++) {
      const len = Math.max(16, Math.floor(tokens * (0.5 + r())));
      const { prompt, content } = timeline(r, len, o.hostile ?? false, forced);
      const adv = (reward - 0.5 + (r() - 0.5) * 0.2).toFixed(3);
      nested[`${taskId}.${outcome}.${k}`] = {
        item_id: 'item',
        outcome,
        len_prompt_ids: prompt,
        len_response_ids: len - prompt,
        len_input_ids: len,
        raw_reward: reward.toFixed(3),
        step_reward: reward.toFixed(3),
        step_advantage: adv,
        step_advantage_simple: adv,
        content,
      };
    }
    yield {
      when,
      payload: {
        header: `[${step}] Task ${taskId} (Reward ${reward.toFixed(3)})`,
        color: '#337711',
        content: 'This is the main content of the nested JSON',
        attach: 'copy this',
        nested: true,
        nested_json: nested,
      },
    };
    when = new Date(when.getTime() + int(r, 50, 4000));
  }
}

/**
 * Writes a rollout log, streaming to disk in ~1 MB writes (GB-sized bench inputs never sit in
 * memory). Returns the records and bytes written.
 */
export function writeRolloutLog(path: string, o: RolloutOptions = {}, flags: 'w' | 'a' = 'w'): { records: number; bytes: number } {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, flags);
  const limit = o.targetBytes ?? 0,
    entries = o.entries ?? 20;
  let bytes = 0,
    records = 0,
    pending: string[] = [],
    pendingLen = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const buf = Buffer.from(pending.join(''), 'utf8');
    writeSync(fd, buf);
    bytes += buf.length;
    pending = [];
    pendingLen = 0;
  };
  try {
    for (const { when, payload } of rolloutRecords(o)) {
      if (limit ? bytes + pendingLen >= limit : records >= entries) break;
      const text = frame(when, payload, { plain: o.plain ?? false });
      pending.push(text);
      pendingLen += Buffer.byteLength(text);
      records++;
      if (pendingLen >= 1 << 20) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return { records, bytes };
}
