// Allowed values read from the framework's own Python source, so the schema says what the code
// accepts rather than what someone copied by hand. `npm run gen:schema` runs these over the upstream
// trees (one per framework version) and writes the result into `x-enumByVersion`.
import { parseDocument, isMap, isScalar, type YAMLMap } from 'yaml';
import type { FrameworkVersion } from '../agentjet/dialect';

/** Per-version value lists the schema takes from code. */
export interface CodeFacts {
  /** `task_reader_type == "..."` branches of RouterTaskReader (`<pkg>/task_reader/__init__.py`). */
  taskReaders: string[];
  /** Names tested against `compute_madness_checklist` (`<pkg>/utils/compute_madness.py` and callers). */
  madnessChecks: string[];
  /**
   * Key paths under the root (`rollout.max_env_len`) this version declares or reads: its defaults
   * YAML, the left side of its config_auto_convertion_* tables, and `config.<root>.a.b` chains in
   * its Python code. A key outside this set is one the version ignores.
   */
  readKeys: string[];
  /** Values of a few keys in the version's defaults YAML that change what a config must set. */
  defaults: Record<string, string>;
  /**
   * Allowed values of keys whose code compares them with string literals (VALUE_SOURCES), by key
   * path under the root. Absent in facts written before AgentJet 0.0.4 was read.
   */
  valueLists?: Record<string, string[]>;
  /**
   * The verl conversion table (`default_config/verl/config_auto_convertion_verl.jsonc`): plain
   * `<root>.a.b` keys to the verl keys they overwrite. The 0.0.4 launcher raises when a config sets
   * one of those verl keys to another value (`_validate_input_yaml_no_overlap_with_auto_convertion_config`).
   */
  verlConversions?: Record<string, string[]>;
  /** Keys of `valueLists` whose other values make the code raise (an error, not a warning). */
  strictValues?: string[];
  /** Keys of `valueLists` whose other values the code replaces with its default (it logs and goes on). */
  fallbackValues?: string[];
  /**
   * The `def:<function>` and `file:<path>` facts the release rules ask about (core/config/releaseRules.ts)
   * that this package has; recorded by core/config/factsgen.ts `treeFactsOf`.
   */
  has?: string[];
}

/**
 * Where the code of a version lists a key's allowed values. Three shapes occur:
 * - `name`: the file compares a variable or attribute with literals (`clip_method == "first_n"`,
 *   `kl_penalty in ("kl", "k1")`);
 * - `registry`: the file looks the value up in a dict literal (`_TOOL_PARSERS = {"hermes": ...}`),
 *   after 0.0.4 (`rollout.tool_parser`, `rollout.chat_template_generate_prompt_type`);
 * - `decorator`: the file registers the names with a decorator (`@_register(["k1", "k3"], ...)`),
 *   the OPD loss modes after 0.0.4.
 * `unknown` says what the code does with another value: `raises` (checked: the file must hold a
 * `raise`), `falls back` to its default, or nothing known (a warning, since the code may accept
 * spellings the comparison does not show). Files are relative to the package folder; a file a
 * version lacks gives no list (the key is then free text).
 */
export type ValueSource = { key: string; file: string; unknown?: 'raises' | 'falls back' } & (
  { name: string } | { registry: string } | { decorator: string }
);

export const VALUE_SOURCES: readonly ValueSource[] = [
  {
    key: 'swarm_mode_sample_collection_method',
    file: 'task_rollout/native_parallel_worker.py',
    name: 'swarm_mode_sample_collection_method',
  },
  { key: 'trainer_common.val_max_num_task_clip_method', file: 'backbone/trainer_verl.py', name: 'clip_method' },
  { key: 'trainer_common.kl_penalty_type', file: 'backbone/verl/core_algos.py', name: 'kl_penalty' },
  {
    key: 'context_tracker.timeline_merging_policy.timeline_compare_level',
    file: 'context_tracker/timeline_merging/timeline_merging.py',
    name: 'timeline_compare_level',
  },
  { key: 'rollout.tool_parser', file: 'utils/tool_parser.py', registry: '_TOOL_PARSERS', unknown: 'falls back' },
  {
    key: 'rollout.chat_template_generate_prompt_type',
    file: 'utils/get_blackout_token_combo.py',
    registry: '_HEADER_BY_PROMPT_TYPE',
    unknown: 'raises',
  },
  { key: 'opd.loss_mode', file: 'backbone/verl/distillation.py', decorator: '_register', unknown: 'raises' },
];

/** The values a source lists in a file's text. */
function sourceValues(py: string, src: ValueSource): string[] {
  if ('registry' in src) return registryKeys(py, src.registry);
  if ('decorator' in src) return decoratorNames(py, src.decorator);
  return comparedValues(py, src.name);
}

/** Python text without comments and with string contents kept (a `#` inside quotes stays). */
function stripComments(py: string): string {
  return py.replace(/("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|#[^\n]*/g, (_m: string, str: string | undefined) => str ?? '');
}

/**
 * String keys of the dict literal assigned to `name` at module level (`NAME = {` or
 * `NAME: Dict[str, X] = {`), outermost level only: `{"a": f, "b": {"c": 1}}` gives a, b.
 */
export function registryKeys(py: string, name: string): string[] {
  const code = stripComments(py);
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(String.raw`^${esc}\s*(?::[^=\n]*)?=\s*\{`, 'm').exec(code);
  if (!m) return [];
  const out: string[] = [];
  let depth = 1;
  let expectKey = true;
  // Linear scan from the opening brace; strings are skipped whole so their braces do not count.
  for (let i = m.index + m[0].length; i < code.length && depth > 0; i++) {
    const c = code[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < code.length && code[j] !== c && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      const text = code.slice(i + 1, j);
      if (depth === 1 && expectKey && /^\s*:/.test(code.slice(j + 1, j + 40))) out.push(text);
      expectKey = false;
      i = j;
    } else if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
    else if (c === ',' && depth === 1) expectKey = true;
    else if (c !== undefined && !/\s/.test(c)) expectKey = false;
  }
  return [...new Set(out)];
}

/** Names given to a registering decorator: `@name("a")`, `@name(["a", "b"], ...)`. */
export function decoratorNames(py: string, name: string): string[] {
  const code = stripComments(py);
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const out = new Set<string>();
  const re = new RegExp(String.raw`^\s*@${esc}\(\s*(\[[^\]]*\]|"[^"\n]*"|'[^'\n]*')`, 'gm');
  for (const m of code.matchAll(re)) for (const s of (m[1] ?? '').matchAll(/["']([^"'\n]+)["']/g)) out.add(s[1] ?? '');
  out.delete('');
  return [...out];
}

/** String literals a name is compared with: `name == "x"`, `name != "x"`, `name in ("x", "y")` (comments skipped). */
export function comparedValues(py: string, name: string): string[] {
  const out = new Set<string>();
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const line of py.split('\n')) {
    const code = line.replace(/^\s*#.*$/, '');
    if (!code) continue;
    const eq = new RegExp(String.raw`(?<![\w])${esc}\s*[!=]=\s*["']([\w+-]+)["']`, 'g');
    for (const m of code.matchAll(eq)) out.add(m[1] ?? '');
    const inRe = new RegExp(String.raw`(?<![\w])${esc}\s+in\s*[([]([^)\]]*)[)\]]`, 'g');
    for (const m of code.matchAll(inRe)) for (const s of (m[1] ?? '').matchAll(/["']([\w+-]+)["']/g)) out.add(s[1] ?? '');
  }
  out.delete('');
  return [...out];
}

/**
 * Key paths of a dataclass config schema (`default_config/ajet_config_schema.py`, AgentJet 0.0.4):
 * from the class with a `<root>:` field, each field is a key; a field typed by (or made by
 * `default_factory=`) another dataclass of the file opens its keys beneath.
 */
export function dataclassKeys(py: string, root: string): string[] {
  const classes = new Map<string, { name: string; type: string }[]>();
  let cur: { name: string; type: string }[] | undefined;
  for (const line of py.split('\n')) {
    const cls = /^class\s+(\w+)\s*(?:\([^)]*\))?\s*:/.exec(line);
    if (cls) {
      cur = [];
      classes.set(cls[1] ?? '', cur);
      continue;
    }
    if (/^\S/.test(line)) cur = undefined;
    const f = cur && /^ {4}([A-Za-z_]\w*)\s*:\s*([^=#]+?)\s*(?:=\s*(.*))?$/.exec(line);
    if (cur && f) {
      const factory = /default_factory\s*=\s*(\w+)/.exec(f[3] ?? '')?.[1];
      cur.push({ name: f[1] ?? '', type: factory ?? (f[2] ?? '').trim() });
    }
  }
  const out: string[] = [];
  const walk = (cls: string, prefix: string, depth: number) => {
    for (const fld of classes.get(cls) ?? []) {
      const k = prefix ? `${prefix}.${fld.name}` : fld.name;
      out.push(k);
      if (depth < 8 && classes.has(fld.type)) walk(fld.type, k, depth + 1);
    }
  };
  for (const fields of classes.values()) {
    const top = fields.find((x) => x.name === root && classes.has(x.type));
    if (top) {
      walk(top.type, '', 0);
      break;
    }
  }
  return out;
}

/** Plain (not computed) entries of a conversion table whose keys start with `<root>.`. */
export function conversionTable(text: string, root: string): Record<string, string[]> {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\s*\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1'));
  } catch {
    return {};
  }
  const out: Record<string, string[]> = {};
  if (!json || typeof json !== 'object') return out;
  for (const [from, to] of Object.entries(json as Record<string, unknown>)) {
    if (!from.startsWith(`${root}.`)) continue;
    const list = (Array.isArray(to) ? to : [to]).filter((x): x is string => typeof x === 'string');
    if (list.length) out[from.slice(root.length + 1)] = list;
  }
  return out;
}

/** Keys whose per-version default decides a check (see `defaults`). */
export const DEFAULT_PATHS = ['task_reader.type', 'task_judge.judge_type', 'task_judge.judge_protocol'] as const;

export type CodeFactsByVersion = Partial<Record<FrameworkVersion, CodeFacts>>;

/** The reader types RouterTaskReader dispatches on; anything else raises ValueError. */
export function taskReaderTypes(taskReaderInit: string): string[] {
  const out = new Set<string>();
  for (const m of taskReaderInit.matchAll(/\btask_reader_type\s*==\s*["']([\w-]+)["']/g)) {
    const [, v = ''] = m;
    out.add(v);
  }
  return [...out];
}

/** Check names the madness code looks for: `"x" in checklist` / `"x" in ...compute_madness_checklist`. */
export function madnessChecks(...sources: string[]): string[] {
  const out = new Set<string>();
  for (const src of sources) {
    for (const m of src.matchAll(/["']([\w-]+)["']\s+(?:not\s+)?in\s+(?:checklist\b|[\w.]*compute_madness_checklist\b)/g)) {
      const [, v = ''] = m;
      out.add(v);
    }
  }
  return [...out];
}

/** Python package folder of each upstream version (relative to its tree). */
export const PACKAGE_OF: Record<FrameworkVersion, string> = {
  agentjet: 'ajet',
  'astuner-2025-12': 'astuner',
  'astuner-2025-11': 'astuner',
  astune: 'astune',
};

/** Source files (relative to the package folder) the facts are read from. */
export const CODE_FACT_FILES = {
  taskReaders: ['task_reader/__init__.py'],
  madnessChecks: [
    'utils/compute_madness.py',
    'context_tracker/multiagent_tracking.py',
    'context_tracker/agentscope_tracker/multiagent_tracking.py',
    'context_tracker/basic_tracker.py',
  ],
} as const;

const METHODS = new Set(['get', 'items', 'keys', 'values', 'pop', 'setdefault', 'update', 'copy', 'to_container']);

/** `config.ajet.rollout.max_env_len` → `rollout.max_env_len` (and its prefixes), per root. */
export function attributeKeys(py: string, root: string): string[] {
  const out = new Set<string>();
  // Attribute access on an object (`self.config.ajet...`), not imports (`from ajet.utils import`).
  const re = new RegExp(String.raw`(?<=[\w\])]\.)${root}((?:\.[A-Za-z_]\w*)+?)(?:\.get\(\s*["']([A-Za-z_]\w*)["']|(?!\.?\w))`, 'g');
  for (const m of py.matchAll(re)) {
    const parts: string[] = [];
    const [, chain = '', getKey] = m;
    for (const seg of chain.slice(1).split('.')) {
      if (METHODS.has(seg)) break;
      parts.push(seg);
    }
    if (getKey && parts.length === chain.slice(1).split('.').length) parts.push(getKey);
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
  }
  return [...out];
}

/** Dotted key paths under `root` in a YAML text (maps only; lists end a path). */
export function yamlKeys(text: string, root: string): string[] {
  const out: string[] = [];
  let doc;
  try {
    doc = parseDocument(text);
  } catch {
    return out;
  }
  const top = doc.contents;
  const start = isMap(top) ? top.get(root, true) : undefined;
  const walk = (m: YAMLMap, prefix: string) => {
    for (const p of m.items) {
      if (!isScalar(p.key)) continue;
      const k = prefix ? `${prefix}.${String(p.key.value)}` : String(p.key.value);
      out.push(k);
      if (isMap(p.value)) walk(p.value, k);
    }
  };
  if (isMap(start)) walk(start, '');
  return out;
}

/** Left-hand `"<root>.a.b"` paths of a config_auto_convertion table (JSON with comments). */
export function conversionKeys(text: string, root: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(new RegExp(String.raw`\b${root}\.([A-Za-z_][\w.]*\w)`, 'g'))) {
    const [, dotted = ''] = m;
    const parts = dotted.split('.');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
  }
  return [...out];
}

/**
 * Reads one version's package: `read(rel)` gives a file's text (relative to the package folder),
 * `files` lists every file there. Missing files give empty lists.
 */
export function codeFactsOf(read: (rel: string) => string | undefined, files: readonly string[] = [], root = 'ajet'): CodeFacts {
  const texts = (list: readonly string[]) => list.map(read).filter((t): t is string => typeof t === 'string');
  const keys = new Set<string>();
  const defaults: Record<string, string> = {};
  for (const f of files) {
    if (/^default_config\/\w+_default\.yaml$/.test(f)) {
      let doc;
      try {
        doc = parseDocument(read(f) ?? '');
      } catch {
        doc = undefined;
      }
      for (const path of DEFAULT_PATHS) {
        const v: unknown = doc?.getIn([root, ...path.split('.')]);
        if (typeof v === 'string') defaults[path] = v;
      }
    }
    if (/^default_config\/\w+_config_schema\.py$/.test(f)) for (const k of dataclassKeys(read(f) ?? '', root)) keys.add(k);
    if (/\.py$/.test(f)) for (const k of attributeKeys(read(f) ?? '', root)) keys.add(k);
    else if (/^default_config\/.*config_auto_convertion_\w+\.jsonc?$/.test(f))
      for (const k of conversionKeys(read(f) ?? '', root)) keys.add(k);
    else if (/^default_config\/(?:verl\/|trinity\/)?[\w]+_default\.yaml$/.test(f))
      for (const k of yamlKeys(read(f) ?? '', root)) keys.add(k);
  }
  const valueLists: Record<string, string[]> = {};
  const strictValues: string[] = [];
  const fallbackValues: string[] = [];
  for (const src of VALUE_SOURCES) {
    const text = read(src.file);
    const values = text === undefined ? [] : sourceValues(text, src);
    if (!values.length || !keys.has(src.key)) continue;
    valueLists[src.key] = values;
    // A raise is only believed when the file has one; otherwise the value is at most a warning.
    if (src.unknown === 'raises' && /^\s*raise\b/m.test(text ?? '')) strictValues.push(src.key);
    else if (src.unknown === 'falls back') fallbackValues.push(src.key);
  }
  const conv = read('default_config/verl/config_auto_convertion_verl.jsonc');
  const verlConversions = conv === undefined ? {} : conversionTable(conv, root);
  return {
    taskReaders: texts(CODE_FACT_FILES.taskReaders).flatMap(taskReaderTypes),
    madnessChecks: madnessChecks(...texts(CODE_FACT_FILES.madnessChecks)),
    readKeys: [...keys].sort(),
    defaults,
    ...(Object.keys(valueLists).length ? { valueLists } : {}),
    ...(Object.keys(verlConversions).length ? { verlConversions } : {}),
    ...(strictValues.length ? { strictValues } : {}),
    ...(fallbackValues.length ? { fallbackValues } : {}),
  };
}
