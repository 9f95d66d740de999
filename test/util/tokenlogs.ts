// Generated token logs for tests: AgentJet-shaped records with random, hostile content, written
// the ways real writers do (Python's json.dumps with and without ensure_ascii, JSON.stringify),
// plus unusual and broken records. Deterministic for a seed.
import { deflateSync } from 'node:zlib';

export class Rng {
  constructor(private s: number) {}
  next(): number {
    // mulberry32
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)]!;
  }
}

const PIECES = [
  'Hi',
  ' there',
  '\n',
  '"',
  '\\',
  'é',
  'É',
  'ß',
  '日本',
  '😀',
  '\t',
  '\u0001',
  '\b',
  '\f',
  '\r',
  '/',
  ' boxed',
  ' Final',
  'ANSWER',
  '<|im_end|>',
  '-0.5',
  ' 42',
  '\u2028',
  'İ',
  'K',
];

/** Python json.dumps(ensure_ascii=True): non-ASCII as \uXXXX (surrogate pairs for astral). */
function asciiJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
/** Python json.dumps(ensure_ascii=False) with its default ", " and ": " separators. */
function pyJson(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(pyJson).join(', ') + ']';
  if (v && typeof v === 'object')
    return (
      '{' +
      Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => JSON.stringify(k) + ': ' + pyJson(x))
        .join(', ') +
      '}'
    );
  return JSON.stringify(v);
}

export function header(t = '2026-01-05 10:00:00.000'): string {
  return `${t} | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - \n`;
}

/**
 * One rollout record as AgentJet's multiagent tracker writes it (beast-logger's nested JSON,
 * zlib, base64): one timeline with these token texts, of which the first `prompt` are context
 * (no logprob, the context colour) and the rest trained.
 */
export function agentjetRecord(
  step: number,
  task: string,
  words: string[],
  opts: { prompt?: number; logprob?: string; advantage?: string; firstId?: number } = {},
): string {
  const n = words.length;
  const prompt = opts.prompt ?? 2;
  const payload = {
    header: `[${step}] Task ${task} (Reward 1.000)`,
    color: '#337711',
    content: '',
    attach: '',
    nested: true,
    nested_json: {
      [`${task}.1.0.0`]: {
        outcome: '1.0',
        len_prompt_ids: prompt,
        len_response_ids: n - prompt,
        len_input_ids: n,
        raw_reward: '1.000',
        step_reward: '1.000',
        step_advantage: opts.advantage ?? '0.250',
        content: {
          text: words,
          title: words.map((_, i) => (i < prompt ? 'N/A' : (opts.logprob ?? '-0.1000'))),
          count: words.map((_, i) => String((opts.firstId ?? 1000) + i)),
          color: words.map((_, i) => (i < prompt ? '#d98510' : '#09abcf')),
        },
      },
    },
  };
  return header() + 'base64:' + deflateSync(Buffer.from(JSON.stringify(payload))).toString('base64') + '\n';
}

function tokenPayload(r: Rng, i: number): Record<string, unknown> {
  const task = r.pick(['', 'gsm8k.test.17', 'write a poem', 't' + i, 'é"\\x', '12']);
  const outcome = r.pick(['0.0', '0.5', '1.0', 'nan']);
  const nested: Record<string, unknown> = {};
  const nt = 1 + r.int(3);
  for (let k = 0; k < nt; k++) {
    const n = r.int(12);
    const text = Array.from({ length: n }, () => Array.from({ length: 1 + r.int(2) }, () => r.pick(PIECES)).join(''));
    const astune = r.int(8) === 0;
    const content: Record<string, unknown> = { text };
    const titleMode = r.int(10);
    if (astune) content.title = [...text];
    else if (titleMode === 0) content.title = text.map(() => r.next() * -5);
    else if (titleMode !== 1)
      content.title = text.map((_, j) =>
        j === 0
          ? 'N/A'
          : r.pick([
              '-0.2500',
              '-1.0000',
              '0.0000',
              '-0.0000',
              ' -1.5',
              '1e-3',
              'x',
              '-12.3456',
              '3.',
              '0.0000001',
              '-0.000001',
              '0.0000012',
              '123456789012345678',
              '00.5',
              '1.50',
              '-0',
              '5',
              '-7.0000',
              '0.1000',
            ]),
      );
    const countMode = r.int(10);
    if (countMode === 0) content.count = text.map(() => r.int(1000));
    else if (countMode !== 1)
      content.count = text.map(() =>
        r.pick([String(r.int(150000)), '007', '-0', 'abc', '12345678901234567890', '0', '-5', '0012', '-012', '123456789012345']),
      );
    if (r.int(10) !== 0)
      content.color = text.map(() =>
        r.pick(['#09ABCF', '#d98510', '#09abcf', '#4fa9bd', '#c0914f', '#808080', '#abc', 'red', ' #09ABCF', '#0a0a0b']),
      );
    if (r.int(12) === 0 && content.color) (content.color as string[]).push('#09ABCF');
    const ordered = r.int(3) === 0 ? Object.fromEntries(Object.entries(content).reverse()) : content;
    nested[`${task}.${outcome}.${k}`] = {
      content: ordered,
      item_id: 'item',
      outcome,
      len_prompt_ids: r.int(5),
      len_response_ids: r.pick([3, '4', null]),
      raw_reward: r.pick(['1.000', '0.500', 'nan', 0.25]),
      step_reward: '0.500',
      step_advantage: r.pick(['0.125', '-1.000', undefined]),
      advantage: r.pick([1, undefined]),
      extra: { nested: [1, 2, '}'] },
    };
  }
  return {
    header: `[${r.pick([0, 3, 'NA'])}] Task ${task} (Reward ${r.pick(['1.000', '0.500', 'nan', '-0.250'])})`,
    color: '#337711',
    content: 'This is the main content',
    attach: r.pick(['copy this', null]),
    nested: true,
    nested_json: nested,
  };
}

/** One record's text (header line + payload line), random and sometimes broken. */
export function randomRecord(r: Rng, i: number): string {
  const kind = r.int(40);
  const h = header();
  if (kind === 0) return h + 'base64:!!notbase64\n';
  if (kind === 1) return h + 'base64:' + deflateSync(Buffer.from('{"header": "x", "nested_json": {')).toString('base64') + '\n';
  if (kind === 2)
    return h + JSON.stringify({ header: 'Eval', color: '#4422cc', content: '│ acc │ 0.5 │\n│ loss │ 1 │', attach: null }) + '\n';
  if (kind === 3) return h + JSON.stringify({ header: 'note', content: 'plain text' }) + '\n';
  if (kind === 4) return h.replace(' - \n', ' - just a message\n');
  const p = tokenPayload(r, i);
  let json: string;
  const style = r.int(6);
  if (style === 0) json = asciiJson(p);
  else if (style === 1) json = JSON.stringify(p);
  else json = pyJson(p);
  if (kind === 5) json = json.replace('"nested": true', '"nested": NaN');
  if (kind === 6) json = json.replace('"header"', '"header": "dup", "header"');
  if (kind === 7) json = json.replace(/\/|(?<=")x/, '\\/');
  if (kind === 8) json += ' junk';
  if (kind === 9) json = json.replace(/"content": \{/, '"content": {"text": 5, ');
  if (kind === 10) json = json.replace('"item_id"', '"outcome": "dup", "item_id"');
  const plain = kind === 11;
  return h + (plain ? json : 'base64:' + deflateSync(Buffer.from(json)).toString('base64')) + '\n';
}

export function randomLog(seed: number, records: number): string {
  const r = new Rng(seed);
  let s = '';
  for (let i = 0; i < records; i++) s += randomRecord(r, i);
  return s;
}
