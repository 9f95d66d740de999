// Lists exports nothing else imports: `npx tsx scripts/dead-exports.ts` (exit 0; it reports, the
// reader decides). One program over the three TypeScript projects (node sides, webviews, UI tests);
// an export is used when an identifier in another file resolves to it (types count, re-exports count).
// Entry points that the outside world calls are not reported (activate/deactivate, test files).
// Not seen: uses from .mjs files (scripts/test-all.mjs requires test/util/upstream.ts) and from text.
import ts from 'typescript';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from '../test/util/paths';

const projects = ['tsconfig.json', 'media/tsconfig.json', 'test/ui/tsconfig.json'];
const files = new Set<string>();
let options: ts.CompilerOptions = {};
for (const p of projects) {
  const path = join(repoRoot, p);
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(path, (f) => ts.sys.readFile(f)).config, ts.sys, dirname(path));
  for (const f of parsed.fileNames) files.add(f);
  if (p === 'tsconfig.json') options = parsed.options;
}
const program = ts.createProgram([...files], { ...options, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], noEmit: true, skipLibCheck: true });
const checker = program.getTypeChecker();
const ours = program.getSourceFiles().filter((sf) => files.has(sf.fileName) && !sf.isDeclarationFile);

const used = new Set<ts.Symbol>();
const resolve = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
for (const sf of ours) {
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isStringLiteral(node)) {
      const sym = checker.getSymbolAtLocation(node);
      if (sym) {
        const target = resolve(sym);
        // `ns.x` after `import * as ns` resolves x itself, so namespace imports count too.
        if (target.declarations?.some((d) => d.getSourceFile() !== sf)) used.add(target);
      }
    }
    // `const { x } = await import('./m')` (and any destructuring): x is the property of the value's type.
    if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      const key = node.propertyName ?? node.name;
      const decl = node.parent.parent;
      const source = ts.isVariableDeclaration(decl) && decl.initializer ? decl.initializer : node.parent;
      const prop = ts.isIdentifier(key) ? checker.getTypeAtLocation(source).getProperty(key.text) : undefined;
      if (prop && prop.declarations?.some((d) => d.getSourceFile() !== sf)) used.add(resolve(prop));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

const isEntry = (file: string, name: string): boolean =>
  /\.test\.ts$/.test(file) ||
  (file === 'extension/extension.ts' && (name === 'activate' || name === 'deactivate')) ||
  file.startsWith('test/exthost/suites/') ||
  file === 'test/exthost/index.ts';

const dead: string[] = [];
for (const sf of ours) {
  const mod = checker.getSymbolAtLocation(sf);
  if (!mod) continue;
  const rel = relative(repoRoot, sf.fileName);
  for (const exp of checker.getExportsOfModule(mod)) {
    const target = resolve(exp);
    if (used.has(target) || isEntry(rel, exp.name)) continue;
    const decl = exp.declarations?.[0];
    if (!decl || decl.getSourceFile() !== sf) continue; // re-exports are reported where declared
    const line = sf.getLineAndCharacterOfPosition(decl.getStart()).line + 1;
    dead.push(`${rel}:${line}\t${exp.name}`);
  }
}
dead.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
console.log(dead.join('\n'));
console.error(`${dead.length} exports nothing else imports (${ours.length} files)`);
