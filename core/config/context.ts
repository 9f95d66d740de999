// Shared by the editor features (completion.ts, hover.ts, codeActions.ts): where the cursor is in
// the parsed config and the Markdown that describes a key. Pure functions, no LSP types.
import { isMap, isSeq, type Node, type Pair, type YAMLMap } from 'yaml';
import { schema, childSchema, resolveRef, typesOf, schemaAt, type SchemaNode, type Family } from './schema';
import { deref, keyString, mapPairs, type ParsedConfig } from './parse';
import type { ClassResolver } from './classref';
import { t } from '../l10n';
import type { JudgingFacts } from './releases';
import { localDescription } from './schemaDescriptions';

export interface FeatureContext {
  root?: string;
  resolver: ClassResolver;
  /** The AgentJet that judges the document: its schema drives completion and hover, its label is shown. */
  facts?: JudgingFacts;
  /** Restricted Mode: installed packages were not asked about (the hover says so). */
  waitingForTrust?: boolean;
}

// ---------------------------------------------------------------- locating the cursor

export interface Located {
  path: string[];
  part: 'key' | 'value';
  pair?: Pair;
  node: Node | null;
  /** Schema of the key (not of its parent). */
  schema?: SchemaNode;
}

function contains(n: { range?: [number, number, number?] | null } | null | undefined, offset: number): boolean {
  return !!n?.range && offset >= n.range[0] && offset <= n.range[1];
}

/** The key or value under `offset` with its path from the document root. */
export function locate(p: ParsedConfig, offset: number, root: SchemaNode = schema): Located | undefined {
  if (!p.doc || !p.rootMap) return undefined;
  const doc = p.doc;
  const walk = (map: YAMLMap, path: string[], sch: SchemaNode | undefined): Located | undefined => {
    for (const { pair, merged } of mapPairs(map, doc)) {
      if (merged) continue;
      const key = keyString(pair);
      if (key === undefined) continue;
      const ks = sch ? childSchema(sch, key) : undefined;
      if (contains(pair.key as Node, offset)) return { path: [...path, key], part: 'key', pair, node: pair.key as Node, schema: ks };
      const raw = pair.value as Node | null;
      if (raw && contains(raw, offset)) {
        const v = deref(raw, doc);
        if (isMap(raw)) return walk(raw, [...path, key], ks);
        if (isSeq(raw)) {
          const itemSchema = ks?.items ? resolveRef(ks.items) : undefined;
          for (let i = 0; i < raw.items.length; i++) {
            const it = raw.items[i] as Node;
            if (contains(it, offset)) {
              if (isMap(it)) return walk(it, [...path, key, String(i)], itemSchema);
              return { path: [...path, key, String(i)], part: 'value', node: deref(it, doc), schema: itemSchema };
            }
          }
          return undefined;
        }
        return { path: [...path, key], part: 'value', pair, node: v, schema: ks };
      }
    }
    return undefined;
  };
  return walk(p.rootMap, [], root);
}

export function schemaForPath(path: readonly string[], root: SchemaNode = schema): SchemaNode | undefined {
  return schemaAt(
    path.map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
    root,
  );
}

export function fmt(v: unknown): string {
  return '`' + (typeof v === 'string' ? v : JSON.stringify(v)) + '`';
}
export function describeKey(path: readonly string[], s: SchemaNode, dialect: Family, root: SchemaNode = schema): string {
  const r = resolveRef(s);
  const lines: string[] = [];
  const types = typesOf(r);
  lines.push(`**${path.join('.')}**${types.length ? ` \u2014 \`${types.join(' | ')}\`` : ''}`);
  // In the core locale (zh-cn: core/l10n/schema.zh-cn.json), English where no current translation exists.
  const description = localDescription(r, root);
  if (description) lines.push(description);
  const facts: string[] = [];
  if (r.default !== undefined && !(typeof r.default === 'object' && r.default !== null)) facts.push(t('Default: {0}', fmt(r.default)));
  else if (Array.isArray(r.default)) facts.push(t('Default: {0}', fmt(r.default)));
  if (r.enum) facts.push(t('Allowed: {0}', r.enum.map(fmt).join(', ')));
  const renamed = r['x-enumRenamed'];
  if (renamed)
    facts.push(
      t(
        'ASTuner spellings: {0}',
        Object.entries(renamed)
          .map(([a, b]) => `${fmt(a)} \u2192 ${fmt(b)}`)
          .join(', '),
      ),
    );
  if (facts.length) lines.push(facts.join('  \n'));
  const d = r['x-dialect'];
  const fw = (x: string) => (x === 'astuner' ? 'ASTuner' : 'AgentJet');
  const moved = r['x-movedTo'] ?? r['x-renamedTo'];
  if (d && d !== dialect)
    lines.push(
      moved
        ? t('_{0} name; {1} reads `{2}`._', fw(d), fw(dialect), moved)
        : t('_{0} name; {1} reads nothing in its place._', fw(d), fw(dialect)),
    );
  else if (d)
    lines.push(
      r['x-renamedTo']
        ? t('_{0} name; the {1} name is `{2}`._', fw(d), fw(d === 'astuner' ? 'agentjet' : 'astuner'), r['x-renamedTo'])
        : t('_{0} name._', fw(d)),
    );
  if (r.deprecated && r['x-deprecatedMessage']) lines.push(t('_Deprecated: {0}_', t(r['x-deprecatedMessage'])));
  if (r['x-source']) lines.push(t('_From `{0}`._', r['x-source']));
  return lines.join('\n\n');
}
/** Markdown for a completion item resolved later (keeps completion responses small). */
export function describePath(path: string[], dialect: Family, root: SchemaNode = schema): string | undefined {
  const s = schemaForPath(path, root);
  return s ? describeKey(path, s, dialect, root) : undefined;
}
