// Package aliases every Node bundle uses (scripts/build.mjs; bench/lsp.ts measures a bundle made with them).
// yaml: its browser build. The Node build reads process.env.LOG_TOKENS on every token it parses (and
// LOG_STREAM per document), an environment lookup costing about a fifth of parsing a large config; the
// browser build is the same code without those debug hooks.
// web-tree-sitter: its CommonJS build. The ESM build (what `import()` would pick) calls
// createRequire(import.meta.url), and import.meta.url is empty in a CommonJS bundle.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const nodeBundleAlias = {
  yaml: join(root, 'node_modules', 'yaml', 'browser', 'index.js'),
  'web-tree-sitter': join(root, 'node_modules', 'web-tree-sitter', 'tree-sitter.cjs'),
};
