// The regular-expression reading of AgentJet's Python that core/config/codefacts.ts did before it
// used syntax trees (core/config/pyfacts.ts), kept here only so that test/unit/config-pyfacts.test.ts
// can compare the two readings on every upstream tree. Not used by the product.
import { parseDocument } from 'yaml';
import {
  CODE_FACT_FILES,
  DEFAULT_PATHS,
  VALUE_SOURCES,
  conversionKeys,
  conversionTable,
  yamlKeys,
  type CodeFacts,
  type ValueSource,
} from '../../core/config/codefacts';

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

/**
 * Reads one version's package: `read(rel)` gives a file's text (relative to the package folder),
 * `files` lists every file there. Missing files give empty lists.
 */
export function regexCodeFactsOf(read: (rel: string) => string | undefined, files: readonly string[] = [], root = 'ajet'): CodeFacts {
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
