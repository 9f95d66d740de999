// Bundles every entry point with esbuild. Entries are discovered so that a feature adds a file,
// not a line here: node entries by fixed path, webviews as media/<name>/main.ts, extension-host
// test suites as test/exthost/**/*.ts.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, rmSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBundleAlias } from './bundleAlias.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const withTests = !args.has('--no-tests');

const nodeEntries = [
  // The first stage VS Code activates (package.json main), and the full extension it loads once AgentJet shows.
  ['extension/gate/main.ts', 'dist/extension.js'],
  ['extension/extension.ts', 'dist/full.js'],
  ['language-server/server.ts', 'dist/server.js'],
  ['debug-adapter/adapter.ts', 'dist/adapter.js'],
  // The CLI: a launcher (package.json bin) that loads `log`'s own small bundle or the whole CLI.
  ['cli/entry.ts', 'dist/cli.js'],
  ['cli/main.ts', 'dist/cli-main.js'],
  ['cli/logMain.ts', 'dist/cli-log.js'],
  // Token log whole-file work (stats, export, search) on worker threads; core/logs/pool.ts finds it beside the bundle.
  ['core/logs/worker.ts', 'dist/logworker.js'],
  // `agentjet runs` inspects large run trees on two threads; core/runs/parallel.ts finds it beside the bundle.
  ['core/runs/inspectWorker.ts', 'dist/runsworker.js'],
  // The dashboard's training metrics read off the extension host's thread; core/metrics/offThread.ts finds it beside the bundle.
  ['core/metrics/worker.ts', 'dist/metricsworker.js'],
].filter(([src]) => existsSync(join(root, src)));

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const webviewEntries = existsSync(join(root, 'media'))
  ? readdirSync(join(root, 'media'))
      .filter((d) => existsSync(join(root, 'media', d, 'main.ts')))
      .map((d) => [join('media', d, 'main.ts'), join('dist', 'media', `${d}.js`)])
  : [];

const testEntries = withTests
  ? walk(join(root, 'test', 'exthost')).map((abs) => {
      const rel = relative(root, abs);
      return [rel, join('dist', rel.replace(/\.ts$/, '.js'))];
    })
  : [];

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};

/** @type {esbuild.BuildOptions[]} */
const builds = [
  ...nodeEntries.map(([src, out]) => ({
    ...common,
    entryPoints: [src],
    outfile: out,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    alias: nodeBundleAlias,
    // Python scripts run by the extension/CLI (core/doctor/probe.py) are bundled as text.
    loader: { '.py': 'text' },
    ...(src.startsWith('cli/') ? { banner: { js: '#!/usr/bin/env node' } } : {}),
  })),
  ...webviewEntries.map(([src, out]) => ({
    ...common,
    entryPoints: [src],
    outfile: out,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    loader: { '.css': 'css' },
  })),
  ...testEntries.map(([src, out]) => ({
    ...common,
    sourcemap: 'inline',
    minify: false,
    entryPoints: [src],
    outfile: out,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // mocha must be the one the extension host loads from node_modules, not a bundled copy.
    external: ['vscode', 'mocha'],
    alias: nodeBundleAlias,
    // Tests that reach the launch preflight bundle the probe (core/doctor/probe.py) as the extension does.
    loader: { '.py': 'text' },
  })),
];

if (!watch) rmSync(join(root, 'dist'), { recursive: true, force: true });
const started = Date.now();
// The math template's Python is the demo's (core/templates/mathSources.ts reads it beside the bundles).
mkdirSync(join(root, 'dist', 'templates', 'math'), { recursive: true });
for (const f of ['workflow.py', 'judge.py']) cpSync(join(root, 'demo', 'math_demo', f), join(root, 'dist', 'templates', 'math', f));
// The Python parser of the code facts (core/config/pyparse.ts): web-tree-sitter's runtime and the
// Python grammar, both WebAssembly, beside the bundles (loaded on first use, never fetched).
cpSync(join(root, 'node_modules', 'web-tree-sitter', 'tree-sitter.wasm'), join(root, 'dist', 'tree-sitter.wasm'));
cpSync(join(root, 'node_modules', 'tree-sitter-python', 'tree-sitter-python.wasm'), join(root, 'dist', 'tree-sitter-python.wasm'));
if (watch) {
  for (const b of builds) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
  console.log(`watching ${builds.length} entry points`);
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  console.log(`built ${builds.length} bundles in ${Date.now() - started} ms${production ? ' (production)' : ''}`);
}
