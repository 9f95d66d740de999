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

test('until the full extension runs, every AgentJet view shows the first stage welcome, whose links are contributed commands', () => {
  interface Manifest {
    contributes: {
      views: Record<string, { id: string }[]>;
      viewsWelcome: { view: string; when?: string; contents: string }[];
      commands: { command: string }[];
    };
  }
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
  const nls = JSON.parse(readFileSync(join(repoRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const commands = new Set(pkg.contributes.commands.map((c) => c.command));
  const welcome = pkg.contributes.viewsWelcome;
  for (const { id } of Object.values(pkg.contributes.views).flat()) {
    const first = welcome.filter((w) => w.view === id && w.when === '!agentjet.loaded');
    assert.equal(first.length, 1, `${id}: first-stage welcome entries`);
    const text = nls[first[0]!.contents.replace(/^%|%$/g, '')] ?? '';
    // A link runs one of our commands: its stand-in loads the full extension, which fills the view.
    const links = [...text.matchAll(/\(command:([\w.]+)/g)].map((m) => m[1]!);
    assert.ok(links.length > 0, `${id}: no command link`);
    for (const c of links) assert.ok(commands.has(c), `${id}: ${c} is not contributed`);
  }
  // The rest only once the full extension runs (it sets the key).
  for (const w of welcome.filter((x) => x.when !== '!agentjet.loaded'))
    assert.match(w.when ?? '', /^agentjet\.loaded\b/, `${w.view}: ${w.contents}`);
  assert.match(readFileSync(join(repoRoot, 'extension', 'extension.ts'), 'utf8'), /'setContext', LOADED_KEY, true/);
  assert.match(readFileSync(join(repoRoot, 'extension', 'extension.ts'), 'utf8'), /LOADED_KEY = 'agentjet\.loaded'/);
});
