// Regenerates schemas/agentjet.schema.json from the framework's default configs, the overlay and
// the value lists read from each version's code (schemas/codefacts.json).
//   npx tsx scripts/gen-schema.ts [--defaults DIR] [--upstream DIR] [--check]
// DIR holds ajet_default.yaml, verl/verl_default.yaml, trinity/trinity_default.yaml
// (default: $AGENTJET_SHARED_DIR or ../shared, then reference/agentjet/default_config).
// --upstream (default $AGENTJET_UPSTREAM or ../shared/reference/upstream) holds the upstream trees;
// when present, schemas/codefacts.json is rewritten from their code first.
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateSchema, schemaText } from '../core/config/schemagen';
import { codeFactsOf, PACKAGE_OF, type CodeFactsByVersion } from '../core/config/codefacts';
import type { FrameworkVersion } from '../core/agentjet/dialect';

const root = resolve(__dirname, '..');
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? resolve(args[i + 1] ?? '.') : undefined; };
const dir = opt('--defaults') ?? process.env.AGENTJET_DEFAULT_CONFIG ?? join(process.env.AGENTJET_SHARED_DIR ?? resolve(root, '..', 'shared'), 'reference', 'agentjet', 'default_config');
if (!existsSync(join(dir, 'ajet_default.yaml'))) {
  process.stderr.write(`gen-schema: no ajet_default.yaml in ${dir} (pass --defaults DIR)\n`);
  process.exit(2);
}
const check = args.includes('--check');

/** The upstream tree of each version (names as pinned in upstream.json). */
const TREES: Record<FrameworkVersion, string> = {
  'agentjet': 'agentjet-d20cce0', 'astuner-2025-12': 'astuner-f9fab4f', 'astuner-2025-11': 'astuner-61e9359', 'astune': 'astune-ba24412p',
};
const upstreamDir = opt('--upstream') ?? (process.env.AGENTJET_UPSTREAM ? resolve(process.env.AGENTJET_UPSTREAM) : resolve(root, '..', 'shared', 'reference', 'upstream'));
const factsFile = join(root, 'schemas', 'codefacts.json');
const facts: CodeFactsByVersion = existsSync(factsFile) ? (JSON.parse(readFileSync(factsFile, 'utf8')) as CodeFactsByVersion) : {};
let fromCode = 0;
for (const [version, tree] of Object.entries(TREES) as [FrameworkVersion, string][]) {
  const pkg = join(upstreamDir, tree, PACKAGE_OF[version]);
  if (!existsSync(pkg)) continue;
  const files = (readdirSync(pkg, { recursive: true }) as string[]).map((f) => f.split('\\').join('/')).filter((f) => /\.(py|jsonc?|yaml)$/.test(f)).sort();
  facts[version] = codeFactsOf((rel) => { try { return readFileSync(join(pkg, rel), 'utf8'); } catch { return undefined; } }, files, PACKAGE_OF[version]);
  fromCode++;
}
const factsText = JSON.stringify(facts, null, 2) + '\n';
if (!check && fromCode) writeFileSync(factsFile, factsText);

const text = schemaText(generateSchema({
  ajetDefault: readFileSync(join(dir, 'ajet_default.yaml'), 'utf8'),
  verlDefault: readFileSync(join(dir, 'verl', 'verl_default.yaml'), 'utf8'),
  trinityDefault: readFileSync(join(dir, 'trinity', 'trinity_default.yaml'), 'utf8'),
  overlay: readFileSync(join(root, 'schemas', 'overlay.yaml'), 'utf8'),
  codeFacts: facts,
}));
const out = join(root, 'schemas', 'agentjet.schema.json');
if (check) {
  const same = existsSync(out) && readFileSync(out, 'utf8') === text && (!fromCode || (existsSync(factsFile) && readFileSync(factsFile, 'utf8') === factsText));
  process.stdout.write(same ? 'schema is up to date\n' : 'schema is stale: run npm run gen:schema\n');
  process.exit(same ? 0 : 1);
}
writeFileSync(out, text);
process.stdout.write(`wrote ${out} (${text.length} bytes); code facts from ${fromCode} upstream tree${fromCode === 1 ? '' : 's'}\n`);
