// The facts codefacts.ts reads from AgentJet's Python, taken from syntax trees (core/config/pyparse.ts):
// comparisons with string literals, `config.<root>.a.b` chains, registry dicts, registering
// decorators, dataclass fields. Comments and the text of strings and docstrings are never code here.
// Each function takes a Python text (parsed, then freed) or the root of a tree already parsed; the
// parser must be loaded first (`await loadPython()`).
import { nodesOf, stringValue, tailName, withPyTree, type PyNode } from './pyparse';
import { KEY_BUDGET, KeyChains } from './factsBudget';

type Src = string | PyNode;

/** Operands and operators of a comparison (`a == b`, `a not in b`, `a < b < c`). */
function comparison(n: PyNode): { operands: PyNode[]; ops: string[] } {
  const operands: PyNode[] = [];
  const ops: string[] = [];
  let pending: string[] = [];
  for (const c of n.children) {
    if (!c || c.type === 'comment') continue;
    if (c.isNamed) {
      if (pending.length) ops.push(pending.join(' '));
      pending = [];
      operands.push(c);
    } else pending.push(c.type);
  }
  return { operands, ops };
}

/** String literals of a tuple, list or set literal (`("a", "b")`), or of a single string. */
function literalStrings(n: PyNode | null | undefined): string[] {
  if (!n) return [];
  if (n.type === 'parenthesized_expression') return literalStrings(n.namedChildren[0]);
  if (n.type === 'string') {
    const v = stringValue(n);
    return v === undefined ? [] : [v];
  }
  if (n.type !== 'tuple' && n.type !== 'list' && n.type !== 'set') return [];
  return n.namedChildren.flatMap((c) => {
    const v = stringValue(c);
    return v === undefined ? [] : [v];
  });
}

/** A value the schema can offer: a word with `+` and `-` (not a sentence, a path or a format). */
const VALUE_RE = /^[\w+-]+$/;

/**
 * String literals `name` (a variable, or an attribute ending in `.name`) is compared with:
 * `name == "x"`, `"x" != name`, `name in ("x", "y")`, `name not in [...]`. `ops` narrows the operators.
 */
export function comparedValues(py: Src, name: string, ops: readonly string[] = ['==', '!=', 'in', 'not in']): string[] {
  return withPyTree(py, (root) => {
    const out = new Set<string>();
    for (const cmp of nodesOf(root, 'comparison_operator')) {
      const { operands, ops: found } = comparison(cmp);
      found.forEach((op, i) => {
        if (!ops.includes(op)) return;
        const [l, r] = [operands[i], operands[i + 1]];
        if (op === '==' || op === '!=') {
          if (tailName(l) === name) out.add(stringValue(r) ?? '');
          else if (tailName(r) === name) out.add(stringValue(l) ?? '');
        } else if (tailName(l) === name && r?.type !== 'string') for (const v of literalStrings(r)) out.add(v);
      });
    }
    return [...out].filter((v) => VALUE_RE.test(v));
  });
}

/** The reader types RouterTaskReader dispatches on (`task_reader_type == "..."`); anything else raises ValueError. */
export function taskReaderTypes(taskReaderInit: Src): string[] {
  return comparedValues(taskReaderInit, 'task_reader_type', ['==']);
}

/** Check names the madness code looks for: `"x" in checklist` / `"x" not in ...compute_madness_checklist`. */
export function madnessChecks(...sources: Src[]): string[] {
  const out = new Set<string>();
  for (const src of sources)
    withPyTree(src, (root) => {
      for (const cmp of nodesOf(root, 'comparison_operator')) {
        const { operands, ops } = comparison(cmp);
        ops.forEach((op, i) => {
          if (op !== 'in' && op !== 'not in') return;
          const v = stringValue(operands[i]);
          const list = tailName(operands[i + 1]);
          const isList = operands[i + 1]?.type === 'identifier' ? list === 'checklist' : list === 'compute_madness_checklist';
          if (v && isList && list && /^[\w-]+$/.test(v)) out.add(v);
        });
      }
    });
  return [...out];
}

/** Module-level statements, decorated definitions unwrapped. */
function topLevel(root: PyNode): PyNode[] {
  return root.namedChildren.flatMap((n) => (!n ? [] : n.type === 'decorated_definition' ? [n.childForFieldName('definition') ?? n] : [n]));
}

/** The `left = right` (or `left: T = right`) of an expression statement, or undefined. */
function assignmentOf(stmt: PyNode): PyNode | undefined {
  const a = stmt.type === 'expression_statement' ? stmt.namedChildren[0] : undefined;
  return a?.type === 'assignment' ? a : undefined;
}

/**
 * String keys of the dict literal assigned to `name` at module level (`NAME = {...}` or
 * `NAME: Dict[str, X] = {...}`), outermost level only: `{"a": f, "b": {"c": 1}}` gives a, b.
 */
export function registryKeys(py: Src, name: string): string[] {
  return withPyTree(py, (root) => {
    for (const stmt of topLevel(root)) {
      const a = assignmentOf(stmt);
      if (a?.childForFieldName('left')?.text !== name) continue;
      const dict = a.childForFieldName('right');
      if (dict?.type !== 'dictionary') continue;
      const out = new Set<string>();
      for (const pair of dict.namedChildren) {
        const k = pair?.type === 'pair' ? stringValue(pair.childForFieldName('key')) : undefined;
        if (k !== undefined) out.add(k);
      }
      return [...out];
    }
    return [];
  });
}

/** Names given to a registering decorator: `@name("a")`, `@name(["a", "b"], ...)`. */
export function decoratorNames(py: Src, name: string): string[] {
  return withPyTree(py, (root) => {
    const out = new Set<string>();
    for (const dec of nodesOf(root, 'decorator')) {
      const call = dec.namedChildren[0];
      if (call?.type !== 'call' || call.childForFieldName('function')?.type !== 'identifier') continue;
      if (call.childForFieldName('function')?.text !== name) continue;
      const first = call.childForFieldName('arguments')?.namedChildren.find((c) => c?.type !== 'comment');
      if (first?.type === 'string' || first?.type === 'list') for (const v of literalStrings(first)) out.add(v);
    }
    out.delete('');
    return [...out];
  });
}

/**
 * Key paths of a dataclass config schema (`default_config/ajet_config_schema.py`, AgentJet 0.0.4):
 * from the class with a `<root>:` field, each field is a key; a field typed by (or made by
 * `default_factory=`) another dataclass of the file opens its keys beneath.
 */
export function dataclassKeys(py: Src, root: string): string[] {
  const classes = withPyTree(py, (tree) => {
    const out = new Map<string, { name: string; type: string }[]>();
    for (const cls of topLevel(tree)) {
      if (cls.type !== 'class_definition') continue;
      const fields: { name: string; type: string }[] = [];
      out.set(cls.childForFieldName('name')?.text ?? '', fields);
      for (const stmt of cls.childForFieldName('body')?.namedChildren ?? []) {
        const a = stmt && assignmentOf(stmt);
        const left = a?.childForFieldName('left');
        const type = a?.childForFieldName('type');
        if (!a || left?.type !== 'identifier' || !type) continue;
        fields.push({ name: left.text, type: factoryOf(a.childForFieldName('right')) ?? type.text.trim() });
      }
    }
    return out;
  });
  const out: string[] = [];
  // Fields of a class typed by the class again fan out (w fields, 8 levels: w^8 keys): bounded in
  // count and length as other keys are (KEY_BUDGET).
  const walk = (cls: string, prefix: string, depth: number) => {
    for (const fld of classes.get(cls) ?? []) {
      const k = prefix ? `${prefix}.${fld.name}` : fld.name;
      if (out.length >= KEY_BUDGET.maxKeys) return;
      if (k.length > KEY_BUDGET.maxChars) continue;
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

/** `X` of `field(default_factory=X)`. */
function factoryOf(right: PyNode | null | undefined): string | undefined {
  if (right?.type !== 'call') return undefined;
  for (const arg of right.childForFieldName('arguments')?.namedChildren ?? []) {
    if (arg?.type !== 'keyword_argument' || arg.childForFieldName('name')?.text !== 'default_factory') continue;
    const v = arg.childForFieldName('value');
    return v?.type === 'identifier' ? v.text : undefined;
  }
  return undefined;
}

/**
 * Whether a text can hold a `.<root>` chain: it has a `.` then `<root>` (across spaces or a line
 * continuation). The rest need not be parsed for attributeKeys.
 */
export function mayReadRoot(py: string, root: string): boolean {
  return new RegExp(String.raw`\.[\s\\]*${root}\b`).test(py);
}

const METHODS = new Set(['get', 'items', 'keys', 'values', 'pop', 'setdefault', 'update', 'copy', 'to_container']);
const KEY_RE = /^[A-Za-z_]\w*$/;

/**
 * `config.ajet.rollout.max_env_len` → `rollout.max_env_len` (and its prefixes), per root: attribute
 * chains through `.<root>` on an object (`self.config.ajet...`; imports are not attributes). The chain
 * ends at a method (`.items()`) or anything not an attribute; `.get("key")` right after the chain adds
 * the key.
 */
export function attributeKeys(py: Src, root: string): string[] {
  if (typeof py === 'string' && !mayReadRoot(py, root)) return [];
  return withPyTree(py, (tree) => {
    const chains = new KeyChains();
    // One pass, top-down, never asking a node for its parent (tree-sitter finds a parent from the
    // root down: a chain of n links walked up costs n²). In document order a call comes before its
    // callee and a chain's outermost link before the links inside it.
    const calls = new Map<number, PyNode>();
    const inner = new Set<number>();
    for (const node of nodesOf(tree, 'attribute', 'call')) {
      if (chains.keys.size >= KEY_BUDGET.maxKeys) break;
      if (node.type === 'call') {
        const fn = node.childForFieldName('function');
        if (fn?.type === 'attribute') calls.set(fn.id, node);
        continue;
      }
      if (inner.delete(node.id)) continue;
      // The outermost link: its links from the inside out, and what the innermost is on.
      const segs: string[] = [];
      let bottom: PyNode | null = node;
      for (let cur: PyNode | null = node; cur?.type === 'attribute'; cur = cur.childForFieldName('object')) {
        if (cur !== node) inner.add(cur.id);
        segs.push(cur.childForFieldName('attribute')?.text ?? '');
        bottom = cur.childForFieldName('object');
      }
      segs.reverse();
      const call = calls.get(node.id);
      calls.delete(node.id);
      for (let j = 0; j < segs.length && chains.keys.size < KEY_BUDGET.maxKeys; j++) {
        if (segs[j] !== root) continue;
        if (j === 0 && (!bottom || bottom.type === 'string' || bottom.type === 'concatenated_string')) continue;
        chains.reset();
        // A chain ends at a method (`.items()`); `.get("key")` right after it adds the key.
        for (let k = j + 1; k < segs.length; k++) {
          const seg = segs[k]!;
          if (METHODS.has(seg)) {
            const key =
              seg === 'get' && k === segs.length - 1 ? stringValue(call?.childForFieldName('arguments')?.namedChildren[0]) : undefined;
            if (key !== undefined && KEY_RE.test(key)) chains.push(key);
            break;
          }
          if (!chains.push(seg)) break;
        }
      }
    }
    return [...chains.keys];
  });
}

/** Whether the code has a `raise` statement. */
export function hasRaise(py: Src): boolean {
  return withPyTree(py, (root) => nodesOf(root, 'raise_statement').length > 0);
}
