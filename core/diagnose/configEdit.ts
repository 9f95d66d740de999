// A cause's config edit as a text edit of the config the run came from: the key's value replaced
// where the key is written, else the missing part of its path added under the deepest section the
// config has. `lower`/`raise` start from the written value, else from AgentJet's default
// (ajet/default_config/ajet_default.yaml, c68c154).
import { isMap, isScalar, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml';
import type { ConfigEdit } from './types';

/** AgentJet's defaults of the keys a fix may lower or raise. */
export const AGENTJET_DEFAULTS: Readonly<Record<string, number>> = {
  'ajet.rollout.gpu_memory_utilization': 0.85,
  'ajet.rollout.max_model_len': 18000,
  'ajet.rollout.max_env_worker': 64,
};

export interface ConfigTextEdit {
  /** Character offsets in the text: replace [start, end) with newText. */
  start: number;
  end: number;
  newText: string;
  /** The value written, as YAML. */
  value: string;
  /** 0-based line of the key (or of the section the key goes into). */
  line: number;
}

/** The next value of `edit` from the current one (undefined: nothing sensible). */
export function nextValue(edit: ConfigEdit, current: unknown): number | boolean | string | undefined {
  const v = edit.value;
  if (v !== 'lower' && v !== 'raise') return v;
  const n = typeof current === 'number' ? current : AGENTJET_DEFAULTS[edit.key];
  if (n === undefined || !Number.isFinite(n)) return undefined;
  if (n > 0 && n <= 1) {
    const next = v === 'lower' ? Math.max(0.1, n - 0.1) : Math.min(0.95, n + 0.05);
    return Math.round(next * 100) / 100;
  }
  return v === 'lower' ? Math.max(1, Math.floor(n / 2)) : n * 2;
}

const lineOf = (text: string, offset: number) => {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
}

/** The text edit that applies `edit` to a config's text; undefined when the config cannot take it (not YAML, a flow map). */
export function configTextEdit(text: string, edit: ConfigEdit): ConfigTextEdit | undefined {
  let doc;
  try {
    doc = parseDocument(text, { keepSourceTokens: false });
  } catch {
    return undefined;
  }
  if (doc.errors.length || !isMap(doc.contents)) return undefined;
  const path = edit.key.split('.');
  let map: YAMLMap = doc.contents;
  let i = 0;
  for (; i < path.length - 1; i++) {
    const p = pairOf(map, path[i]!);
    if (!p || !isMap(p.value)) break;
    map = p.value;
  }
  if (i === path.length - 1) {
    const p = pairOf(map, path[i]!);
    if (p && isScalar(p.value) && p.value.range) {
      const value = nextValue(edit, p.value.value);
      if (value === undefined) return undefined;
      const [start, end] = p.value.range;
      return { start, end, newText: String(value), value: String(value), line: lineOf(text, start) };
    }
    if (p) return undefined; // a mapping or list where a value should be: leave it to the user
  }
  // Add the rest of the path under `map`, indented as its first key (a flow or empty map: refuse).
  const value = nextValue(edit, undefined);
  if (value === undefined) return undefined;
  const first = map.items[0]?.key as Node | undefined;
  if (map.flow || !first?.range) return undefined;
  const keyStart = first.range[0];
  const indent = keyStart - (text.lastIndexOf('\n', keyStart - 1) + 1);
  const step = indent > 0 && i > 0 ? Math.max(2, Math.round(indent / i)) : 2;
  const end = map.range ? map.range[1] : text.length;
  // After the map's last line.
  const insertAt =
    text.lastIndexOf('\n', end - 1) >= 0 && text[end - 1] === '\n'
      ? end
      : text.indexOf('\n', end) < 0
        ? text.length
        : text.indexOf('\n', end) + 1;
  const lines = path.slice(i).map((k, j) => `${' '.repeat(indent + j * step)}${k}:${j === path.length - i - 1 ? ` ${String(value)}` : ''}`);
  const lead = insertAt > 0 && text[insertAt - 1] !== '\n' ? '\n' : '';
  return { start: insertAt, end: insertAt, newText: `${lead}${lines.join('\n')}\n`, value: String(value), line: lineOf(text, insertAt) };
}
