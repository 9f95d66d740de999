// Regenerates schemas/agentjet.schema.json from the framework's default configs, the overlay and
// the value lists read from each version's code (schemas/codefacts.json).
//   npm run gen:schema [-- --agentjet DIR] [--defaults DIR] [--upstream DIR] [--check]
// --agentjet DIR: an AgentJet source tree (its ajet/default_config/ is read). Default: the
// agentjet-d20cce0 tree found as the tests find it (test/util/upstream.ts: $AGENTJET_UPSTREAM, the shared
// reference folder, the `npm run fetch:upstream` cache). --defaults DIR: a folder holding ajet_default.yaml,
// verl/verl_default.yaml and trinity/trinity_default.yaml directly. --upstream DIR: a folder of upstream
// trees (default: the same lookup, per tree); where a version's tree is found, its code facts are re-read.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateSchema, parseOverlay, schemaText } from '../core/config/schemagen';
import { PACKAGE_OF, type CodeFactsByVersion } from '../core/config/codefacts';
import type { FrameworkVersion } from '../core/agentjet/dialect';
import { findUpstream, UPSTREAM_SKIP, type UpstreamName } from '../test/util/upstream';
import { untranslatedDescriptions } from '../core/config/schemaDescriptions';
import { codeFactsOfDir, generateFromSnapshot, readPackageSync } from '../core/config/factsgen';
import { loadPython } from '../core/config/pyparse';
import { jsonDiff, type Json } from '../core/config/jsonDiff';
import { BASE_RELEASE, BUNDLED_RELEASES, type ReleasesFile } from '../core/config/releases';

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
const check = args.includes('--check');

function defaultsDir(): string {
  const d = opt('--defaults');
  if (d) return d;
  const aj = opt('--agentjet') ?? findUpstream('agentjet-d20cce0');
  if (!aj) {
    process.stderr.write(
      `gen-schema: no AgentJet tree: pass --agentjet DIR (an AgentJet checkout), or ${UPSTREAM_SKIP.replace(/^needs the upstream AgentJet trees: /, '')}\n`,
    );
    process.exit(2);
  }
  return join(aj, 'ajet', 'default_config');
}

async function main(): Promise<void> {
  // The code facts are read from Python syntax trees: the parser loads first.
  await loadPython();
  const dir = defaultsDir();
  const files = {
    ajet: join(dir, 'ajet_default.yaml'),
    verl: join(dir, 'verl', 'verl_default.yaml'),
    trinity: join(dir, 'trinity', 'trinity_default.yaml'),
  };
  const missing = Object.values(files).filter((f) => !existsSync(f));
  if (missing.length > 0) {
    process.stderr.write(`gen-schema: missing ${missing.join(', ')} (is ${dir} AgentJet's default_config folder?)\n`);
    process.exit(2);
  }

  /** The upstream tree of each version (names as pinned in upstream.json). */
  const TREES: Record<FrameworkVersion, UpstreamName> = {
    agentjet: 'agentjet-d20cce0',
    'astuner-2025-12': 'astuner-f9fab4f',
    'astuner-2025-11': 'astuner-61e9359',
    astune: 'astune-ba24412p',
  };
  const upstreamOpt = opt('--upstream');
  const treeDir = (name: UpstreamName): string | undefined => (upstreamOpt ? join(upstreamOpt, name) : findUpstream(name));
  const factsFile = join(root, 'schemas', 'codefacts.json');
  const facts: CodeFactsByVersion = existsSync(factsFile) ? (JSON.parse(readFileSync(factsFile, 'utf8')) as CodeFactsByVersion) : {};
  let fromCode = 0;
  for (const [version, tree] of Object.entries(TREES) as [FrameworkVersion, UpstreamName][]) {
    const t = treeDir(tree);
    if (!t) continue;
    if (!existsSync(join(t, PACKAGE_OF[version]))) continue;
    facts[version] = codeFactsOfDir(join(t, PACKAGE_OF[version]), PACKAGE_OF[version]);
    fromCode++;
  }
  const factsText = JSON.stringify(facts, null, 2) + '\n';
  if (!check && fromCode) writeFileSync(factsFile, factsText);

  const overlayDoc = parseOverlay(readFileSync(join(root, 'schemas', 'overlay.yaml'), 'utf8'));
  const generated = generateSchema({
    ajetDefault: readFileSync(files.ajet, 'utf8'),
    verlDefault: readFileSync(files.verl, 'utf8'),
    trinityDefault: readFileSync(files.trinity, 'utf8'),
    overlay: overlayDoc,
    codeFacts: facts,
    release: { release: BASE_RELEASE.release, date: BASE_RELEASE.date },
  });
  const text = schemaText(generated);
  // The overlay parsed, for the same generator at run time (the user's own AgentJet).
  const overlayText = JSON.stringify(overlayDoc, null, 1) + '\n';
  // Each later release bundled as its differences from the base schema, generated from its tree.
  const releasesFile = join(root, 'schemas', 'releases.json');
  const releases: ReleasesFile = existsSync(releasesFile)
    ? (JSON.parse(readFileSync(releasesFile, 'utf8')) as ReleasesFile)
    : { comment: '', releases: {} };
  releases.comment =
    'AgentJet releases bundled besides the base schema (agentjet.schema.json): each is the JSON difference (core/config/jsonDiff.ts) from it of the schema the same generator makes from that release tree. Written by npm run gen:schema.';
  for (const r of BUNDLED_RELEASES) {
    const t = upstreamOpt ? join(upstreamOpt, r.tree) : findUpstream(r.tree as UpstreamName);
    if (!t || !existsSync(join(t, 'ajet', 'default_config'))) continue;
    const g = generateFromSnapshot(readPackageSync(join(t, 'ajet')), overlayDoc, facts, { release: r.release, date: r.date });
    if (!g) continue;
    releases.releases[r.id] = { patch: jsonDiff(generated as unknown as Json, g.schema as unknown as Json) ?? {} };
    fromCode++;
  }
  const releasesText = JSON.stringify(releases) + '\n';
  // The key descriptions' Chinese (hover, completion) follows the English: say when it has to.
  const untranslated = untranslatedDescriptions(generated);
  if (untranslated.length)
    process.stdout.write(
      `${untranslated.length} key description${untranslated.length === 1 ? '' : 's'} without a current zh-cn translation (${untranslated
        .map((x) => x.path)
        .join(', ')}): update core/l10n/schema.zh-cn.json (test/unit/l10n.test.ts fails until then)\n`,
    );
  const out = join(root, 'schemas', 'agentjet.schema.json');
  if (check) {
    const same =
      existsSync(out) &&
      readFileSync(out, 'utf8') === text &&
      readFileSync(join(root, 'schemas', 'overlay.json'), 'utf8') === overlayText &&
      (!fromCode || readFileSync(releasesFile, 'utf8') === releasesText) &&
      (!fromCode || (existsSync(factsFile) && readFileSync(factsFile, 'utf8') === factsText));
    process.stdout.write(same ? `schema is up to date (${dir})\n` : 'schema is stale: run npm run gen:schema\n');
    process.exit(same ? 0 : 1);
  }
  writeFileSync(out, text);
  writeFileSync(join(root, 'schemas', 'overlay.json'), overlayText);
  writeFileSync(releasesFile, releasesText);
  process.stdout.write(
    `wrote ${out} (${text.length} bytes) from ${dir}; code facts from ${fromCode} upstream tree${fromCode === 1 ? '' : 's'}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`gen-schema: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
