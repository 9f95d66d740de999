// Moves every user-visible string of package.json into package.nls.json and leaves a %key% in its
// place (VS Code then shows package.nls.<locale>.json's text when the UI language matches).
// Idempotent: strings already written as %key% are kept, new ones get a key from where they sit.
//   node scripts/nls.mjs          rewrite package.json + package.nls.json
//   node scripts/nls.mjs --check  exit 1 (and list them) when a string is not yet localised
// See CONTRIBUTING.md, "Adding a user-visible string".
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const pkgPath = join(root, 'package.json');
const nlsPath = join(root, 'package.nls.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
let nls = {};
try {
  nls = JSON.parse(readFileSync(nlsPath, 'utf8'));
} catch {
  /* first run */
}

/** Product names stay as they are in every language. */
const KEEP = new Set(['AgentJet', 'AgentJet Run Log', 'agentjet-log']);
const TEXT_KEYS = new Set([
  'title',
  'description',
  'markdownDescription',
  'displayName',
  'contents',
  'contextualTitle',
  'altText',
  'category',
  'label',
  'enumDescriptions',
  'markdownEnumDescriptions',
  'markdownDeprecationMessage',
  'deprecationMessage',
  // Language-model tools: what the chat shows (userDescription) and what the model reads to pick a tool.
  'userDescription',
  'modelDescription',
]);
/** Values written into the user's files or matched by id: never localised. */
const SKIP_UNDER = [
  /^contributes\.debuggers\.\d+\.(initialConfigurations|configurationSnippets\.\d+\.body)/,
  /^contributes\.languages/,
  /^contributes\.grammars/,
  /^contributes\.breakpoints/,
  /^contributes\.menus/,
  // A tool's input schema is read by the model and must equal core/agents/tools.ts's (test/unit/agents-tools.test.ts).
  /^contributes\.languageModelTools\.\d+\.inputSchema/,
];

const missing = [];
const used = new Set(Object.keys(nls));

function idOf(el, i) {
  if (el && typeof el === 'object') {
    for (const k of ['id', 'command', 'view', 'viewType', 'type', 'name'])
      if (typeof el[k] === 'string' && !el[k].startsWith('%')) return el[k];
  }
  return String(i);
}

function place(path, value) {
  const m = /^%(.+)%$/.exec(value);
  if (m) return value; // already localised
  if (KEEP.has(value)) return value;
  let key = path.replace(/^contributes\./, '').replace(/\.properties\./g, '.');
  // Stable and unique: reuse the key when it already holds this text.
  let n = 1;
  const base = key;
  while (used.has(key) && nls[key] !== value) key = `${base}.${++n}`;
  used.add(key);
  missing.push(`${key}: ${value.slice(0, 70)}`);
  nls[key] = value;
  return `%${key}%`;
}

function walk(node, path, logical) {
  if (Array.isArray(node)) {
    return node.map((el, i) => walk(el, `${path}.${i}`, `${logical}.${idOf(el, i)}`));
  }
  if (!node || typeof node !== 'object') return node;
  for (const [k, v] of Object.entries(node)) {
    const p = `${path}.${k}`;
    const lp = `${logical}.${k}`;
    if (SKIP_UNDER.some((re) => re.test(p.slice(1)))) continue;
    const isText = TEXT_KEYS.has(k) || (k === 'name' && /^\.contributes\.views\./.test(path));
    if (isText && typeof v === 'string') node[k] = place(lp.slice(1), v);
    else if (isText && Array.isArray(v) && v.every((x) => typeof x === 'string'))
      node[k] = v.map((x, i) => place(`${lp.slice(1)}.${i}`, x));
    else node[k] = walk(v, p, lp);
  }
  return node;
}

for (const k of ['displayName', 'description']) if (typeof pkg[k] === 'string') pkg[k] = place(k, pkg[k]);
if (pkg.capabilities) walk(pkg.capabilities, '.capabilities', '.capabilities');
if (pkg.contributes) walk(pkg.contributes, '.contributes', '.contributes');

if (check) {
  if (missing.length) {
    console.error(
      `package.json has ${missing.length} string(s) not in package.nls.json; run node scripts/nls.mjs:\n  ${missing.join('\n  ')}`,
    );
    process.exit(1);
  }
  process.exit(0);
}
const sorted = Object.fromEntries(
  Object.keys(nls)
    .sort()
    .map((k) => [k, nls[k]]),
);
writeFileSync(nlsPath, JSON.stringify(sorted, null, 2) + '\n');
writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + '\n');
console.log(`package.nls.json: ${Object.keys(sorted).length} strings (${missing.length} new)`);
