// The snippet a key's completion inserts: the key, its section's keys with their defaults, or its value.
import { resolveRef, typesOf, type SchemaNode } from './schema';
import { yamlScalar } from './valueTypes';

function snippetEscape(s: string): string {
  return s.replace(/[$}\\]/g, (c) => '\\' + c);
}

/**
 * The snippet of a key. Lines after the first are indented relative to the key by one `unit` of
 * the file: the editor adds the key line's own indentation to every inserted line
 * (InsertTextMode.adjustIndentation), so the snippet must not add it again.
 */
export function keySnippet(key: string, s: SchemaNode, unit: string, value?: string): string {
  // The same few per schema node (the indentation step, the checker's replacement): made once.
  let mine = snippets.get(s);
  if (!mine) snippets.set(s, (mine = new Map()));
  const at = `${key}\0${unit}\0${value === undefined ? '\u0001' : value}`;
  let out = mine.get(at);
  if (out === undefined) {
    if (mine.size >= 64) mine.clear();
    mine.set(at, (out = makeKeySnippet(key, s, unit, value)));
  }
  return out;
}

const snippets = new WeakMap<SchemaNode, Map<string, string>>();

function makeKeySnippet(key: string, s: SchemaNode, unit: string, value?: string): string {
  const r = resolveRef(s);
  const types = typesOf(r);
  if (r.properties && (types.includes('object') || !types.length)) {
    let i = 1;
    const kids = Object.entries(r.properties)
      .filter(([, v]) => !v['x-dialect'] || v['x-dialect'] === 'agentjet')
      .filter(([, v]) => !v.deprecated && v.default !== undefined && !(typeof v.default === 'object' && v.default !== null))
      .slice(0, 8);
    if (!kids.length) return `${key}:\n${unit}$0`;
    return `${key}:\n` + kids.map(([k, v]) => `${unit}${k}: ${snippetValue(v, i++)}`).join('\n');
  }
  if (types.includes('array') && !types.includes('string')) {
    const first = Array.isArray(r.default) && r.default.length ? yamlScalar(r.default[0]) : '';
    return `${key}:\n${unit}- \${1:${snippetEscape(first)}}`;
  }
  return `${key}: ${snippetValue(r, 1, value)}`;
}

/** The value a leaf key's snippet writes when accepted as it is (undefined: none or a section). */
export function snippetDefault(s: SchemaNode): string | undefined {
  // Once per schema node: schema nodes come in many shapes, and reading theirs on every request kept
  // completion from staying optimised.
  let d = defaults.get(s);
  if (d === undefined) defaults.set(s, (d = leafDefault(s) ?? null));
  return d ?? undefined;
}

const defaults = new WeakMap<SchemaNode, string | null>();

function leafDefault(s: SchemaNode): string | undefined {
  const r = resolveRef(s);
  if (r.properties || (typesOf(r).includes('array') && !typesOf(r).includes('string'))) return undefined;
  if (r.enum?.length) return r.default !== undefined && r.enum.map(String).includes(String(r.default)) ? String(r.default) : undefined;
  return defaultText(r);
}

/** The default as YAML text; placeholders and class references stay empty for the user to fill. */
function defaultText(s: SchemaNode): string | undefined {
  const d = s.default;
  if (d === undefined || d === null || typeof d === 'object') return undefined;
  if (s['x-classRef'] || s['x-pathKind'] || (typeof d === 'string' && /^\/path\/to\//.test(d))) return undefined;
  return yamlScalar(d);
}

/** `value` replaces the default the checker rejects here ('' leaves the value blank). */
function snippetValue(s: SchemaNode, n: number, value?: string): string {
  if (s.enum?.length) {
    // Put the default (or the value that replaces it) first so accepting the snippet keeps it.
    const vals = s.enum.map(String);
    const d = value !== undefined ? value : s.default === undefined ? undefined : String(s.default);
    if (value === '') return `\${${n}}`;
    const ordered = d && vals.includes(d) ? [d, ...vals.filter((v) => v !== d)] : vals;
    return `\${${n}|${ordered.map((e) => e.replace(/[|,$}\\]/g, '\\$&')).join(',')}|}`;
  }
  const d = value !== undefined ? value || undefined : defaultText(s);
  return d === undefined ? `\${${n}}` : `\${${n}:${snippetEscape(d)}}`;
}
