// Hover, go to definition and document links over a parsed config.
import { isMap, isScalar, type Node, type YAMLMap } from 'yaml';
import { isAbsolute, join } from 'node:path';
import { schema, childSchema, type SchemaNode } from './schema';
import { keyString, mapPairs, nodeAt, type ParsedConfig } from './parse';
import { parseClassRef } from './classref';
import type { Range } from './text';
import { locate, schemaForPath, fmt, describeKey, type FeatureContext } from './context';
import { t } from '../l10n';
import { TRUST_COMMAND, trustActionTitle, waitsForTrustMessage } from '../trust/policy';

/** The Trust action in a hover (the client allows this one command in hover links). */
function trustLink(): string {
  return `[${trustActionTitle()}](command:${TRUST_COMMAND})`;
}

function trustNote(): string {
  return `_${waitsForTrustMessage()}_ ${trustLink()}`;
}

// ---------------------------------------------------------------- hover

export interface HoverResult {
  markdown: string;
  range: Range;
}

export function hover(p: ParsedConfig, offset: number, ctx: FeatureContext): HoverResult | undefined {
  const root: SchemaNode = ctx.facts?.schema ?? schema;
  const loc = locate(p, offset, root);
  if (!loc || !loc.node?.range) return undefined;
  const range = p.index.range(loc.node.range[0], loc.node.range[1]);
  const sch = loc.schema ?? schemaForPath(loc.path, root);
  if (loc.part === 'value' && sch?.['x-classRef'] && isScalar(loc.node) && typeof loc.node.value === 'string' && ctx.root) {
    const ref = parseClassRef(loc.node.value);
    if (!('error' in ref)) {
      const r = ctx.resolver.resolve(ref, ctx.root);
      if (r.ok === true) {
        const c = r.cls;
        const parts = ['```python\nclass ' + c.name + (c.bases.length ? `(${c.bases.join(', ')})` : '') + '\n```'];
        if (c.docstring) parts.push(c.docstring);
        if (c.execute) parts.push('```python\n' + c.execute + '\n```');
        parts.push(`_${r.file}:${c.line + 1}_`);
        return { markdown: parts.join('\n\n'), range };
      }
      if (r.ok === 'skip') return { markdown: t('`{0}` from `{1}`: {2}.', ref.className, ref.target, r.reason), range };
      if (r.ok === 'unchecked') return { markdown: r.trust ? `${r.message}\n\n${trustLink()}` : r.message, range };
    }
  }
  if (!sch) return undefined;
  let md = describeKey(loc.path, sch, p.dialect, root);
  if (loc.part === 'value' && isScalar(loc.node) && sch.enum && sch.enum.includes(loc.node.value as string))
    md = t('`{0}` \u2014 one of {1}', String(loc.node.value), sch.enum.map(fmt).join(', ')) + '\n\n' + md;
  if (ctx.facts) md += '\n\n' + t('_Judged by {0}._', ctx.facts.label + (ctx.facts.provisional ? t(' (still reading your AgentJet)') : ''));
  if (ctx.facts?.notUsed) md += '\n\n' + t('_Your AgentJet is not used: {0}._', ctx.facts.notUsed);
  if (ctx.waitingForTrust) md += '\n\n' + trustNote();
  return { markdown: md, range };
}

// ---------------------------------------------------------------- definition and links

export interface FileLocation {
  file: string;
  line: number;
  character: number;
}

export function definition(p: ParsedConfig, offset: number, ctx: FeatureContext): FileLocation | { range: Range } | undefined {
  const root: SchemaNode = ctx.facts?.schema ?? schema;
  const loc = locate(p, offset, root);
  if (!loc || loc.part !== 'value' || !isScalar(loc.node) || typeof loc.node.value !== 'string') return undefined;
  const str = loc.node.value;
  const sch = loc.schema ?? schemaForPath(loc.path, root);
  if (sch?.['x-classRef'] && ctx.root) {
    const ref = parseClassRef(str);
    if ('error' in ref) return undefined;
    const r = ctx.resolver.resolve(ref, ctx.root);
    if (r.ok === true) return { file: r.file, line: r.cls.line, character: r.cls.character };
    return undefined;
  }
  // `${a.b.c}`: jump to the key in this file.
  const m = /\$\{([^}:]+)\}/.exec(str);
  if (m && p.rootMap && p.doc) {
    const [, inner = ''] = m;
    const target = nodeAt(p.rootMap, p.doc, inner.trim().split('.'));
    const k = target?.pair.key as Node | undefined;
    if (k?.range) return { range: p.index.range(k.range[0], k.range[1]) };
  }
  return undefined;
}

export interface DocLink {
  range: Range;
  file: string;
}

export function documentLinks(p: ParsedConfig, ctx: FeatureContext): DocLink[] {
  const out: DocLink[] = [];
  if (!p.rootMap || !p.doc || !ctx.root) return out;
  const doc = p.doc;
  const root = ctx.root;
  const visit = (map: YAMLMap, sch: SchemaNode | undefined, depth: number) => {
    if (depth > 12) return;
    for (const { pair, merged } of mapPairs(map, doc)) {
      if (merged) continue;
      const key = keyString(pair);
      if (key === undefined) continue;
      const ks = sch ? childSchema(sch, key) : undefined;
      const v = pair.value as Node | null;
      if (isMap(v)) {
        visit(v, ks, depth + 1);
        continue;
      }
      if (!ks || !isScalar(v) || typeof v.value !== 'string' || !v.range) continue;
      const str = v.value;
      const quoted = p.text[v.range[0]] === '"' || p.text[v.range[0]] === "'";
      const base = v.range[0] + (quoted ? 1 : 0);
      if (ks['x-classRef']) {
        const ref = parseClassRef(str);
        if ('error' in ref) continue;
        const file =
          ref.form === 'file' ? (isAbsolute(ref.target) ? ref.target : join(root, ref.target)) : ctx.resolver.moduleFile(root, ref.target);
        if (file && ctx.resolver.module(file, root)) out.push({ range: p.index.range(base + ref.targetStart, base + ref.targetEnd), file });
      } else if (ks['x-pathKind'] && ks['x-pathKind'] !== 'model') {
        const file = isAbsolute(str) ? str : join(root, str);
        if (ctx.resolver.exists(file)) out.push({ range: p.index.range(base, base + str.length), file });
      }
    }
  };
  visit(p.rootMap, ctx.facts?.schema ?? schema, 0);
  return out;
}
