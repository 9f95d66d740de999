// Completion of keys (nested snippets), values, module paths and class names.
import { isAbsolute, join } from 'node:path';
import { schema, resolveRef, typesOf, inDialect, type SchemaNode, type Family } from './schema';
import type { ParsedConfig } from './parse';
import { yamlScalar } from './valueTypes';
import { schemaForPath, type FeatureContext } from './context';
import { acceptedValues, rejectedDefaults } from './completionScreen';
import { indentUnit } from './indentUnit';
import { keySnippet, snippetDefault } from './keySnippets';
import { t } from '../l10n';

export { describePath } from './context';
export { indentUnit } from './indentUnit';
export { keySnippet } from './keySnippets';

// ---------------------------------------------------------------- completion

export interface CompletionEntry {
  label: string;
  kind: 'key' | 'section' | 'value' | 'enum' | 'module' | 'class' | 'boolean';
  insertText: string;
  snippet: boolean;
  detail?: string;
  documentation?: string;
  /** Key path whose description fills `documentation` lazily (completionItem/resolve). */
  docPath?: string[];
  sortText: string;
  /** Replace range (offsets). */
  from: number;
  to: number;
  deprecated?: boolean;
  retrigger?: boolean;
  /** Shown right after the label (LSP `labelDetails.detail`), never cut before the label. */
  labelDetail?: string;
  /** Shown after the label, right-aligned (LSP `labelDetails.description`). */
  labelDescription?: string;
  /** Text matched against what is typed, when it differs from the label. */
  filterText?: string;
}

const KEY_LINE = /^(\s*)(?:-\s+)?([\w.-]+)\s*:(?:\s+(?:#.*)?)?$/;

/** Path of the mapping that encloses `line` at `indent`, by indentation (works on half-typed text). */
function parentPath(lines: (l: number) => string, line: number, indent: number): string[] | undefined {
  const path: string[] = [];
  let want = indent;
  for (let l = line - 1; l >= 0 && want > 0; l--) {
    const t = lines(l);
    if (!t.trim() || /^\s*#/.test(t)) continue;
    const ind = (/^\s*/.exec(t) as RegExpExecArray)[0].length;
    if (ind >= want) continue;
    const m = /^(\s*)([\w.-]+)\s*:\s*(#.*)?$/.exec(t);
    if (!m) return undefined; // inside a list or flow content: no key context
    const [, , key = ''] = m;
    path.unshift(key);
    want = ind;
  }
  return want > 0 && path.length === 0 ? undefined : path;
}

function siblingKeys(lines: (l: number) => string, count: number, line: number, indent: number): Set<string> {
  const out = new Set<string>();
  for (const dir of [-1, 1]) {
    for (let l = line + dir; l >= 0 && l < count; l += dir) {
      const t = lines(l);
      if (!t.trim() || /^\s*#/.test(t)) continue;
      const ind = (/^\s*/.exec(t) as RegExpExecArray)[0].length;
      if (ind < indent) break;
      if (ind === indent) {
        const m = /^\s*([\w.-]+)\s*:/.exec(t);
        if (m?.[1] !== undefined) out.add(m[1]);
      }
    }
  }
  return out;
}

/** A schema's properties as entries, made once per properties object (every request walked them twice). */
const entries = new WeakMap<Record<string, SchemaNode>, [string, SchemaNode][]>();
function propEntries(props: Record<string, SchemaNode>): [string, SchemaNode][] {
  let e = entries.get(props);
  if (!e) entries.set(props, (e = Object.entries(props)));
  return e;
}

/** The indentation step per parse (a scan of the whole text), asked again by every request on it. */
const units = new WeakMap<ParsedConfig, string>();

/** Where completion was asked: the line before the cursor and what the three kinds of position read. */
interface At {
  p: ParsedConfig;
  offset: number;
  ctx: FeatureContext;
  root: SchemaNode;
  idx: ParsedConfig['index'];
  pos: { line: number; character: number };
  before: string;
  lineAt: (l: number) => string;
  lineStart: number;
}

export function complete(p: ParsedConfig, offset: number, ctx: FeatureContext): CompletionEntry[] {
  // A dispatcher and one function per kind of position: each is optimised, and re-optimised, on its own.
  const idx = p.index;
  const pos = idx.position(offset);
  const before = idx.lineText(pos.line).slice(0, pos.character);
  const at: At = {
    p,
    offset,
    ctx,
    root: ctx.facts?.schema ?? schema,
    idx,
    pos,
    before,
    lineAt: (l) => idx.lineText(l),
    lineStart: idx.lineStart(pos.line),
  };
  // Value position: `key: partial`
  const vm = /^(\s*)(?:-\s+)?([\w.-]+)\s*:\s+(.*)$/.exec(before) ?? /^(\s*)(?:-\s+)?([\w.-]+)\s*:()$/.exec(before);
  if (vm) return completeValue(at, vm);

  // List item under a key: `  - partial`
  const lm = /^(\s*)-\s+([\w.-]*)$/.exec(before);
  if (lm) return completeListItem(at, lm);
  return completeKey(at);
}

/** A value: `key: partial`. */
function completeValue({ p, offset, ctx, root, idx, pos, before, lineAt }: At, vm: RegExpExecArray): CompletionEntry[] {
  const [, lead = '', key = '', partialRaw = ''] = vm;
  const dash = /^\s*-\s+/.exec(before);
  const indent = lead.length + (dash ? dash[0].length - lead.length : 0);
  const parent = parentPath(lineAt, pos.line, indent);
  if (!parent) return [];
  const quote = /^["']/.test(partialRaw) ? 1 : 0;
  const from = offset - partialRaw.length + quote;
  const lineEnd = idx.lineEnd(pos.line);
  let to = offset;
  while (to < lineEnd && /[\w.\-/>]/.test(p.text.charAt(to))) to++;
  const sch = schemaForPath([...parent, key], root);
  return sch ? screenValues(p.text, valueCompletions(sch, partialRaw.slice(quote), from, to, ctx, p.dialect), from, to, ctx) : [];
}

/** A list item under a key: `  - partial`. */
function completeListItem({ p, offset, ctx, root, pos, lineAt }: At, lm: RegExpExecArray): CompletionEntry[] {
  const [, lead = '', partial = ''] = lm;
  const indent = lead.length;
  let keyLine = pos.line - 1;
  while (keyLine >= 0 && (/^\s*-/.test(lineAt(keyLine)) || !lineAt(keyLine).trim())) keyLine--;
  const km = keyLine >= 0 ? KEY_LINE.exec(lineAt(keyLine)) : null;
  if (!km) return [];
  const [, keyLead = '', listKey = ''] = km;
  if (keyLead.length > indent) return [];
  const parent = parentPath(lineAt, keyLine, keyLead.length);
  if (!parent) return [];
  const sch = schemaForPath([...parent, listKey], root);
  const item = sch?.items ? resolveRef(sch.items) : undefined;
  const from = offset - partial.length;
  if ([...parent, listKey].join('.') === 'defaults') {
    return ['verl_default', 'trinity_default', 'ajet_default', '_self_'].map((v, i) => ({
      label: v,
      kind: 'value' as const,
      insertText: v,
      snippet: false,
      sortText: String(i),
      from,
      to: offset,
    }));
  }
  return item ? valueCompletions(item, partial, from, offset, ctx, p.dialect) : [];
}

/** A key: `  partial`. */
function completeKey({ p, offset, ctx, root, idx, pos, before, lineAt, lineStart }: At): CompletionEntry[] {
  const km = /^(\s*)([\w.-]*)$/.exec(before);
  if (!km) return [];
  const [, keyIndent = ''] = km;
  const indent = keyIndent.length;
  const parent = parentPath(lineAt, pos.line, indent);
  if (!parent) return [];
  const parentSchema = parent.length === 0 ? root : schemaForPath(parent, root);
  if (!parentSchema) return [];
  const present = siblingKeys(lineAt, idx.lineCount, pos.line, indent);
  const from = lineStart + indent;
  let to = offset;
  const lineEnd = idx.lineEnd(pos.line);
  while (to < lineEnd && /[\w.-]/.test(p.text.charAt(to))) to++;
  const after = p.text.slice(to, lineEnd);
  const hasColon = /^\s*:/.test(after);
  const out: CompletionEntry[] = [];
  const props = resolveRef(parentSchema).properties ?? {};
  let unit = units.get(p);
  if (unit === undefined) units.set(p, (unit = indentUnit(p.text)));
  // The values the snippets would write, tried against the checker in one go.
  const tried = new Map<string, string>();
  if (!hasColon)
    for (const [k, v] of propEntries(props)) {
      if (present.has(k) && k !== km[2]) continue;
      const d = snippetDefault(v);
      if (d !== undefined) tried.set(k, d);
    }
  const lineEndAll = idx.lineEnd(pos.line);
  const replaced = tried.size ? rejectedDefaults(p.text, lineStart, lineEndAll, keyIndent, tried, ctx) : new Map<string, string>();
  for (const [k, v] of propEntries(props)) {
    if (present.has(k) && k !== km[2]) continue;
    const r = resolveRef(v);
    if (!inDialect(r, p.dialect) && parent.length > 0) continue;
    if (parent.length === 0 && (k === 'astuner' || k === 'astune') && p.dialect === 'agentjet') continue;
    const isSection = !!r.properties;
    const inAjet = parent.length > 0 && ['ajet', 'astuner', 'astune'].includes(parent[0] ?? '');
    const rank =
      parent.length === 0
        ? (['ajet', 'hydra', 'defaults', 'trinity'].indexOf(k) + 10) % 10 // our sections first, then verl's
        : r.deprecated
          ? 9
          : inAjet &&
              ['model', 'rollout', 'task_reader', 'task_judge', 'data', 'user_workflow', 'path', 'type', 'judge_protocol'].includes(k)
            ? 0
            : r['x-source'] === 'verl_default.yaml' || r['x-source'] === 'trinity_default.yaml'
              ? 5
              : 1;
    out.push({
      label: k,
      kind: isSection ? 'section' : 'key',
      insertText: hasColon ? k : keySnippet(k, r, unit, replaced.get(k)),
      snippet: !hasColon,
      detail: typesOf(r).join(' | ') || (isSection ? t('section') : undefined),
      docPath: [...parent, k],
      sortText: `${rank}${k}`,
      from,
      to,
      deprecated: !!r.deprecated,
    });
  }
  return out;
}

/** Scalar value candidates the checker would reject here are left out (see completionScreen.ts). */
function screenValues(text: string, entries: CompletionEntry[], from: number, to: number, ctx: FeatureContext): CompletionEntry[] {
  const scalars = entries.filter((e) => e.kind === 'enum' || e.kind === 'boolean' || e.kind === 'value');
  if (!scalars.length || scalars.length !== entries.length) return entries;
  const ok = acceptedValues(
    text,
    from,
    to,
    scalars.map((e) => e.insertText),
    ctx,
  );
  return entries.filter((e) => ok.has(e.insertText));
}

function valueCompletions(
  sch: SchemaNode,
  partial: string,
  from: number,
  to: number,
  ctx: FeatureContext,
  dialect: Family,
): CompletionEntry[] {
  const s = resolveRef(sch);
  const out: CompletionEntry[] = [];
  if (s['x-classRef'] && ctx.root) {
    const arrow = partial.indexOf('->');
    if (arrow >= 0) {
      const target = partial.slice(0, arrow).trim();
      const file = target.endsWith('.py')
        ? isAbsolute(target)
          ? target
          : join(ctx.root, target)
        : ctx.resolver.moduleFile(ctx.root, target);
      const mod = file ? ctx.resolver.module(file, ctx.root) : undefined;
      const want = s['x-classRef'] === 'judge' ? /Judge/ : /Workflow/;
      for (const c of mod?.classes.values() ?? []) {
        const fits = c.bases.some((b) => want.test(b));
        out.push({
          label: c.name,
          kind: 'class',
          insertText: c.name,
          snippet: false,
          detail: c.bases.length ? `(${c.bases.join(', ')})` : t('class'),
          ...(c.bases.length ? { labelDetail: `(${c.bases.join(', ')})` } : {}),
          documentation: c.docstring,
          sortText: `${fits ? 0 : 1}${c.name}`,
          from: from + arrow + 2,
          to,
        });
      }
      return out;
    }
    for (const m of ctx.resolver.listModules(ctx.root)) {
      // The module's own name is the label; its package goes to the description, so a long dotted
      // name is never cut in the middle of the part that tells modules apart.
      const dot = m.lastIndexOf('.');
      out.push({
        label: dot >= 0 ? m.slice(dot + 1) : m,
        kind: 'module',
        insertText: `${m}->`,
        snippet: false,
        detail: m,
        filterText: m,
        ...(dot >= 0 ? { labelDescription: m.slice(0, dot) } : {}),
        sortText: `1${m}`,
        from,
        to,
        retrigger: true,
      });
    }
    return out;
  }
  const types = typesOf(s);
  if (s.enum) {
    s.enum.forEach((e, i) =>
      out.push({
        label: String(e),
        kind: 'enum',
        insertText: String(e),
        snippet: false,
        detail: t('allowed value'),
        sortText: String(i).padStart(3, '0'),
        from,
        to,
      }),
    );
    if (dialect === 'astuner')
      for (const a of Object.keys(s['x-enumRenamed'] ?? {}))
        out.push({ label: a, kind: 'enum', insertText: a, snippet: false, detail: t('ASTuner spelling'), sortText: `5${a}`, from, to });
  } else if (types.includes('boolean')) {
    for (const b of ['true', 'false'])
      out.push({ label: b, kind: 'boolean', insertText: b, snippet: false, sortText: b === String(s.default) ? '0' : '1', from, to });
  } else if (s.default !== undefined && s.default !== null && typeof s.default !== 'object') {
    out.push({
      label: yamlScalar(s.default),
      kind: 'value',
      insertText: yamlScalar(s.default),
      snippet: false,
      detail: t('default'),
      sortText: '0',
      from,
      to,
    });
  }
  return out;
}
