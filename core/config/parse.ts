// Parsing a config with exact ranges; deciding whether a YAML document is ours and its dialect.
import { parseAllDocuments, isMap, isScalar, isPair, isAlias, type Document, type YAMLMap, type Pair, type Node } from 'yaml';
import { LineIndex } from './text';
import type { ConfigDiagnostic } from './diagnostics';
import { t } from '../l10n';
import { looksLikeConfig, rootKeyOf, familyOf, versionOf, type Dialect, type Family, type FrameworkVersion } from '../agentjet/dialect';

export { looksLikeConfig };
/** The root key of a config (`ajet`, `astuner`, `astune`): the dialect. */
export type RootKey = Dialect;

export interface ParsedConfig {
  text: string;
  index: LineIndex;
  docs: Document.Parsed[];
  /** The first document whose root mapping holds ajet/astuner/astune. */
  doc?: Document.Parsed;
  docIndex: number;
  rootMap?: YAMLMap;
  rootKey?: RootKey;
  /** The schema generation the file is judged by (from the root key unless forced). */
  dialect: Family;
  /** The framework version the file is written for (undefined when not ours). */
  version?: FrameworkVersion;
}

/** Files above this size only get a cheap note: parsing 1 MB of YAML already takes about a second,
 * too long to repeat on every keystroke (real configs are a few KB). */
export const MAX_SEMANTIC_BYTES = 1024 * 1024;

export function parseConfig(text: string, opts: { dialect?: Family } = {}): ParsedConfig {
  const index = new LineIndex(text);
  let docs: Document.Parsed[] = [];
  try {
    const all = parseAllDocuments(text, { merge: true, prettyErrors: false, strict: false });
    docs = Array.isArray(all) ? all : [];
  } catch {
    docs = [];
  }
  const out: ParsedConfig = { text, index, docs, docIndex: -1, dialect: opts.dialect ?? 'agentjet' };
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i] as Document.Parsed;
    if (!isMap(d.contents)) continue;
    const key = rootKeyOf(d);
    if (!key) continue;
    out.doc = d;
    out.docIndex = i;
    out.rootMap = d.contents;
    out.rootKey = key;
    if (!opts.dialect) out.dialect = familyOf(key);
    const rollout = d.contents.get(key, true);
    const ro = isMap(rollout) ? rollout.get('rollout', true) : undefined;
    out.version = versionOf(key, isMap(ro) ? ro.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')) : []);
    break;
  }
  return out;
}

/** Follows aliases to the anchored node. */
export function deref(node: unknown, doc: Document): Node | null {
  let n = node as Node | null;
  for (let i = 0; i < 16 && isAlias(n); i++) {
    try {
      n = n.resolve(doc) ?? null;
    } catch {
      return null;
    }
  }
  return n ?? null;
}

export function keyString(pair: Pair): string | undefined {
  const k = pair.key;
  if (isScalar(k) && (typeof k.value === 'string' || typeof k.value === 'number' || typeof k.value === 'boolean')) return String(k.value);
  return undefined;
}

/** Pairs of a map including those merged in with `<<` (one level of merge sources). */
export function mapPairs(map: YAMLMap, doc: Document): { pair: Pair; merged: boolean }[] {
  const out: { pair: Pair; merged: boolean }[] = [];
  for (const p of map.items) {
    if (!isPair(p)) continue;
    if (isScalar(p.key) && p.key.value === '<<') {
      const v = deref(p.value, doc);
      const sources = v && 'items' in v && !isMap(v) ? (v.items as unknown[]).map((x) => deref(x, doc)) : [v];
      for (const s of sources) if (isMap(s)) for (const q of s.items) if (isPair(q)) out.push({ pair: q, merged: true });
      continue;
    }
    out.push({ pair: p, merged: false });
  }
  return out;
}

/** Value of a dotted path in the document (following aliases and merges), or undefined. */
export function nodeAt(map: YAMLMap | undefined, doc: Document, path: readonly string[]): { pair: Pair; node: Node | null } | undefined {
  let cur: YAMLMap | undefined = map;
  let hit: { pair: Pair; node: Node | null } | undefined;
  for (const seg of path) {
    if (!cur) return undefined;
    const found = mapPairs(cur, doc)
      .reverse()
      .find((e) => keyString(e.pair) === seg);
    if (!found) return undefined;
    const node = deref(found.pair.value, doc);
    hit = { pair: found.pair, node };
    cur = isMap(node) ? node : undefined;
  }
  return hit;
}

/** The one diagnostic a config over MAX_SEMANTIC_BYTES gets instead of the checks. */
export function tooLargeDiagnostic(bytes: number): ConfigDiagnostic {
  return {
    code: 'too-large',
    severity: 'information',
    message: t('This config is {0} MB; checks are skipped above {1} MB.', (bytes / 1048576).toFixed(1), MAX_SEMANTIC_BYTES / 1048576),
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
  };
}
