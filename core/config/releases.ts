// The AgentJet releases whose facts ship with the extension, and what judged a file: the user's own
// AgentJet (read at run time by core/config/factsgen.ts) or a bundled release. The base schema
// (schemas/agentjet.schema.json) is January 2026's; later releases ship as differences from it
// (schemas/releases.json), materialised on first use.
import baseJson from '../../schemas/agentjet.schema.json';
import releasesJson from '../../schemas/releases.json';
import { isMap, isScalar, type YAMLMap } from 'yaml';
import type { ConfigSchema, SchemaNode } from './schema';
import { jsonPatch, type Json } from './jsonDiff';
import type { ParsedConfig } from './parse';
import { getLocale, t } from '../l10n';
import { frameworkName, type FrameworkVersion } from '../agentjet/dialect';

export interface BundledRelease {
  id: string;
  /** The upstream tree (upstream.json) `npm run gen:schema` generates it from. */
  tree: string;
  release: string;
  date: string;
}

/** The release of the base schema. */
export const BASE_RELEASE: BundledRelease = { id: 'agentjet-0.0.1', tree: 'agentjet-d20cce0', release: '0.0.1', date: 'January 2026' };
/** Later releases, newest first. */
export const BUNDLED_RELEASES: readonly BundledRelease[] = [
  { id: 'agentjet-0.0.4', tree: 'agentjet-c68c154', release: '0.0.4', date: 'May 2026' },
];

export interface ReleasesFile {
  comment: string;
  releases: Record<string, { patch: Json }>;
}

/** What judges a config: a schema with the facts of one AgentJet, and where they came from. */
export interface JudgingFacts {
  schema: ConfigSchema;
  /** `0.0.4`; undefined when the package says no version. */
  release?: string;
  date?: string;
  origin: 'checkout' | 'installed' | 'bundled';
  /** The package folder read (checkout or installed). */
  location?: string;
  /** "AgentJet 0.0.4 at …/site-packages/ajet", "bundled facts of AgentJet 0.0.4". */
  label: string;
  /** Bundled facts standing in while the user's AgentJet is still being read. */
  provisional?: boolean;
  /** Why the user's AgentJet does not judge (its interpreter did not answer, its files are over the budget). */
  notUsed?: string;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A release's "May 2026" in the reader's language ("2026 年 5 月" in zh-CN); other text unchanged. */
export function shownDate(date: string): string {
  const m = /^([A-Za-z]+) (\d{4})$/.exec(date.trim());
  const month = m ? MONTHS.indexOf(m[1]!.toLowerCase()) : -1;
  if (!m || month < 0 || getLocale() !== 'zh-cn') return date;
  return `${m[2]} 年 ${month + 1} 月`;
}

/** The framework's name by its package: ASTuner and ASTune number their releases apart from AgentJet. */
const FRAMEWORK_NAME: Record<string, string> = { ajet: 'AgentJet', astuner: 'ASTuner', astune: 'ASTune' };

/** "AgentJet 0.0.4 (May 2026)", the date in the reader's language; "ASTuner 0.1.0" for an installed ASTuner. */
export function releaseName(f: Pick<JudgingFacts, 'release' | 'date'> & { pkg?: string }): string {
  const name = FRAMEWORK_NAME[f.pkg ?? 'ajet'] ?? 'AgentJet';
  return f.release ? `${name} ${f.release}${f.date ? ` (${shownDate(f.date)})` : ''}` : name;
}

export function labelOf(f: Pick<JudgingFacts, 'origin' | 'release' | 'date' | 'location'> & { pkg?: string }): string {
  const name = releaseName(f);
  if (f.origin === 'bundled') return t('bundled facts of {0}', name);
  return t('{0} at {1}', name, f.location ?? '?');
}

const base = baseJson as ConfigSchema;
let materialised: JudgingFacts[] | undefined;

/** Every bundled AgentJet release, newest first (the base last). */
export function bundledReleases(): JudgingFacts[] {
  if (materialised) return materialised;
  const file = releasesJson as ReleasesFile;
  const out: JudgingFacts[] = [];
  for (const r of BUNDLED_RELEASES) {
    const p = file.releases[r.id];
    if (!p) continue;
    const schema = jsonPatch(base as unknown as Json, p.patch) as unknown as ConfigSchema;
    out.push({ schema, release: r.release, date: r.date, origin: 'bundled', label: labelOf({ origin: 'bundled', ...r }) });
  }
  out.push({
    schema: base,
    release: BASE_RELEASE.release,
    date: BASE_RELEASE.date,
    origin: 'bundled',
    label: labelOf({ origin: 'bundled', ...BASE_RELEASE }),
  });
  materialised = out;
  return out;
}

/** The base (January 2026) facts: ASTuner-era configs and anything without a better match. */
export function baseFacts(): JudgingFacts {
  const all = bundledReleases();
  return all[all.length - 1] as JudgingFacts;
}

const astunerEra = new Map<FrameworkVersion, JudgingFacts>();
/** `astuner:`/`astune:` files: the base schema carries the ASTuner-era names and each version's code facts. */
function astunerFacts(v: FrameworkVersion): JudgingFacts {
  let f = astunerEra.get(v);
  if (!f) {
    f = { schema: baseFacts().schema, origin: 'bundled', label: t('bundled facts of {0}', frameworkName(v)) };
    astunerEra.set(v, f);
  }
  return f;
}

/** Release order (PEP 440, as AgentJet's packages number themselves): the one rule, core/process/version.ts. */
export { compareVersions as compareReleases } from '../process/version';

/** Does this AgentJet declare or read `ajet.<rel>` (its defaults/schema, or its code)? */
export function knowsKey(f: JudgingFacts, rel: readonly string[]): boolean {
  let known = knownKeys.get(f.schema);
  if (!known) knownKeys.set(f.schema, (known = new Map()));
  // Segments joined by NUL: a key that holds a dot is not the path its dots would make.
  const key = rel.join('\0');
  let k = known.get(key);
  if (k === undefined) {
    // Bounded: what a user types passes through many half-typed keys.
    if (known.size >= 4096) known.clear();
    known.set(key, (k = lookUpKey(f, rel)));
  }
  return k;
}

/** knowsKey's answers per schema (each is a walk, and a search of the code's key list when not in the schema). */
const knownKeys = new WeakMap<ConfigSchema, Map<string, boolean>>();

function lookUpKey(f: JudgingFacts, rel: readonly string[]): boolean {
  let n: SchemaNode | undefined = f.schema.properties?.ajet;
  for (const seg of rel) n = n?.properties?.[seg];
  if (n) return true;
  const keys = f.schema['x-versionKeys']?.agentjet;
  return !!keys && keys.includes(rel.join('.'));
}

/**
 * How many key paths under `ajet:` the config sets (maps only) that `f` does not know (knowsKey): the
 * config's maps walked beside the schema, so a key the schema has costs no path (this runs per parse).
 */
function unknownKeys(root: YAMLMap, f: JudgingFacts): number {
  let missing = 0;
  const path: string[] = [];
  const walk = (m: YAMLMap, n: SchemaNode | undefined) => {
    if (path.length > 12) return;
    for (const pair of m.items) {
      if (!isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      const child = n?.properties?.[key];
      path.push(key);
      if (!child && !knowsKey(f, path)) missing++;
      if (isMap(pair.value)) walk(pair.value, child);
      path.pop();
    }
  };
  walk(root, f.schema.properties?.ajet);
  return missing;
}

/** The newest bundled AgentJet that knows every key the config sets (else the one that knows most). */
export function bundledFor(p: ParsedConfig): JudgingFacts {
  let f = chosen.get(p);
  if (!f) chosen.set(p, (f = chooseBundled(p)));
  return f;
}

/** The choice per parse: validation and every request on one version of a document ask the same. */
const chosen = new WeakMap<ParsedConfig, JudgingFacts>();

function chooseBundled(p: ParsedConfig): JudgingFacts {
  if (p.rootKey !== 'ajet') return astunerFacts(p.version && p.version !== 'agentjet' ? p.version : 'astuner-2025-12');
  const root = p.rootMap && p.doc ? (p.rootMap.get('ajet', true) as unknown) : undefined;
  let best: JudgingFacts | undefined;
  let bestMissing = Infinity;
  for (const f of bundledReleases()) {
    const missing = isMap(root) ? unknownKeys(root, f) : 0;
    if (missing < bestMissing) {
      best = f;
      bestMissing = missing;
    }
    if (missing === 0) break;
  }
  return best ?? baseFacts();
}
