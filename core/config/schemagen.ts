// Builds the config schema from the framework's default YAML files plus schemas/overlay.yaml.
import { nodeJson } from './parse';
// Pure: callers pass file contents. Used by scripts/gen-schema.ts and by a test that checks the
// committed schema is what the generator produces.
import { parseDocument, isMap, isSeq, isScalar, isPair, type Node, type YAMLMap } from 'yaml';
import type { ConfigSchema, JsonType, SchemaNode } from './schema';
import type { CodeFacts, CodeFactsByVersion } from './codefacts';
import type { FrameworkVersion } from '../agentjet/dialect';

export interface SchemaSources {
  ajetDefault: string;
  verlDefault: string;
  trinityDefault: string;
  /** schemas/overlay.yaml's text, or that file already parsed (schemas/overlay.json, for run time). */
  overlay: string | OverlayDoc;
  /** Value lists read from each version's code (schemas/codefacts.json); used by `enumFrom`. */
  codeFacts?: CodeFactsByVersion;
  /** The version these defaults are of (default `agentjet`): its code facts refine the keys. */
  primary?: FrameworkVersion;
  /** Release and date of the defaults' AgentJet, recorded as `x-release`. */
  release?: { release?: string; date?: string };
  /** `ajet_swarm_default.yaml` (AgentJet 0.0.4): its `ajet:` keys join the tree. */
  swarmDefault?: string;
}

/** The overlay file parsed (what `npm run gen:schema` also writes as schemas/overlay.json). */
export interface OverlayDoc {
  root?: OverlayEntry;
  paths?: Record<string, OverlayEntry>;
}

/** Parses schemas/overlay.yaml. */
export function parseOverlay(text: string): OverlayDoc {
  return parseDocument(text).toJS() as OverlayDoc;
}

const NOISE = /DO NOT EDIT|^[-\s]*$|^-{3,}|✨/;

function cleanComment(c: string | undefined | null): string {
  if (!c) return '';
  return c
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !NOISE.test(l))
    .join(' ')
    .trim();
}

function typeOfScalar(value: unknown, text: string): JsonType | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) && /^[-+]?\d+$/.test(text.trim()) ? 'number' : 'number';
  return 'string';
}

function fromNode(node: Node | null | undefined, src: string, source: string, description: string): SchemaNode {
  const out: SchemaNode = {};
  if (description) out.description = description;
  if (isMap(node)) {
    out.type = 'object';
    out.properties = {};
    out.additionalProperties = false;
    fillMap(node, src, source, out.properties);
    return out;
  }
  if (isSeq(node)) {
    out.type = 'array';
    const first = node.items[0] as Node | undefined;
    if (first) {
      const item = fromNode(first, src, source, '');
      delete item['x-source'];
      if (item.type) out.items = { type: item.type };
    }
    out.default = nodeJson(node);
    return out;
  }
  if (isScalar(node)) {
    const text = node.range ? src.slice(node.range[0], node.range[1]) : String(node.value);
    // `${...}` takes its type from what it points to (OmegaConf resolves it): no type from the text.
    const t = typeof node.value === 'string' && node.value.includes('${') ? undefined : typeOfScalar(node.value, text);
    if (t) out.type = t;
    out.default = node.value ?? null;
    return out;
  }
  return out;
}

function fillMap(map: YAMLMap, src: string, source: string, props: Record<string, SchemaNode>): void {
  map.items.forEach((pair, i) => {
    if (!isPair(pair) || !isScalar(pair.key)) return;
    const key = String(pair.key.value);
    const before = cleanComment(pair.key.commentBefore) || (i === 0 ? cleanComment(map.commentBefore) : '');
    const value = pair.value as Node | null;
    const trailing = isScalar(value) ? cleanComment(value.comment) : '';
    const desc = [before, trailing].filter(Boolean).join(' ');
    const node = fromNode(value, src, source, desc);
    node['x-source'] = source;
    props[key] = node;
  });
}

function rootMap(text: string): YAMLMap {
  const doc = parseDocument(text);
  if (!isMap(doc.contents)) throw new Error('default config is not a mapping');
  return doc.contents;
}

/** Adds keys of `extra` that `base` lacks, recursively. */
function mergeMissing(base: SchemaNode, extra: SchemaNode): void {
  for (const [k, v] of Object.entries(extra.properties ?? {})) {
    const b = base.properties?.[k];
    if (!b) {
      base.properties ??= {};
      base.properties[k] = v;
    } else if (b.properties && v.properties) mergeMissing(b, v);
  }
}

function markOpen(node: SchemaNode): void {
  if (node.properties) {
    node['x-open'] ??= 'info';
    for (const c of Object.values(node.properties)) markOpen(c);
  }
}

export interface OverlayEntry {
  description?: string;
  type?: JsonType | JsonType[];
  enum?: (string | number | boolean | null)[];
  enumSeverity?: 'warning';
  enumRenamed?: Record<string, string>;
  default?: unknown;
  items?: OverlayEntry;
  open?: true | 'info' | 'passthrough';
  dialect?: 'agentjet' | 'astuner';
  renamedTo?: string;
  movedTo?: string;
  deprecated?: boolean;
  deprecatedMessage?: string;
  classRef?: 'workflow' | 'judge';
  pathKind?: 'file' | 'dir' | 'model' | 'files';
  selects?: Record<string, string | null>;
  properties?: Record<string, OverlayEntry>;
  /** Take the allowed values from the code of each version (see core/config/codefacts.ts). */
  enumFrom?: 'taskReaders' | 'madnessChecks';
  unread?: string;
  /** Allowed values per version, written by hand where no code lists them. */
  enumByVersion?: Partial<Record<FrameworkVersion, string[]>>;
}

/** Every key at any depth is handed to another program (Trinity-RFT): nothing is flagged. */
function openDeep(node: SchemaNode): void {
  node['x-open'] = true;
  delete node.additionalProperties;
  for (const c of Object.values(node.properties ?? {})) openDeep(c);
}

let currentFacts: CodeFactsByVersion | undefined;

function applyEntry(node: SchemaNode, e: OverlayEntry): void {
  if (e.description !== undefined) node.description = e.description;
  if (e.type !== undefined) node.type = e.type;
  if (e.enum !== undefined) node.enum = e.enum;
  if (e.enumByVersion) node['x-enumByVersion'] = e.enumByVersion;
  if (e.unread) node['x-unread'] = e.unread;
  if (e.enumFrom && currentFacts) {
    const key = e.enumFrom;
    const byVersion: Partial<Record<FrameworkVersion, string[]>> = {};
    for (const [v, f] of Object.entries(currentFacts) as [FrameworkVersion, CodeFacts][]) if (f[key].length) byVersion[v] = [...f[key]];
    node['x-enumByVersion'] = byVersion;
    if (byVersion.agentjet) node.enum = [...byVersion.agentjet];
  }
  if (e.enumSeverity) node['x-enumSeverity'] = e.enumSeverity;
  if (e.enumRenamed) node['x-enumRenamed'] = e.enumRenamed;
  if (e.default !== undefined) node.default = e.default;
  if (e.items) {
    node.items ??= {};
    applyEntry(node.items, e.items);
  }
  if (e.open === 'passthrough') openDeep(node);
  else if (e.open !== undefined) {
    node['x-open'] = e.open;
    if (e.open === true) delete node.additionalProperties;
  }
  if (e.dialect) node['x-dialect'] = e.dialect;
  if (e.renamedTo) node['x-renamedTo'] = e.renamedTo;
  if (e.movedTo) node['x-movedTo'] = e.movedTo;
  if (e.deprecated) node.deprecated = true;
  if (e.deprecatedMessage) node['x-deprecatedMessage'] = e.deprecatedMessage;
  if (e.classRef) node['x-classRef'] = e.classRef;
  if (e.pathKind) node['x-pathKind'] = e.pathKind;
  if (e.selects) node['x-selects'] = e.selects;
  if (e.properties) {
    node.properties ??= {};
    if (node.type === undefined) node.type = 'object';
    if (node['x-open'] === undefined && node.additionalProperties === undefined) node.additionalProperties = false;
    for (const [k, v] of Object.entries(e.properties)) {
      node.properties[k] ??= {};
      applyEntry(node.properties[k], v);
    }
  }
}

export function generateSchema(src: SchemaSources): ConfigSchema {
  currentFacts = src.codeFacts;
  try {
    return build(src);
  } finally {
    currentFacts = undefined;
  }
}

function build(src: SchemaSources): ConfigSchema {
  const root: SchemaNode = { type: 'object', properties: {} };
  const props = root.properties as Record<string, SchemaNode>;

  // ajet: from ajet_default.yaml, completed by the ajet keys verl_default.yaml adds.
  const ajetTop: Record<string, SchemaNode> = {};
  fillMap(rootMap(src.ajetDefault), src.ajetDefault, 'ajet_default.yaml', ajetTop);
  const ajet = ajetTop.ajet;
  if (!ajet) throw new Error('ajet_default.yaml has no ajet: section');

  if (src.swarmDefault) {
    const swarmTop: Record<string, SchemaNode> = {};
    try {
      fillMap(rootMap(src.swarmDefault), src.swarmDefault, 'ajet_swarm_default.yaml', swarmTop);
    } catch {
      /* not a mapping: nothing to add */
    }
    if (swarmTop.ajet) mergeMissing(ajet, swarmTop.ajet);
  }

  const verlTop: Record<string, SchemaNode> = {};
  fillMap(rootMap(src.verlDefault), src.verlDefault, 'verl_default.yaml', verlTop);
  if (verlTop.ajet) mergeMissing(ajet, verlTop.ajet);
  delete verlTop.ajet;
  props.ajet = ajet;

  const trinityTop: Record<string, SchemaNode> = {};
  fillMap(rootMap(src.trinityDefault), src.trinityDefault, 'trinity_default.yaml', trinityTop);
  for (const [k, v] of Object.entries(trinityTop)) {
    markOpen(v);
    props[k] = v;
  }
  for (const [k, v] of Object.entries(verlTop)) {
    markOpen(v);
    props[k] = v;
  }

  // Overlay: paths are applied shortest first so parents exist before their children.
  const overlay = typeof src.overlay === 'string' ? parseOverlay(src.overlay) : src.overlay;
  if (overlay.root) applyEntry(root, overlay.root);
  const entries = Object.entries(overlay.paths ?? {}).sort((a, b) => a[0].split('.').length - b[0].split('.').length);
  const primary = src.primary ?? 'agentjet';
  const reads = new Set(src.codeFacts?.[primary]?.readKeys ?? []);
  for (const [path, entry] of entries) {
    // An entry that only describes a key does not make the key exist: the defaults of this version
    // (or its code) must have it, so a key one version dropped is not kept alive by its description.
    const describesOnly = !['dialect', 'open', 'renamedTo', 'movedTo', 'deprecated', 'properties', 'selects', 'enumFrom'].some(
      (k) => k in entry,
    );
    let cur: SchemaNode | undefined = root;
    const segs = path.split('.');
    for (const seg of segs) {
      if (!cur) break;
      const next: SchemaNode | undefined = cur.properties?.[seg];
      if (!next && describesOnly && segs[0] === 'ajet' && !reads.has(segs.slice(1).join('.'))) {
        cur = undefined;
        break;
      }
      cur.properties ??= {};
      if (cur.type === undefined) cur.type = 'object';
      cur = cur.properties[seg] ??= {};
    }
    if (cur) applyEntry(cur, entry);
  }
  // A key this version's conversion table hands on is read, whatever the overlay says of older ones.
  const ajetNode = root.properties?.ajet;
  for (const key of Object.keys(src.codeFacts?.[primary]?.verlConversions ?? {})) {
    let n: SchemaNode | undefined = ajetNode;
    for (const seg of key.split('.')) n = n?.properties?.[seg];
    if (n?.['x-unread']) delete n['x-unread'];
  }
  // Value lists the code compares a key with (codefacts VALUE_SOURCES): warnings, since the code
  // may also take spellings the comparison does not show (`k3+`); an error where the code raises
  // on any other value. A key only the code reads (no default names it) gets a node for its list.
  const pf = src.codeFacts?.[primary];
  for (const [key, values] of Object.entries(pf?.valueLists ?? {})) {
    let n: SchemaNode | undefined = ajetNode;
    const segs = key.split('.');
    segs.forEach((seg, i) => {
      if (!n) return;
      if (!n.properties?.[seg] && n.type === 'object' && i === segs.length - 1) {
        n.properties ??= {};
        n.properties[seg] = { 'x-source': 'code' };
      }
      n = n.properties?.[seg];
    });
    const node = n as SchemaNode | undefined;
    if (!node || node.enum) continue;
    node.enum = [...values];
    if (pf?.strictValues?.includes(key)) continue;
    node['x-enumSeverity'] = 'warning';
    if (pf?.fallbackValues?.includes(key) && typeof node.default === 'string') node['x-enumFallback'] = node.default;
  }

  // The ASTuner roots share the ajet tree; the validator reads x-dialect to tell names apart.
  props.astuner = { $ref: '#/properties/ajet', description: 'ASTuner name of the `ajet:` section (AgentJet reads `ajet:`).' };
  props.astune = { $ref: '#/properties/ajet', description: 'Oldest ASTuner name of the `ajet:` section (AgentJet reads `ajet:`).' };

  addMarkdown(root);
  const out: ConfigSchema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://agentjet-community.github.io/agentjet-vscode/agentjet.schema.json',
    title: 'AgentJet / ASTuner configuration',
    ...root,
  };
  const versionKeys: Partial<Record<FrameworkVersion, string[]>> = {};
  for (const [v, f] of Object.entries(src.codeFacts ?? {}) as [FrameworkVersion, CodeFacts][])
    if (f.readKeys?.length) versionKeys[v] = f.readKeys;
  if (Object.keys(versionKeys).length) out['x-versionKeys'] = versionKeys;
  const versionDefaults: Partial<Record<FrameworkVersion, Record<string, string>>> = {};
  for (const [v, f] of Object.entries(src.codeFacts ?? {}) as [FrameworkVersion, CodeFacts][])
    if (f.defaults && Object.keys(f.defaults).length) versionDefaults[v] = f.defaults;
  if (Object.keys(versionDefaults).length) out['x-versionDefaults'] = versionDefaults;
  const conv = src.codeFacts?.[primary]?.verlConversions;
  const has = src.codeFacts?.[primary]?.has;
  if (src.release?.release || conv || has?.length)
    out['x-release'] = {
      ...(src.release?.release ? { release: src.release.release } : {}),
      ...(src.release?.date ? { date: src.release.date } : {}),
      ...(conv ? { verlConversions: conv } : {}),
      ...(has?.length ? { has } : {}),
    };
  return out;
}

/** markdownDescription for editors: description plus default and dialect notes. */
function addMarkdown(node: SchemaNode): void {
  const parts: string[] = [];
  if (node.description) parts.push(node.description);
  if (node['x-dialect'] === 'astuner')
    parts.push(`ASTuner only; AgentJet: \`${node['x-movedTo'] ?? node['x-renamedTo'] ?? '(removed)'}\`.`);
  if (node.deprecated && node['x-deprecatedMessage']) parts.push(node['x-deprecatedMessage']);
  if (parts.length) node.markdownDescription = parts.join('\n\n');
  for (const c of Object.values(node.properties ?? {})) addMarkdown(c);
  if (node.items) addMarkdown(node.items);
}

/** Stable JSON text (2-space indent, trailing newline) for the committed file. */
export function schemaText(s: ConfigSchema): string {
  return JSON.stringify(s, null, 2) + '\n';
}
