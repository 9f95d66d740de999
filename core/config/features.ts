// Editor features over a parsed config, as pure functions: completion, hover, definition,
// document links and code actions. The language server only converts these to LSP types.
import { isMap, isSeq, isScalar, type Node, type Pair, type YAMLMap, type Document } from 'yaml';
import { isAbsolute, join } from 'node:path';
import { schema, childSchema, resolveRef, typesOf, inDialect, schemaAt, type SchemaNode, type Family } from './schema';
import { deref, keyString, mapPairs, nodeAt, type ParsedConfig } from './parse';
import { parseClassRef, type ClassResolver } from './classref';
import type { Range } from './text';
import type { Fix } from './diagnostics';
import { yamlScalar } from './validate';

export interface FeatureContext {
  root?: string;
  resolver: ClassResolver;
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
export function locate(p: ParsedConfig, offset: number): Located | undefined {
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
  return walk(p.rootMap, [], schema);
}

function schemaForPath(path: readonly string[]): SchemaNode | undefined {
  return schemaAt(path.map((s) => (/^\d+$/.test(s) ? Number(s) : s)));
}

// ---------------------------------------------------------------- hover

export interface HoverResult { markdown: string; range: Range }

function fmt(v: unknown): string {
  return '`' + (typeof v === 'string' ? v : JSON.stringify(v)) + '`';
}

export function describeKey(path: readonly string[], s: SchemaNode, dialect: Family): string {
  const r = resolveRef(s);
  const lines: string[] = [];
  const types = typesOf(r);
  lines.push(`**${path.join('.')}**${types.length ? ` \u2014 \`${types.join(' | ')}\`` : ''}`);
  if (r.description) lines.push(r.description);
  const facts: string[] = [];
  if (r.default !== undefined && !(typeof r.default === 'object' && r.default !== null)) facts.push(`Default: ${fmt(r.default)}`);
  else if (Array.isArray(r.default)) facts.push(`Default: ${fmt(r.default)}`);
  if (r.enum) facts.push(`Allowed: ${r.enum.map(fmt).join(', ')}`);
  const renamed = r['x-enumRenamed'];
  if (renamed) facts.push(`ASTuner spellings: ${Object.entries(renamed).map(([a, b]) => `${fmt(a)} \u2192 ${fmt(b)}`).join(', ')}`);
  if (facts.length) lines.push(facts.join('  \n'));
  const d = r['x-dialect'];
  if (d && d !== dialect) lines.push(`_${d === 'astuner' ? 'ASTuner' : 'AgentJet'} name; ${dialect === 'astuner' ? 'ASTuner' : 'AgentJet'} reads \`${r['x-movedTo'] ?? r['x-renamedTo'] ?? '(nothing)'}\`._`);
  else if (d) lines.push(`_${d === 'astuner' ? 'ASTuner' : 'AgentJet'} name${r['x-renamedTo'] ? `; the ${d === 'astuner' ? 'AgentJet' : 'ASTuner'} name is \`${r['x-renamedTo']}\`` : ''}._`);
  if (r.deprecated && r['x-deprecatedMessage']) lines.push(`_Deprecated: ${r['x-deprecatedMessage']}_`);
  if (r['x-source']) lines.push(`_From \`${r['x-source']}\`._`);
  return lines.join('\n\n');
}

export function hover(p: ParsedConfig, offset: number, ctx: FeatureContext): HoverResult | undefined {
  const loc = locate(p, offset);
  if (!loc || !loc.node?.range) return undefined;
  const range = p.index.range(loc.node.range[0], loc.node.range[1]);
  const sch = loc.schema ?? schemaForPath(loc.path);
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
      if (r.ok === 'skip') return { markdown: `\`${ref.className}\` from \`${ref.target}\`: ${r.reason}.`, range };
    }
  }
  if (!sch) return undefined;
  let md = describeKey(loc.path, sch, p.dialect);
  if (loc.part === 'value' && isScalar(loc.node) && sch.enum && sch.enum.includes(loc.node.value as string)) md = `\`${String(loc.node.value)}\` \u2014 one of ${sch.enum.map(fmt).join(', ')}\n\n` + md;
  return { markdown: md, range };
}

// ---------------------------------------------------------------- definition and links

export interface FileLocation { file: string; line: number; character: number }

export function definition(p: ParsedConfig, offset: number, ctx: FeatureContext): FileLocation | { range: Range } | undefined {
  const loc = locate(p, offset);
  if (!loc || loc.part !== 'value' || !isScalar(loc.node) || typeof loc.node.value !== 'string') return undefined;
  const str = loc.node.value;
  const sch = loc.schema ?? schemaForPath(loc.path);
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
    const target = nodeAt(p.rootMap, p.doc, (m[1] as string).trim().split('.'));
    const k = target?.pair.key as Node | undefined;
    if (k?.range) return { range: p.index.range(k.range[0], k.range[1]) };
  }
  return undefined;
}

export interface DocLink { range: Range; file: string }

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
      if (isMap(v)) { visit(v, ks, depth + 1); continue; }
      if (!ks || !isScalar(v) || typeof v.value !== 'string' || !v.range) continue;
      const str = v.value;
      const quoted = p.text[v.range[0]] === '"' || p.text[v.range[0]] === "'";
      const base = v.range[0] + (quoted ? 1 : 0);
      if (ks['x-classRef']) {
        const ref = parseClassRef(str);
        if ('error' in ref) continue;
        const file = ref.form === 'file' ? (isAbsolute(ref.target) ? ref.target : join(root, ref.target)) : ctx.resolver.moduleFile(root, ref.target);
        if (file && ctx.resolver.module(file)) out.push({ range: p.index.range(base + ref.targetStart, base + ref.targetEnd), file });
      } else if (ks['x-pathKind'] && ks['x-pathKind'] !== 'model') {
        const file = isAbsolute(str) ? str : join(root, str);
        if (ctx.resolver.exists(file)) out.push({ range: p.index.range(base, base + str.length), file });
      }
    }
  };
  visit(p.rootMap, schema, 0);
  return out;
}

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
    path.unshift(m[2] as string);
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
      if (ind === indent) { const m = /^\s*([\w.-]+)\s*:/.exec(t); if (m) out.add(m[1] as string); }
    }
  }
  return out;
}

function snippetEscape(s: string): string { return s.replace(/[$}\\]/g, (c) => '\\' + c); }

function keySnippet(key: string, s: SchemaNode, indent: string): string {
  const r = resolveRef(s);
  const types = typesOf(r);
  if (r.properties && (types.includes('object') || !types.length)) {
    let i = 1;
    const kids = Object.entries(r.properties).filter(([, v]) => !v['x-dialect'] || v['x-dialect'] === 'agentjet').filter(([, v]) => !v.deprecated && v.default !== undefined && !(typeof v.default === 'object' && v.default !== null)).slice(0, 8);
    if (!kids.length) return `${key}:\n${indent}  $0`;
    return `${key}:\n` + kids.map(([k, v]) => `${indent}  ${k}: ${snippetValue(v, i++)}`).join('\n');
  }
  if (types.includes('array') && !types.includes('string')) {
    const first = Array.isArray(r.default) && r.default.length ? yamlScalar(r.default[0]) : '';
    return `${key}:\n${indent}  - \${1:${snippetEscape(first)}}`;
  }
  return `${key}: ${snippetValue(r, 1)}`;
}

/** The default as YAML text; placeholders and class references stay empty for the user to fill. */
function defaultText(s: SchemaNode): string | undefined {
  const d = s.default;
  if (d === undefined || d === null || typeof d === 'object') return undefined;
  if (s['x-classRef'] || s['x-pathKind'] || (typeof d === 'string' && /^\/path\/to\//.test(d))) return undefined;
  return yamlScalar(d);
}

function snippetValue(s: SchemaNode, n: number): string {
  if (s.enum?.length) {
    // Put the default first so accepting the snippet keeps it.
    const vals = s.enum.map(String);
    const d = s.default === undefined ? undefined : String(s.default);
    const ordered = d && vals.includes(d) ? [d, ...vals.filter((v) => v !== d)] : vals;
    return `\${${n}|${ordered.map((e) => e.replace(/[|,$}\\]/g, '\\$&')).join(',')}|}`;
  }
  const d = defaultText(s);
  return d === undefined ? `\${${n}}` : `\${${n}:${snippetEscape(d)}}`;
}

/** Markdown for a completion item resolved later (keeps completion responses small). */
export function describePath(path: string[], dialect: Family): string | undefined {
  const s = schemaForPath(path);
  return s ? describeKey(path, s, dialect) : undefined;
}

export function complete(p: ParsedConfig, offset: number, ctx: FeatureContext): CompletionEntry[] {
  const idx = p.index;
  const pos = idx.position(offset);
  const lineText = idx.lineText(pos.line);
  const before = lineText.slice(0, pos.character);
  const lineAt = (l: number) => idx.lineText(l);
  const lineStart = idx.lineStart(pos.line);

  // Value position: `key: partial`
  const vm = /^(\s*)(?:-\s+)?([\w.-]+)\s*:\s+(.*)$/.exec(before) ?? /^(\s*)(?:-\s+)?([\w.-]+)\s*:()$/.exec(before);
  if (vm) {
    const indent = (vm[1] as string).length + (/^\s*-\s+/.test(before) ? (/^\s*-\s+/.exec(before) as RegExpExecArray)[0].length - (vm[1] as string).length : 0);
    const parent = parentPath(lineAt, pos.line, indent);
    if (!parent) return [];
    const key = vm[2] as string;
    const partialRaw = vm[3] ?? '';
    const quote = /^["']/.test(partialRaw) ? 1 : 0;
    const from = offset - partialRaw.length + quote;
    const lineEnd = idx.lineEnd(pos.line);
    let to = offset;
    while (to < lineEnd && /[\w.\-/>]/.test(p.text[to] as string)) to++;
    const sch = schemaForPath([...parent, key]);
    return sch ? valueCompletions(sch, partialRaw.slice(quote), from, to, ctx, p.dialect) : [];
  }

  // List item under a key: `  - partial`
  const lm = /^(\s*)-\s+([\w.-]*)$/.exec(before);
  if (lm) {
    const indent = (lm[1] as string).length;
    let keyLine = pos.line - 1;
    while (keyLine >= 0 && (/^\s*-/.test(lineAt(keyLine)) || !lineAt(keyLine).trim())) keyLine--;
    const km = keyLine >= 0 ? KEY_LINE.exec(lineAt(keyLine)) : null;
    if (!km || (km[1] as string).length > indent) return [];
    const parent = parentPath(lineAt, keyLine, (km[1] as string).length);
    if (!parent) return [];
    const sch = schemaForPath([...parent, km[2] as string]);
    const item = sch?.items ? resolveRef(sch.items) : undefined;
    const from = offset - (lm[2] as string).length;
    if ([...parent, km[2]].join('.') === 'defaults') {
      return ['verl_default', 'trinity_default', 'ajet_default', '_self_'].map((v, i) => ({ label: v, kind: 'value' as const, insertText: v, snippet: false, sortText: String(i), from, to: offset }));
    }
    return item ? valueCompletions(item, lm[2] as string, from, offset, ctx, p.dialect) : [];
  }

  // Key position: `  partial`
  const km = /^(\s*)([\w.-]*)$/.exec(before);
  if (!km) return [];
  const indent = (km[1] as string).length;
  const parent = parentPath(lineAt, pos.line, indent);
  if (!parent) return [];
  const parentSchema = parent.length === 0 ? schema : schemaForPath(parent);
  if (!parentSchema) return [];
  const present = siblingKeys(lineAt, idx.lineCount, pos.line, indent);
  const from = lineStart + indent;
  let to = offset;
  const lineEnd = idx.lineEnd(pos.line);
  while (to < lineEnd && /[\w.-]/.test(p.text[to] as string)) to++;
  const after = p.text.slice(to, lineEnd);
  const hasColon = /^\s*:/.test(after);
  const out: CompletionEntry[] = [];
  const props = resolveRef(parentSchema).properties ?? {};
  const pad = ' '.repeat(indent);
  for (const [k, v] of Object.entries(props)) {
    if (present.has(k) && k !== km[2]) continue;
    const r = resolveRef(v);
    if (!inDialect(r, p.dialect) && parent.length > 0) continue;
    if (parent.length === 0 && (k === 'astuner' || k === 'astune') && p.dialect === 'agentjet') continue;
    const isSection = !!r.properties;
    const inAjet = parent.length > 0 && ['ajet', 'astuner', 'astune'].includes(parent[0] as string);
    const rank = parent.length === 0
      ? (['ajet', 'hydra', 'defaults', 'trinity'].indexOf(k) + 10) % 10 // our sections first, then verl's
      : r.deprecated ? 9
        : inAjet && ['model', 'rollout', 'task_reader', 'task_judge', 'data', 'user_workflow', 'path', 'type', 'judge_protocol'].includes(k) ? 0
          : r['x-source'] === 'verl_default.yaml' || r['x-source'] === 'trinity_default.yaml' ? 5 : 1;
    out.push({
      label: k,
      kind: isSection ? 'section' : 'key',
      insertText: hasColon ? k : keySnippet(k, r, pad),
      snippet: !hasColon,
      detail: typesOf(r).join(' | ') || (isSection ? 'section' : undefined),
      docPath: [...parent, k],
      sortText: `${rank}${k}`,
      from, to, deprecated: !!r.deprecated,
    });
  }
  return out;
}

function valueCompletions(sch: SchemaNode, partial: string, from: number, to: number, ctx: FeatureContext, dialect: Family): CompletionEntry[] {
  const s = resolveRef(sch);
  const out: CompletionEntry[] = [];
  if (s['x-classRef'] && ctx.root) {
    const arrow = partial.indexOf('->');
    if (arrow >= 0) {
      const target = partial.slice(0, arrow).trim();
      const file = target.endsWith('.py') ? (isAbsolute(target) ? target : join(ctx.root, target)) : ctx.resolver.moduleFile(ctx.root, target);
      const mod = file ? ctx.resolver.module(file) : undefined;
      const want = s['x-classRef'] === 'judge' ? /Judge/ : /Workflow/;
      for (const c of mod?.classes.values() ?? []) {
        const fits = c.bases.some((b) => want.test(b));
        out.push({ label: c.name, kind: 'class', insertText: c.name, snippet: false, detail: c.bases.length ? `(${c.bases.join(', ')})` : 'class', documentation: c.docstring, sortText: `${fits ? 0 : 1}${c.name}`, from: from + arrow + 2, to });
      }
      return out;
    }
    for (const m of ctx.resolver.listModules(ctx.root)) {
      out.push({ label: m, kind: 'module', insertText: `${m}->`, snippet: false, detail: 'module', sortText: `1${m}`, from, to, retrigger: true });
    }
    return out;
  }
  const types = typesOf(s);
  if (s.enum) {
    s.enum.forEach((e, i) => out.push({ label: String(e), kind: 'enum', insertText: String(e), snippet: false, detail: 'allowed value', sortText: String(i).padStart(3, '0'), from, to }));
    if (dialect === 'astuner') for (const a of Object.keys(s['x-enumRenamed'] ?? {})) out.push({ label: a, kind: 'enum', insertText: a, snippet: false, detail: 'ASTuner spelling', sortText: `5${a}`, from, to });
  } else if (types.includes('boolean')) {
    for (const b of ['true', 'false']) out.push({ label: b, kind: 'boolean', insertText: b, snippet: false, sortText: b === String(s.default) ? '0' : '1', from, to });
  } else if (s.default !== undefined && s.default !== null && typeof s.default !== 'object') {
    out.push({ label: yamlScalar(s.default), kind: 'value', insertText: yamlScalar(s.default), snippet: false, detail: 'default', sortText: '0', from, to });
  }
  return out;
}

// ---------------------------------------------------------------- code actions

export interface TextEditOffsets { start: number; end: number; newText: string }
export interface Action { title: string; kind: 'quickfix' | 'refactor.rewrite'; edits: { range: Range; newText: string }[]; preferred?: boolean; diagnosticCode?: string }

/** Quick fixes carried by diagnostics (typo fixes, renames, enum fixes). */
export function fixActions(diags: { code: string; range: Range; fixes?: Fix[] }[]): Action[] {
  const out: Action[] = [];
  for (const d of diags) for (const f of d.fixes ?? []) out.push({ title: f.title, kind: 'quickfix', edits: [{ range: f.range ?? d.range, newText: f.newText }], preferred: f.preferred, diagnosticCode: d.code });
  return out;
}

/** Edits that rewrite an ASTuner config (or one with ASTuner names) into AgentJet's dialect. */
export function migrateEdits(p: ParsedConfig): { range: Range; newText: string }[] {
  const edits: TextEditOffsets[] = [];
  if (!p.doc || !p.rootMap) return [];
  const doc = p.doc;
  const text = p.text;
  const rootPair = p.rootMap.items.find((x) => keyString(x) === p.rootKey);
  if (rootPair && p.rootKey !== 'ajet' && (rootPair.key as Node).range) {
    const r = (rootPair.key as Node).range as [number, number, number];
    edits.push({ start: r[0], end: r[1], newText: 'ajet' });
  }
  const visit = (map: YAMLMap, sch: SchemaNode | undefined, depth: number) => {
    if (depth > 16) return;
    for (const pair of map.items) {
      const key = keyString(pair);
      if (key === undefined) continue;
      const ks = sch ? childSchema(sch, key) : undefined;
      const kr = (pair.key as Node).range;
      if (ks?.['x-dialect'] === 'astuner' && kr) {
        if (ks['x-renamedTo'] && !ks['x-movedTo']) edits.push({ start: kr[0], end: kr[1], newText: ks['x-renamedTo'] });
        else if (ks.deprecated) {
          // Drop a single-line key the new dialect does not read (e.g. use_agentscope_protocol).
          const v = pair.value as Node | null;
          const end = v?.range ? v.range[1] : kr[1];
          const ls = text.lastIndexOf('\n', kr[0] - 1) + 1;
          let le = text.indexOf('\n', end);
          le = le < 0 ? text.length : le + 1;
          if (!text.slice(kr[0], end).includes('\n') && /^\s*$/.test(text.slice(ls, kr[0]))) edits.push({ start: ls, end: le, newText: '' });
        }
      }
      const v = pair.value as Node | null;
      if (isMap(v)) visit(v, ks, depth + 1);
      else if (isScalar(v) && typeof v.value === 'string' && v.range && ks) {
        const ren = ks['x-enumRenamed']?.[v.value];
        const quoted = text[v.range[0]] === '"' || text[v.range[0]] === "'";
        const s0 = v.range[0] + (quoted ? 1 : 0);
        if (ren) edits.push({ start: s0, end: s0 + v.value.length, newText: ren });
        else if (ks['x-classRef'] && /^(astuner|astune)\./.test(v.value)) {
          const n = (/^(astuner|astune)/.exec(v.value) as RegExpExecArray)[0].length;
          edits.push({ start: s0, end: s0 + n, newText: 'ajet' });
        }
      }
    }
  };
  const rootVal = rootPair ? deref(rootPair.value, doc) : null;
  if (isMap(rootVal)) visit(rootVal, childSchema(schema, 'ajet'), 0);
  // Hydra wiring: search path and defaults name the ASTuner package.
  const re = /(file:\/\/)(astuner|astune)(\/default_config)|^(\s*-\s*)(astuner_default|astune_default)\b/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (m[1]) edits.push({ start: m.index + m[1].length, end: m.index + m[1].length + (m[2] as string).length, newText: 'ajet' });
    else edits.push({ start: m.index + (m[4] as string).length, end: m.index + (m[4] as string).length + (m[5] as string).length, newText: 'ajet_default' });
  }
  edits.sort((a, b) => a.start - b.start);
  const clean = edits.filter((e, i) => i === 0 || e.start >= (edits[i - 1] as TextEditOffsets).end);
  return clean.map((e) => ({ range: p.index.range(e.start, e.end), newText: e.newText }));
}

export function hasAstunerContent(p: ParsedConfig): boolean {
  if (p.dialect === 'astuner' || (p.rootKey && p.rootKey !== 'ajet')) return true;
  return migrateEdits(p).length > 0;
}

/** Appends the Hydra `searchpath` and `defaults` blocks a composed config needs. */
export function hydraBoilerplateEdit(p: ParsedConfig): { range: Range; newText: string } | undefined {
  if (!p.rootMap || !p.doc) return undefined;
  const doc: Document = p.doc;
  const hasHydra = !!nodeAt(p.rootMap, doc, ['hydra', 'searchpath']);
  const hasDefaults = !!nodeAt(p.rootMap, doc, ['defaults']);
  if (hasHydra && hasDefaults) return undefined;
  const eol = p.text.includes('\r\n') ? '\r\n' : '\n';
  const pkg = p.dialect === 'astuner' ? 'astuner' : 'ajet';
  const parts: string[] = [];
  if (!hasHydra && !nodeAt(p.rootMap, doc, ['hydra'])) parts.push(['hydra:', '  searchpath:', `    - file://${pkg}/default_config`, `    - file://${pkg}/default_config/verl`, `    - file://${pkg}/default_config/trinity`].join(eol));
  if (!hasDefaults) parts.push(['defaults:', '  - verl_default', '  - trinity_default', `  - ${pkg}_default`, '  - _self_'].join(eol));
  if (!parts.length) return undefined;
  const end = p.text.length;
  const lead = p.text.length === 0 || p.text.endsWith('\n') ? '' : eol;
  return { range: p.index.range(end, end), newText: lead + eol + parts.join(eol + eol) + eol };
}

export function refactorActions(p: ParsedConfig): Action[] {
  const out: Action[] = [];
  if (hasAstunerContent(p)) {
    const edits = migrateEdits(p);
    if (edits.length) out.push({ title: 'Migrate this ASTuner config to AgentJet', kind: 'refactor.rewrite', edits });
  }
  const hb = hydraBoilerplateEdit(p);
  if (hb) out.push({ title: 'Add Hydra boilerplate (searchpath and defaults)', kind: 'refactor.rewrite', edits: [hb] });
  return out;
}

/** All code actions for a range: fixes of the given diagnostics, then whole-file rewrites. */
export function codeActions(p: ParsedConfig, diags: { code: string; range: Range; fixes?: Fix[] }[]): Action[] {
  const out = fixActions(diags);
  const hb = hydraBoilerplateEdit(p);
  for (const d of diags) if (d.code === 'missing-defaults' && hb) out.push({ title: 'Add Hydra boilerplate (searchpath and defaults)', kind: 'quickfix', edits: [hb], preferred: true, diagnosticCode: d.code });
  return [...out, ...refactorActions(p)];
}
