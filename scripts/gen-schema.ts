// Regenerates schemas/agentjet.schema.json from the framework's default configs and the overlay.
//   npm run gen:schema [-- --agentjet DIR] [--defaults DIR] [--check]
// --agentjet DIR: an AgentJet source tree (its ajet/default_config/ is read). Default: the
// agentjet-d20cce0 tree found as the tests find it (test/util/upstream.ts: $AGENTJET_UPSTREAM, the shared
// reference folder, the `npm run fetch:upstream` cache). --defaults DIR: a folder holding ajet_default.yaml,
// verl/verl_default.yaml and trinity/trinity_default.yaml directly.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateSchema, schemaText } from '../core/config/schemagen';
import { findUpstream, UPSTREAM_SKIP } from '../test/util/upstream';

const root = resolve(__dirname, '..');
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (!v || v.startsWith('--')) {
    process.stderr.write(`gen-schema: ${name} needs a folder\n`);
    process.exit(2);
  }
  return resolve(v);
};

function defaultsDir(): string {
  const d = opt('--defaults');
  if (d) return d;
  const aj = opt('--agentjet') ?? findUpstream('agentjet-d20cce0');
  if (!aj) {
    process.stderr.write(`gen-schema: no AgentJet tree: pass --agentjet DIR (an AgentJet checkout), or ${UPSTREAM_SKIP.replace(/^needs the upstream AgentJet trees: /, '')}\n`);
    process.exit(2);
  }
  return join(aj, 'ajet', 'default_config');
}

const dir = defaultsDir();
const files = { ajet: join(dir, 'ajet_default.yaml'), verl: join(dir, 'verl', 'verl_default.yaml'), trinity: join(dir, 'trinity', 'trinity_default.yaml') };
const missing = Object.values(files).filter((f) => !existsSync(f));
if (missing.length > 0) {
  process.stderr.write(`gen-schema: missing ${missing.join(', ')} (is ${dir} AgentJet's default_config folder?)\n`);
  process.exit(2);
}
const text = schemaText(generateSchema({
  ajetDefault: readFileSync(files.ajet, 'utf8'),
  verlDefault: readFileSync(files.verl, 'utf8'),
  trinityDefault: readFileSync(files.trinity, 'utf8'),
  overlay: readFileSync(join(root, 'schemas', 'overlay.yaml'), 'utf8'),
}));
const out = join(root, 'schemas', 'agentjet.schema.json');
if (args.includes('--check')) {
  const same = existsSync(out) && readFileSync(out, 'utf8') === text;
  process.stdout.write(same ? `schema is up to date (${dir})\n` : 'schema is stale: run npm run gen:schema\n');
  process.exit(same ? 0 : 1);
}
writeFileSync(out, text);
process.stdout.write(`wrote ${out} (${text.length} bytes) from ${dir}\n`);
