// Issue 42 item 2: the extension's first stage (extension/gate, dist/extension.js) is what every
// window with YAML or Python pays for. It must stay small: no YAML parser, no language client, no
// feature code, only VS Code's API, Node's built-ins and its own few files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from '../util/paths';

/** The files a module pulls in at run time (type-only imports excluded), and the packages it names. */
function runtimeGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (abs: string) => {
    const rel = relative(repoRoot, abs);
    if (files.has(rel)) return;
    files.add(rel);
    const text = readFileSync(abs, 'utf8');
    for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm)) {
      if (m[2]) continue;
      const spec = m[3]!;
      if (spec.startsWith('.')) visit(join(dirname(abs), `${spec}.ts`));
      else packages.add(spec);
    }
    for (const m of text.matchAll(/^import\s+'([^']+)'/gm)) packages.add(m[1]!);
  };
  visit(join(repoRoot, entry));
  return { files, packages };
}

test('the first stage imports only its own files, the cheap config test, vscode and Node built-ins', () => {
  const { files, packages } = runtimeGraph('extension/gate/main.ts');
  const allowed = new Set([
    'extension/gate/main.ts',
    'extension/gate/probe.ts',
    'extension/gate/proxies.ts',
    'extension/gate/log.ts',
    'core/agentjet/rootLine.ts',
    'core/config/probeOrder.ts',
  ]);
  assert.deepEqual(
    [...files].filter((f) => !allowed.has(f)),
    [],
  );
  assert.deepEqual(
    [...packages].filter((p) => p !== 'vscode' && !p.startsWith('node:')),
    [],
  );
});

test('VS Code starts the first stage; the full extension is a separate bundle it loads by path', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string };
  assert.equal(pkg.main, './dist/extension.js');
  const build = readFileSync(join(repoRoot, 'scripts', 'build.mjs'), 'utf8');
  assert.match(build, /\['extension\/gate\/main\.ts', 'dist\/extension\.js'\]/);
  assert.match(build, /\['extension\/extension\.ts', 'dist\/full\.js'\]/);
  assert.match(readFileSync(join(repoRoot, '.vscodeignore'), 'utf8'), /^!dist\/full\.js$/m);
});
