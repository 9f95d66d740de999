// Parsing a config with exact ranges; deciding whether a YAML document is ours and its dialect.
import {
  parseAllDocuments,
  isMap,
  isScalar,
  isPair,
  isAlias,
  isCollection,
  visit,
  YAMLParseError,
  type Alias,
  type Document,
  type YAMLMap,
  type Pair,
  type Node,
} from 'yaml';
import { LineIndex } from './text';
import { parseSplit } from './fastParse';
import { scanDocuments } from './scanParse';
import { parseReusing, type PieceCache } from './incrementalParse';
import type { ConfigDiagnostic } from './diagnostics';
import { CheckCache } from './checkCache';
import { t } from '../l10n';
import { looksLikeConfig, rootKeyOf, familyOf, versionOf, type Dialect, type Family, type FrameworkVersion } from '../agentjet/dialect';

export { looksLikeConfig };
/** The root key of a config (`ajet`, `astuner`, `astune`): the dialect. */
export type RootKey = Dialect;

export interface ParsedConfig {
  text: string;
  index: LineIndex;
  /** The yaml library's tree; in a large file the plain sections are read by fastParse.ts, whose
   * nodes carry no comments (nothing reads them from here: `text` holds them). */
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
  /** The pieces this text was parsed from, for the next version's parse (incrementalParse.ts). */
  pieces?: PieceCache;
  /** The diagnostics the last version's validation kept per subtree, for this one's (checkCache.ts). */
  checks?: CheckCache;
}

/** Files above this size only get a cheap note: parsing 1 MB of YAML already takes about a second,
 * too long to repeat on every keystroke (real configs are a few KB). */
export const MAX_SEMANTIC_BYTES = 1024 * 1024;

/** `library`: parse with the yaml library alone (the tests compare the quicker readers with it). */
export function parseConfig(text: string, opts: { dialect?: Family; previous?: ParsedConfig; library?: boolean } = {}): ParsedConfig {
  const index = new LineIndex(text);
  let docs: Document.Parsed[] = [];
  let pieces: PieceCache | undefined;
  let plain = false;
  // Nothing reads a syntax error's stack (nor the quick readers' give-ups): capturing one per error
  // was a sixth of a keystroke's parse in a text with a key half typed.
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // The yaml library finds duplicate keys by scanning the map for every key it adds: quadratic in a
    // map's size (40,000 keys took 20 s). Off there, the same check is made here with one hash per map.
    const options = { merge: true, prettyErrors: false, strict: false, uniqueKeys: false };
    // The plain block style configs are written in: a quick reader giving the library's tree (scanParse.ts).
    // Else, an edited document: the pieces the edit did not touch are the last version's (incrementalParse.ts);
    // large configs: their plain sections are read by a quicker reader giving the same tree (fastParse.ts).
    const scanned = opts.library ? undefined : scanDocuments(text, options);
    const reused = !scanned && !opts.library && opts.previous ? parseReusing(text, options, opts.previous.pieces) : undefined;
    // A text read whole keeps the last pieces (a key being typed, a syntax error): the next version, if
    // the reader leaves it to the pieces, reuses those its edit did not touch.
    pieces = reused?.pieces ?? opts.previous?.pieces;
    // Both hold no anchors, aliases or merges: a subtree's checks read its own text only.
    plain = !!(scanned ?? reused?.docs);
    const all = scanned ?? reused?.docs ?? (opts.library ? undefined : parseSplit(text, options)) ?? parseAllDocuments(text, options);
    docs = Array.isArray(all) ? all : [];
    for (const d of docs) addDuplicateKeyErrors(d);
  } catch {
    docs = [];
  } finally {
    Error.stackTraceLimit = stackLimit;
  }
  // Every field set, in one order: one object shape for every parse, so what reads them stays optimised.
  const out: ParsedConfig = {
    text,
    index,
    docs,
    doc: undefined,
    docIndex: -1,
    rootMap: undefined,
    rootKey: undefined,
    dialect: opts.dialect ?? 'agentjet',
    version: undefined,
    pieces,
    // An edited document: its checks may reuse the last version's (checkCache.ts keeps them by text).
    checks: opts.previous && plain ? (opts.previous.checks ?? new CheckCache()) : undefined,
  };
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

/**
 * Adds the library's own "Map keys must be unique" error (same code, message and position) for each
 * scalar key a map already holds, in one pass over the document.
 */
function addDuplicateKeyErrors(doc: Document.Parsed): void {
  const found: YAMLParseError[] = [];
  const stack: unknown[] = [doc.contents];
  let budget = 0;
  while (stack.length) {
    const n = stack.pop();
    if (!isCollection(n)) continue;
    if (++budget > 5_000_000) break; // a pathological tree: the checks below stay bounded anyway
    // A map of one pair has no duplicate; only collections go on the stack (scalars are most nodes).
    const seen = isMap(n) && n.items.length > 1 ? new Set<unknown>() : undefined;
    for (const it of n.items as unknown[]) {
      if (isPair(it)) {
        const k = it.key;
        if (seen && isScalar(k) && !(typeof k.value === 'number' && Number.isNaN(k.value))) {
          if (seen.has(k.value) && k.range)
            found.push(new YAMLParseError([k.range[0], k.range[0] + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
          seen.add(k.value);
        }
        if (isCollection(it.value)) stack.push(it.value);
        if (isCollection(k)) stack.push(k);
      } else if (isCollection(it)) stack.push(it);
    }
  }
  if (!found.length) return;
  // In source order among the parser's own errors, as the library reports them: at the same place a
  // key's duplicate comes first (it is checked before the key's missing value is).
  found.sort((a, b) => a.pos[0] - b.pos[0]);
  const merged: YAMLParseError[] = [];
  let i = 0;
  for (const e of doc.errors) {
    while (i < found.length && (found[i] as YAMLParseError).pos[0] <= e.pos[0]) merged.push(found[i++] as YAMLParseError);
    merged.push(e);
  }
  while (i < found.length) merged.push(found[i++] as YAMLParseError);
  doc.errors.length = 0;
  for (const e of merged) doc.errors.push(e);
}

/**
 * Alias -> anchored node for a whole document, built in one walk. The library's `Alias.resolve(doc)`
 * walks the whole document on every call: quadratic in the number of aliases.
 */
// Kept on the document itself (see PAIRS below for why not in a WeakMap).
const ALIASES = Symbol('agentjet.aliases');
type WithAliases = Document & { [ALIASES]?: { doc: Document; idx: Map<Alias, Node | null> } };

function aliasIndex(doc: Document): Map<Alias, Node | null> {
  const hit = (doc as WithAliases)[ALIASES];
  if (hit && hit.doc === doc) return hit.idx;
  const idx = new Map<Alias, Node | null>();
  const latest = new Map<string, Node>();
  // The same order as the library: the last node with the anchor before the alias.
  visit(doc, {
    Node: (_k, node) => {
      if (isAlias(node)) idx.set(node, latest.get(node.source) ?? null);
      else if ((isScalar(node) || isCollection(node)) && node.anchor) latest.set(node.anchor, node);
    },
  });
  (doc as WithAliases)[ALIASES] = { doc, idx };
  return idx;
}

/**
 * A node's value as plain data, or undefined when the library cannot build it (a merge key whose
 * source is not a map throws): a rule reads such a value as unknown instead of failing the file.
 */
export function nodeJson(node: Node): unknown {
  try {
    return node.toJSON();
  } catch {
    return undefined;
  }
}

/** Follows aliases to the anchored node. */
export function deref(node: unknown, doc: Document): Node | null {
  let n = node as Node | null;
  if (!isAlias(n)) return n ?? null;
  const idx = aliasIndex(doc);
  for (let i = 0; i < 16 && isAlias(n); i++) {
    if (!idx.has(n)) {
      // Not part of this document (built by hand): ask the library.
      try {
        n = n.resolve(doc) ?? null;
      } catch {
        return null;
      }
    } else n = idx.get(n) ?? null;
  }
  return n ?? null;
}

export function keyString(pair: Pair): string | undefined {
  const k = pair.key;
  if (isScalar(k) && (typeof k.value === 'string' || typeof k.value === 'number' || typeof k.value === 'boolean')) return String(k.value);
  return undefined;
}

interface MapEntry {
  pair: Pair;
  merged: boolean;
}
interface PairsEntry {
  /** The map it was built for: a clone of the map (incrementalParse.ts) copies the property, not the entry's truth. */
  map: YAMLMap;
  doc: Document;
  /** Holds a `<<` merge: its pairs depend on the document's anchors. */
  merges: boolean;
  pairs: MapEntry[];
  byKey?: Map<string, MapEntry>;
}
// Kept on the map itself, not in a WeakMap: the values of a long-lived WeakMap kept each fresh
// parse tree alive through the young generation's collections (every tree was promoted, then
// freed by a full collection: 1.6 MB promoted per scavenge, scavenges of 3-5 ms).
const PAIRS = Symbol('agentjet.pairs');
type WithPairs = YAMLMap & { [PAIRS]?: PairsEntry };

function pairsEntry(map: YAMLMap, doc: Document): PairsEntry {
  const hit = (map as WithPairs)[PAIRS];
  // A map the incremental parse carried into the next version keeps its index (unless it merges).
  if (hit && hit.map === map && (hit.doc === doc || !hit.merges)) return hit;
  const out: MapEntry[] = [];
  let merges = false;
  for (const p of map.items) {
    if (!isPair(p)) continue;
    if (isScalar(p.key) && p.key.value === '<<') {
      merges = true;
      const v = deref(p.value, doc);
      const sources = v && 'items' in v && !isMap(v) ? (v.items as unknown[]).map((x) => deref(x, doc)) : [v];
      for (const s of sources) if (isMap(s)) for (const q of s.items) if (isPair(q)) out.push({ pair: q, merged: true });
      continue;
    }
    out.push({ pair: p, merged: false });
  }
  const e: PairsEntry = { map, doc, merges, pairs: out };
  (map as WithPairs)[PAIRS] = e;
  return e;
}

/** Pairs of a map including those merged in with `<<` (one level of merge sources). Memoised per
 * map: the parse tree is not changed after parsing. Do not modify the returned array. */
export function mapPairs(map: YAMLMap, doc: Document): readonly MapEntry[] {
  return pairsEntry(map, doc).pairs;
}

/** The entry of `key` in a map (the last one, as the loader keeps), through a per-map index. */
function mapEntry(map: YAMLMap, doc: Document, key: string): MapEntry | undefined {
  const e = pairsEntry(map, doc);
  if (!e.byKey) {
    const byKey = new Map<string, MapEntry>();
    for (const x of e.pairs) {
      const k = keyString(x.pair);
      if (k !== undefined) byKey.set(k, x);
    }
    e.byKey = byKey;
  }
  return e.byKey.get(key);
}

/** Number of distinct keys of a map (merges included). */
export function mapKeyCount(map: YAMLMap, doc: Document): number {
  mapEntry(map, doc, '');
  return pairsEntry(map, doc).byKey?.size ?? 0;
}

/** The distinct keys of a map (merges included). */
export function mapKeys(map: YAMLMap, doc: Document): Iterable<string> {
  mapEntry(map, doc, '');
  return pairsEntry(map, doc).byKey?.keys() ?? [];
}

/** Value of a dotted path in the document (following aliases and merges), or undefined. */
export function nodeAt(map: YAMLMap | undefined, doc: Document, path: readonly string[]): { pair: Pair; node: Node | null } | undefined {
  let cur: YAMLMap | undefined = map;
  let hit: { pair: Pair; node: Node | null } | undefined;
  for (const seg of path) {
    if (!cur) return undefined;
    const found = mapEntry(cur, doc, seg);
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
