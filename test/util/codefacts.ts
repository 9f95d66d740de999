// The code facts (core/config/codefacts.ts) of a framework version, read from its upstream tree on
// disk: what `npm run gen:schema` writes to schemas/codefacts.json and the conformance test checks.
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { codeFactsOf, PACKAGE_OF, type CodeFacts } from '../../core/config/codefacts';
import type { FrameworkVersion } from '../../core/agentjet/dialect';

export function codeFactsOfTree(tree: string, version: FrameworkVersion): CodeFacts {
  const pkg = join(tree, PACKAGE_OF[version]);
  const files = (readdirSync(pkg, { recursive: true }) as string[])
    .map((f) => f.split(sep).join('/'))
    .filter((f) => /\.(py|jsonc?|yaml)$/.test(f))
    .sort();
  const read = (rel: string): string | undefined => {
    try {
      return readFileSync(join(pkg, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  return codeFactsOf(read, files, PACKAGE_OF[version]);
}
