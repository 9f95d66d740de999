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
for (const p of projects) {
  const path = join(repoRoot, p);
  const read = ts.readConfigFile(path, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(path));
  for (const f of parsed.fileNames) files.add(f);
}
const program = ts.createProgram([...files], {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: ['node', 'mocha'],
  resolveJsonModule: true,
  allowImportingTsExtensions: true,
  noEmit: true,
  skipLibCheck: true,
});
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
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

const isEntry = (file: string, name: string): boolean =>
  /\.test\.ts$/.test(file) || (file === 'extension/extension.ts' && (name === 'activate' || name === 'deactivate')) || file.startsWith('test/exthost/suites/') || file === 'test/exthost/index.ts';

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
