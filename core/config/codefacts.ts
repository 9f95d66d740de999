// Allowed values read from the framework's own Python source, so the schema says what the code
// accepts rather than what someone copied by hand. `npm run gen:schema` runs these over the upstream
// trees (one per framework version) and writes the result into `x-enumByVersion`.
import { parseDocument, isMap, isScalar, type YAMLMap } from 'yaml';
import type { FrameworkVersion } from '../agentjet/dialect';
import {
  attributeKeys,
  comparedValues,
  dataclassKeys,
  decoratorNames,
  hasRaise,
  madnessChecks,
  mayReadRoot,
  registryKeys,
  taskReaderTypes,
} from './pyfacts';
import { parsePython, type PyNode } from './pyparse';
import { KEY_BUDGET, KeyChains } from './factsBudget';
import type { Tree } from 'web-tree-sitter';

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
    if (!from.startsWith(`${root}.`) || from.length > KEY_BUDGET.maxChars) continue;
    const list = (Array.isArray(to) ? to : [to]).filter((x): x is string => typeof x === 'string');
    if (list.length) out[from.slice(root.length + 1)] = list;
  }
  return out;
}

/** Keys whose per-version default decides a check (see `defaults`). */
export const DEFAULT_PATHS = ['task_reader.type', 'task_judge.judge_type', 'task_judge.judge_protocol'] as const;

export type CodeFactsByVersion = Partial<Record<FrameworkVersion, CodeFacts>>;

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
      // Depth is bounded before parsing (FACTS_BUDGET); key length and count here (KEY_BUDGET).
      if (out.length >= KEY_BUDGET.maxKeys) return;
      if (k.length > KEY_BUDGET.maxChars) continue;
      out.push(k);
      if (isMap(p.value)) walk(p.value, k);
    }
  };
  if (isMap(start)) walk(start, '');
  return out;
}

/** Left-hand `"<root>.a.b"` paths of a config_auto_convertion table (JSON with comments). */
export function conversionKeys(text: string, root: string): string[] {
  const chains = new KeyChains();
  for (const m of text.matchAll(new RegExp(String.raw`\b${root}\.([A-Za-z_][\w.]*\w)`, 'g'))) {
    if (chains.keys.size >= KEY_BUDGET.maxKeys) break;
    const [, dotted = ''] = m;
    chains.reset();
    // Link by link, stopping at the budget: a 128 KB key is not split whole.
    for (let at = 0; at < dotted.length;) {
      const dot = dotted.indexOf('.', at);
      const end = dot < 0 ? dotted.length : dot;
      if (!chains.push(dotted.slice(at, end))) break;
      at = end + 1;
    }
  }
  return [...chains.keys];
}

/** The values a source lists in a file. */
function sourceValues(py: PyNode, src: ValueSource): string[] {
  if ('registry' in src) return registryKeys(py, src.registry);
  if ('decorator' in src) return decoratorNames(py, src.decorator);
  return comparedValues(py, src.name);
}

/** A word a file must contain for a source to find anything in it (the file is not parsed otherwise). */
const wordOf = (src: ValueSource): string => ('registry' in src ? src.registry : 'decorator' in src ? src.decorator : src.name);

/**
 * Reads one version's package: `read(rel)` gives a file's text (relative to the package folder),
 * `files` lists every file there. Missing files give empty lists. Python is read as syntax trees
 * (core/config/pyfacts.ts), each file parsed at most once and only when it holds a word a fact
 * needs: the parser must be loaded first (`await loadPython()`).
 */
export function codeFactsOf(read: (rel: string) => string | undefined, files: readonly string[] = [], root = 'ajet'): CodeFacts {
  const trees = new Map<string, Tree>();
  /** The tree of a file that exists and contains `word`. */
  const treeOf = (rel: string, word: string): PyNode | undefined => {
    const text = read(rel);
    if (text === undefined || !text.includes(word)) return undefined;
    let tree = trees.get(rel);
    if (!tree) trees.set(rel, (tree = parsePython(text)));
    return tree.rootNode;
  };
  try {
    return factsOf(read, files, root, treeOf);
  } finally {
    for (const tree of trees.values()) tree.delete();
  }
}

function factsOf(
  read: (rel: string) => string | undefined,
  files: readonly string[],
  root: string,
  treeOf: (rel: string, word: string) => PyNode | undefined,
): CodeFacts {
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
    if (/^default_config\/\w+_config_schema\.py$/.test(f)) {
      const tree = treeOf(f, root);
      if (tree) for (const k of dataclassKeys(tree, root)) keys.add(k);
    }
    if (/\.py$/.test(f)) {
      const tree = mayReadRoot(read(f) ?? '', root) ? treeOf(f, root) : undefined;
      if (tree) for (const k of attributeKeys(tree, root)) keys.add(k);
    } else if (/^default_config\/.*config_auto_convertion_\w+\.jsonc?$/.test(f))
      for (const k of conversionKeys(read(f) ?? '', root)) keys.add(k);
    else if (/^default_config\/(?:verl\/|trinity\/)?[\w]+_default\.yaml$/.test(f))
      for (const k of yamlKeys(read(f) ?? '', root)) keys.add(k);
  }
  const valueLists: Record<string, string[]> = {};
  const strictValues: string[] = [];
  const fallbackValues: string[] = [];
  for (const src of VALUE_SOURCES) {
    const tree = keys.has(src.key) ? treeOf(src.file, wordOf(src)) : undefined;
    const values = tree ? sourceValues(tree, src) : [];
    if (!tree || !values.length) continue;
    valueLists[src.key] = values;
    // A raise is only believed when the file has one; otherwise the value is at most a warning.
    if (src.unknown === 'raises' && hasRaise(tree)) strictValues.push(src.key);
    else if (src.unknown === 'falls back') fallbackValues.push(src.key);
  }
  const conv = read('default_config/verl/config_auto_convertion_verl.jsonc');
  const verlConversions = conv === undefined ? {} : conversionTable(conv, root);
  const some = (list: readonly string[], word: string) => list.map((f) => treeOf(f, word)).filter((t): t is PyNode => t !== undefined);
  return {
    taskReaders: some(CODE_FACT_FILES.taskReaders, 'task_reader_type').flatMap(taskReaderTypes),
    madnessChecks: madnessChecks(...some(CODE_FACT_FILES.madnessChecks, 'checklist')),
    readKeys: [...keys].sort(),
    defaults,
    ...(Object.keys(valueLists).length ? { valueLists } : {}),
    ...(Object.keys(verlConversions).length ? { verlConversions } : {}),
    ...(strictValues.length ? { strictValues } : {}),
    ...(fallbackValues.length ? { fallbackValues } : {}),
  };
}
