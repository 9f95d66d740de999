// Regenerates schemas/agentjet.schema.json from the framework's default configs and the overlay.
//   npx tsx scripts/gen-schema.ts [--defaults DIR] [--check]
// DIR holds ajet_default.yaml, verl/verl_default.yaml, trinity/trinity_default.yaml
// (default: $AGENTJET_SHARED_DIR or ../shared, then reference/agentjet/default_config).
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateSchema, schemaText } from '../core/config/schemagen';

const root = resolve(__dirname, '..');
const args = process.argv.slice(2);
const i = args.indexOf('--defaults');
const dir = i >= 0 ? resolve(args[i + 1] ?? '.') : process.env.AGENTJET_DEFAULT_CONFIG ?? join(process.env.AGENTJET_SHARED_DIR ?? resolve(root, '..', 'shared'), 'reference', 'agentjet', 'default_config');
if (!existsSync(join(dir, 'ajet_default.yaml'))) {
  process.stderr.write(`gen-schema: no ajet_default.yaml in ${dir} (pass --defaults DIR)\n`);
  process.exit(2);
}
const text = schemaText(generateSchema({
  ajetDefault: readFileSync(join(dir, 'ajet_default.yaml'), 'utf8'),
  verlDefault: readFileSync(join(dir, 'verl', 'verl_default.yaml'), 'utf8'),
  trinityDefault: readFileSync(join(dir, 'trinity', 'trinity_default.yaml'), 'utf8'),
  overlay: readFileSync(join(root, 'schemas', 'overlay.yaml'), 'utf8'),
}));
const out = join(root, 'schemas', 'agentjet.schema.json');
if (args.includes('--check')) {
  const same = existsSync(out) && readFileSync(out, 'utf8') === text;
  process.stdout.write(same ? 'schema is up to date\n' : 'schema is stale: run npm run gen:schema\n');
  process.exit(same ? 0 : 1);
}
writeFileSync(out, text);
process.stdout.write(`wrote ${out} (${text.length} bytes)\n`);
