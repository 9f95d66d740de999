// The Node bundles parse YAML with yaml's browser build (scripts/bundleAlias.mjs): the same parser
// without the per-token process.env lookups of its Node build. This checks the alias still points at
// such a build, so a yaml upgrade that moves or changes it fails here rather than slowing validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../util/paths';

function jsFiles(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) jsFiles(p, out);
    else if (n.endsWith('.js')) out.push(p);
  }
  return out;
}

test('yaml alias: a build of the same version with no process.env in its parser', async () => {
  const { nodeBundleAlias } = (await import(pathToFileURL(join(repoRoot, 'scripts', 'bundleAlias.mjs')).href)) as {
    nodeBundleAlias: Record<string, string>;
  };
  const entry = nodeBundleAlias.yaml!;
  const files = jsFiles(dirname(entry));
  assert.ok(
    files.some((f) => f.endsWith(join('parse', 'parser.js'))),
    `no parser under ${dirname(entry)}`,
  );
  for (const f of files) assert.doesNotMatch(readFileSync(f, 'utf8'), /process\.env|node:process/, f);
  const browser = (await import(pathToFileURL(entry).href)) as typeof import('yaml');
  const node = await import('yaml');
  const text = 'ajet:\n  a: 1\n  a: 2\n  b: [x, {y: z}]\n';
  const opts = { merge: true, prettyErrors: false, strict: false, uniqueKeys: true } as const;
  assert.deepEqual(
    browser.parseAllDocuments(text, opts).map((d) => [d.toJS(), d.errors.map((e) => e.code)]),
    node.parseAllDocuments(text, opts).map((d) => [d.toJS(), d.errors.map((e) => e.code)]),
  );
});
