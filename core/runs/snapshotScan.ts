// A line scan of a config snapshot (`yaml_backup.yaml`) for the few facts the runs listing needs,
// without building a YAML document. AgentJet writes the snapshot with PyYAML's `yaml.dump` (block
// mappings, plain or quoted one-line scalars, indentless lists): tens of KB whose full parse costs
// some 20 ms, so 10,000 runs would spend minutes there. The scan accepts only a strict subset of
// YAML whose meaning is certain; anything else (flow collections, anchors, tags, block scalars,
// multi-line scalars, tabs, odd indentation, duplicate keys, numbers it would have to guess) makes
// it answer `undefined`, and the caller parses the text in full. Where it answers, it answers what
// the full parse would (test/unit/runs-snapshot-scan.test.ts compares both).
import type { Dialect } from '../agentjet/dialect';

/** What the scan reads: the same values `readConfigFacts` and the logger lookup would. */
export interface ScannedSnapshot {
  dialect: Dialect | undefined;
  project: string | undefined;
  experimentName: string | undefined;
  checkpointBase: string | undefined;
  totalSteps: number | undefined;
  /** `<dialect>.trainer_common.logger` as plain JS (string, list of scalars, null...), undefined when absent. */
  logger: unknown;
  /** The text has no ajet/astuner/astune mapping at the top (the full reader's error then applies). */
  noRoot: boolean;
}

// Anything YAML treats specially or that a line scan cannot judge: control characters (tab, CR),
// a byte-order mark, NEL/line and paragraph separators.
const UNSAFE_CHARS = /[\x00-\x09\x0b-\x1f\x7f\x85\u2028\u2029\ufeff]/;
const SINGLE = /^'((?:[^']|'')*)'$/;
const DOUBLE = /^"([^"\\]*)"$/;

/** A plain scalar the scan cannot type without the parser's rules (numerals other than plain digits, `~`, `.inf`). */
const UNSURE = Symbol('unsure');
type Value = { ok: true; value: unknown } | { ok: false };
const NOPE: Value = { ok: false };

/**
 * A one-line scalar as the YAML 1.2 core schema reads it (UNSURE for numerals other than plain
 * digits), or NOPE when its syntax is outside the subset. `[]` and `{}` (what PyYAML writes for
 * empty collections) are accepted; flow collections with content are not.
 */
function scalar(v: string): Value {
  if (v === '') return { ok: true, value: null };
  const c = v[0]!;
  if (c === "'") {
    const m = SINGLE.exec(v);
    return m ? { ok: true, value: m[1]!.replace(/''/g, "'") } : NOPE;
  }
  if (c === '"') {
    const m = DOUBLE.exec(v);
    return m ? { ok: true, value: m[1] } : NOPE;
  }
  if (v === '[]') return { ok: true, value: [] };
  if (v === '{}') return { ok: true, value: {} };
  // Plain: no indicator first (`-?:` only when a space or the end follows), no `: `, ` #` or trailing `:`.
  if (/^[,[\]{}#&*!|>'"%@`]/.test(v) || /^[-?:](?: |$)/.test(v)) return NOPE;
  if (v.includes(': ') || v.includes(' #') || v.endsWith(':')) return NOPE;
  if (/^[0-9]{1,15}$/.test(v)) return { ok: true, value: Number(v) };
  if (/^[-+]?\.?[0-9]/.test(v) || /^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/.test(v)) return { ok: true, value: UNSURE };
  if (/^(?:~|null|Null|NULL)$/.test(v)) return { ok: true, value: null };
  if (/^(?:true|True|TRUE)$/.test(v)) return { ok: true, value: true };
  if (/^(?:false|False|FALSE)$/.test(v)) return { ok: true, value: false };
  return { ok: true, value: v };
}

/** Whether a one-line value is inside the subset (cheaper than `scalar` when its value is not wanted). */
function plainOk(v: string): boolean {
  const c = v.charCodeAt(0);
  // ' " and the indicators , [ ] { } # & * ! | > % @ `
  if (c === 39 || c === 34 || v === '[]' || v === '{}') return scalar(v).ok;
  if (INDICATOR[c]) return false;
  // - ? : are indicators only when a space or the end follows.
  if ((c === 45 || c === 63 || c === 58) && (v.length === 1 || v.charCodeAt(1) === 32)) return false;
  return !(v.includes(': ') || v.includes(' #') || v.charCodeAt(v.length - 1) === 58);
}

const INDICATOR: boolean[] = [];
for (const ch of ',[]{}#&*!|>%@`') INDICATOR[ch.charCodeAt(0)] = true;

interface Level {
  indent: number;
  /**
   * Path of this mapping, keys joined by NUL ('' for the top), kept only while it leads to a fact
   * the listing reads (undefined below that: such mappings are checked, not recorded).
   */
  path: string | undefined;
  keys: Set<string> | undefined;
}

/** Joins keys with a character no accepted key holds, so `a.b:` and `a:` + `b:` stay apart. */
const SEP = '\0';
const at = (...keys: string[]) => keys.join(SEP);
const DIALECT_KEYS = ['ajet', 'astuner', 'astune'] as const;
/** Mappings on the way to a wanted fact, and the facts. */
const PREFIXES = new Set(['trainer', ...DIALECT_KEYS, ...DIALECT_KEYS.map((d) => at(d, 'trainer_common'))]);
const FACTS = new Set([
  at('trainer', 'total_training_steps'),
  ...DIALECT_KEYS.flatMap((d) => [
    at(d, 'project_name'),
    at(d, 'experiment_name'),
    at(d, 'trainer_common', 'checkpoint_base_dir'),
    at(d, 'trainer_common', 'logger'),
  ]),
]);

function isKeyChar(c: number): boolean {
  // A-Z a-z 0-9 _ . - /
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 || c === 47;
}

/** The scan; `undefined` when the text is outside the subset (parse it in full then). */
export function scanSnapshot(text: string): ScannedSnapshot | undefined {
  if (UNSAFE_CHARS.test(text)) return undefined;
  const values = new Map<string, unknown>();
  /** Top-level keys whose value is a mapping. */
  const topMaps = new Set<string>();
  const stack: Level[] = [{ indent: 0, path: '', keys: new Set() }];
  /** A `key:` with nothing after it, waiting for a nested mapping or list (or nothing: null). */
  let open: { indent: number; path: string | undefined; top: string | undefined } | undefined;
  /** The list being read: its items' indent, and its items when its key is wanted. */
  let list: { indent: number; items: unknown[] | undefined } | undefined;
  let lines = 0;
  const n = text.length;
  for (let pos = 0; pos < n;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    const lineStart = pos;
    pos = end + 1;
    let i = lineStart;
    while (i < end && text.charCodeAt(i) === 32) i++;
    let e = end;
    while (e > i && text.charCodeAt(e - 1) === 32) e--;
    if (i === e || text.charCodeAt(i) === 35) continue; // blank or a comment line
    lines++;
    const indent = i - lineStart;
    if (text.charCodeAt(i) === 45 && (i + 1 === e || text.charCodeAt(i + 1) === 32)) {
      // A list item: right under an open key (same indent, PyYAML's style, or deeper), or the next of a list.
      if (open && indent >= open.indent) {
        list = { indent, items: open.path !== undefined && FACTS.has(open.path) ? [] : undefined };
        if (list.items) values.set(open.path!, list.items);
        open = undefined;
      } else if (!list || indent !== list.indent) return undefined;
      let v = i + 1;
      while (v < e && text.charCodeAt(v) === 32) v++;
      // Nested lists, mappings in lists and empty items are outside the subset.
      if (v === e) return undefined;
      const item = text.slice(v, e);
      if (list.items) {
        const r = scalar(item);
        if (!r.ok) return undefined;
        list.items.push(r.value);
      } else if (!plainOk(item)) return undefined;
      continue;
    }
    let k = i;
    while (k < e && k - i <= 200 && isKeyChar(text.charCodeAt(k))) k++;
    const c0 = text.charCodeAt(i);
    // A key: a plain word (no quotes, no indicator first), then `:` and a space or the end.
    if (k === i || c0 === 45 || c0 === 46 || c0 === 47 || text.charCodeAt(k) !== 58 || (k + 1 < e && text.charCodeAt(k + 1) !== 32))
      return undefined;
    if (list) {
      // A key after the list ends it (at the indent of the list's key or shallower).
      if (indent > list.indent) return undefined;
      list = undefined;
    }
    if (open) {
      if (indent > open.indent) {
        stack.push({ indent, path: open.path, keys: open.path !== undefined ? new Set() : undefined });
        if (open.top !== undefined) topMaps.add(open.top);
      } else if (open.path !== undefined && FACTS.has(open.path)) values.set(open.path, null);
      open = undefined;
    }
    while (stack.length > 1 && stack[stack.length - 1]!.indent > indent) stack.pop();
    const level = stack[stack.length - 1]!;
    if (level.indent !== indent) return undefined;
    const top = stack.length === 1;
    let path: string | undefined;
    let key: string | undefined;
    if (level.keys) {
      key = text.slice(i, k);
      // Duplicate keys on the way to a fact: the parser keeps both and reads the first; the scan does not guess.
      if (level.keys.has(key)) return undefined;
      level.keys.add(key);
      path = level.path ? at(level.path, key) : key;
      if (!PREFIXES.has(path) && !FACTS.has(path)) path = undefined;
    }
    let v = k + 1;
    while (v < e && text.charCodeAt(v) === 32) v++;
    if (v === e) {
      open = { indent, path, top: top ? key : undefined };
      continue;
    }
    const rest = text.slice(v, e);
    if ((path !== undefined && FACTS.has(path)) || (top && rest === '{}')) {
      const r = scalar(rest);
      if (!r.ok) return undefined;
      if (path !== undefined) values.set(path, r.value);
      if (top && rest === '{}') topMaps.add(key!);
    } else if (!plainOk(rest)) return undefined;
  }
  if (open?.path !== undefined && FACTS.has(open.path)) values.set(open.path, null);
  if (!lines) return undefined;
  const dialect = DIALECT_KEYS.find((d) => topMaps.has(d));
  const sure = (v: unknown) => v !== UNSURE && !(Array.isArray(v) && v.includes(UNSURE));
  const get = (...keys: string[]) => values.get(at(...keys));
  const wanted = [get('trainer', 'total_training_steps')];
  if (dialect)
    wanted.push(
      get(dialect, 'project_name'),
      get(dialect, 'experiment_name'),
      get(dialect, 'trainer_common', 'checkpoint_base_dir'),
      get(dialect, 'trainer_common', 'logger'),
    );
  if (!wanted.every(sure)) return undefined;
  const [steps, project, experiment, base, logger] = wanted;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
  const baseText = str(base);
  return {
    dialect,
    project: str(project),
    experimentName: str(experiment),
    checkpointBase: baseText && !baseText.includes('${') ? baseText : undefined,
    totalSteps: typeof steps === 'number' && Number.isInteger(steps) && steps > 0 ? steps : undefined,
    logger,
    noRoot: dialect === undefined,
  };
}
