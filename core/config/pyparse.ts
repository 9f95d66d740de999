// Python syntax trees for the code facts (core/config/codefacts.ts): tree-sitter's Python grammar
// run by web-tree-sitter (WebAssembly, no native module, no network). Nothing loads until the first
// `loadPython()`: the runtime and the grammar are two .wasm files the build copies beside the
// bundles (scripts/build.mjs); from the sources (tests, tsx scripts) they are found in node_modules.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Node, Parser as TSParser, Tree } from 'web-tree-sitter';

export type PyNode = Node;

/** The two WebAssembly files: the runtime (web-tree-sitter) and the Python grammar. */
export const PY_WASM = [
  { file: 'tree-sitter.wasm', pkg: 'web-tree-sitter' },
  { file: 'tree-sitter-python.wasm', pkg: 'tree-sitter-python' },
] as const;

/** A .wasm file beside this bundle (dist/), or in node_modules of a folder above this source file. */
export function pyWasmPath(file: string, pkg: string): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    for (const p of [join(dir, file), join(dir, 'node_modules', pkg, file)]) if (existsSync(p)) return p;
    if (dirname(dir) === dir) throw new Error(`${file} is missing (looked beside ${__dirname} and in node_modules above it)`);
  }
}

let loading: Promise<TSParser> | undefined;
let loaded: TSParser | undefined;

/** Loads the parser once (about 25 ms); later calls return the same one. */
export function loadPython(): Promise<TSParser> {
  loading ??= (async () => {
    const { Parser, Language } = await import('web-tree-sitter');
    const runtime = pyWasmPath(PY_WASM[0].file, PY_WASM[0].pkg);
    await Parser.init({ locateFile: () => runtime });
    const python = await Language.load(pyWasmPath(PY_WASM[1].file, PY_WASM[1].pkg));
    const parser = new Parser();
    parser.setLanguage(python);
    loaded = parser;
    return parser;
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/** The syntax tree of a Python text; the caller frees it (`tree.delete()`). Needs `await loadPython()` first. */
export function parsePython(py: string): Tree {
  if (!loaded) throw new Error('the Python parser is not loaded: await loadPython() first');
  const tree = loaded.parse(py);
  if (!tree) throw new Error('the Python parser gave no tree');
  return tree;
}

/**
 * Runs `fn` on the syntax tree of `py` (a text is parsed and its tree freed after; a node is used
 * as given). Needs `await loadPython()` first.
 */
export function withPyTree<T>(py: string | PyNode, fn: (root: PyNode) => T): T {
  if (typeof py !== 'string') return fn(py);
  const tree = parsePython(py);
  try {
    return fn(tree.rootNode);
  } finally {
    tree.delete();
  }
}

/** Every node below `root` whose type is in `types`, in document order (the search runs inside the WebAssembly). */
export function nodesOf(root: PyNode, ...types: string[]): PyNode[] {
  return root.descendantsOfType(types).filter((n): n is PyNode => n !== null);
}

/** The value of a plain string literal (no f-string interpolation, no implicit concatenation), else undefined. */
export function stringValue(n: PyNode | null | undefined): string | undefined {
  if (n?.type !== 'string') return undefined;
  let out = '';
  for (const c of n.namedChildren) {
    if (!c) continue;
    if (c.type === 'interpolation') return undefined;
    if (c.type === 'string_content' || c.type === 'escape_sequence') out += c.text;
  }
  return out;
}

/** The name an expression ends in: `x` for `x` and for `a.b.x`. */
export function tailName(n: PyNode | null | undefined): string | undefined {
  if (n?.type === 'identifier') return n.text;
  if (n?.type === 'attribute') return n.childForFieldName('attribute')?.text;
  return undefined;
}
