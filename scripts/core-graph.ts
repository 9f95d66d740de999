// The import graph between the folders of core/: `npx tsx scripts/core-graph.ts` (or `npm run deps:core`).
// It reads every core/**/*.ts with the TypeScript parser, keeps the value imports that cross from one
// core folder to another (`import type`, `export type` and imports whose every name is a type are left
// out: they vanish from the bundle), prints the folder graph, any cycle between folders, and any import
// from a lower layer into a higher one (the layers are core/layers.json, which eslint.config.mjs reads
// too). Exit 1 on a cycle or a layer break.
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One value import from a file of one core folder into another core folder. */
export interface CoreImport {
  /** The importing file, relative to core/ with forward slashes (`launch/plan.ts`). */
  file: string;
  line: number;
  /** The module specifier as written. */
  specifier: string;
  from: string;
  to: string;
}

/** folder -> folder -> the imports behind that edge. */
export type CoreGraph = Map<string, Map<string, CoreImport[]>>;

/** The layers, lowest first; a folder may import its own layer and the ones below. */
export type Layers = readonly (readonly string[])[];

/** core/layers.json: the one written order of the layers (eslint.config.mjs reads the same file). */
export function readLayers(coreDir: string): Layers {
  const parsed = JSON.parse(readFileSync(join(coreDir, 'layers.json'), 'utf8')) as { layers: string[][] };
  return parsed.layers;
}

/** Every .ts file under `dir`, skipping `skip` (relative paths with forward slashes). */
function tsFiles(dir: string, coreDir: string, skip: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(coreDir, path).split(sep).join('/');
    if (skip.has(rel)) continue;
    if (entry.isDirectory()) out.push(...tsFiles(path, coreDir, skip));
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** True when an import or export clause brings in no value (all of it is `type`). */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false; // `import './x'` runs the module
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const bindings = clause.namedBindings;
    if (!bindings || ts.isNamespaceImport(bindings)) return false;
    return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || ts.isNamespaceExport(clause)) return false;
  return clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** The value-import specifiers of one source text, with their lines (static imports, re-exports, `import()`). */
export function valueImports(fileName: string, text: string): { specifier: string; line: number }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: { specifier: string; line: number }[] = [];
  const add = (lit: ts.Expression): void => {
    if (ts.isStringLiteralLike(lit)) out.push({ specifier: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (!typeOnly(node)) add(node.moduleSpecifier);
      return;
    }
    if (ts.isImportEqualsDeclaration(node)) {
      if (!node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
      return;
    }
    // import('../x') loads the module at run time: a value dependency like any other.
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/**
 * The folder graph of `coreDir`. A file's folder is the first path segment under core/ (core/ray/hook/x.ts
 * is in `ray`); files directly in core/ are in `.`. `extra` adds or replaces files (path relative to core/
 * -> text) so a caller can try an import without touching the tree.
 */
export function coreGraph(coreDir: string, extra: Record<string, string> = {}): CoreGraph {
  const root = resolve(coreDir);
  // AssemblyScript, compiled by its own toolchain and imported by nothing in TypeScript.
  const skip = new Set(['logs/wasm']);
  const sources = new Map<string, string>();
  for (const path of tsFiles(root, root, skip)) sources.set(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  for (const [rel, text] of Object.entries(extra)) sources.set(rel, text);

  const folderOf = (rel: string): string => (rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '.');
  const graph: CoreGraph = new Map();
  for (const [rel, text] of sources) {
    const from = folderOf(rel);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const { specifier, line } of valueImports(rel, text)) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(rel), specifier))
        .split(sep)
        .join('/');
      if (target.startsWith('..')) continue; // outside core/ (the fence in eslint.config.mjs refuses those)
      // '../l10n' is the folder's index.ts: the first segment names the folder either way.
      const to = target.split('/')[0]!;
      if (to === from) continue;
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to)!.push({ file: rel, line, specifier, from, to });
    }
  }
  return graph;
}

/** Every elementary cycle between folders, each as its folders in order, smallest folder first. */
export function findCycles(graph: CoreGraph): string[][] {
  const nodes = [...graph.keys()].sort();
  const cycles: string[][] = [];
  // Johnson-style enumeration, small enough here: start from each node, visit only larger ones.
  for (const start of nodes) {
    const path: string[] = [start];
    const onPath = new Set([start]);
    const walk = (node: string): void => {
      for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
        if (next === start) cycles.push([...path]);
        else if (next > start && !onPath.has(next)) {
          path.push(next);
          onPath.add(next);
          walk(next);
          onPath.delete(next);
          path.pop();
        }
      }
    };
    walk(start);
  }
  return cycles;
}

/** Imports from a folder into a folder of a higher layer, plus folders the layers do not name. */
export function layerBreaks(graph: CoreGraph, layers: Layers): { breaks: CoreImport[]; unplaced: string[] } {
  const rank = new Map<string, number>();
  layers.forEach((layer, i) => layer.forEach((folder) => rank.set(folder, i)));
  const breaks: CoreImport[] = [];
  const unplaced = new Set<string>();
  for (const [from, edges] of graph) {
    if (!rank.has(from)) unplaced.add(from);
    for (const [to, imports] of edges) {
      if (!rank.has(to)) unplaced.add(to);
      if ((rank.get(to) ?? -1) > (rank.get(from) ?? Infinity)) breaks.push(...imports);
    }
  }
  return { breaks, unplaced: [...unplaced].sort() };
}

/** The report `npm run deps:core` prints; `ok` is false on a cycle, a layer break or an unplaced folder. */
export function report(graph: CoreGraph, layers: Layers): { text: string; ok: boolean } {
  const lines: string[] = [];
  const rank = new Map<string, number>();
  layers.forEach((layer, i) => layer.forEach((folder) => rank.set(folder, i)));
  lines.push('core/ value imports between folders (layer: folder -> folders it imports, with the number of imports):');
  const folders = [...graph.keys()].sort((a, b) => (rank.get(b) ?? 99) - (rank.get(a) ?? 99) || a.localeCompare(b));
  for (const folder of folders) {
    const edges = [...graph.get(folder)!].sort(([a], [b]) => a.localeCompare(b));
    const targets = edges.map(([to, imports]) => `${to} (${imports.length})`).join(', ');
    lines.push(`  ${String(rank.get(folder) ?? '?').padStart(2)}: ${folder.padEnd(10)} -> ${targets || '(nothing)'}`);
  }
  const cycles = findCycles(graph);
  const { breaks, unplaced } = layerBreaks(graph, layers);
  for (const cycle of cycles) {
    lines.push(`cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
    for (let i = 0; i < cycle.length; i++) {
      const from = cycle[i]!;
      const to = cycle[(i + 1) % cycle.length]!;
      const first = graph.get(from)!.get(to)![0]!;
      lines.push(`  ${from} -> ${to}: core/${first.file}:${first.line} imports '${first.specifier}'`);
    }
  }
  for (const b of breaks)
    lines.push(`layer break: core/${b.file}:${b.line} (${b.from}) imports '${b.specifier}' (${b.to}, a higher layer)`);
  for (const u of unplaced) lines.push(`folder not in core/layers.json: ${u}`);
  const ok = cycles.length === 0 && breaks.length === 0 && unplaced.length === 0;
  lines.push(
    ok ? 'no cycle, no layer break' : `${cycles.length} cycle(s), ${breaks.length} layer break(s), ${unplaced.length} unplaced folder(s)`,
  );
  return { text: lines.join('\n'), ok };
}

if (require.main === module) {
  const coreDir = join(__dirname, '..', 'core');
  const { text, ok } = report(coreGraph(coreDir), readLayers(coreDir));
  console.log(text);
  process.exitCode = ok ? 0 : 1;
}
