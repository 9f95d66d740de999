// Values against their schema types: the JSON type of a YAML node, whether it fits, how a type is
// named in messages, the unquoted form of a quoted number or boolean, `{{NAME}}` and placeholder
// values, and a value written as YAML.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { JsonType } from './schema';
import type { Ctx } from './validateContext';
import { t } from '../l10n';

export function valueType(n: Node | null): JsonType {
  if (n === null || n === undefined) return 'null';
  if (isMap(n)) return 'object';
  if (isSeq(n)) return 'array';
  if (isScalar(n)) {
    const v = n.value;
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return 'boolean';
    if (typeof v === 'number' || typeof v === 'bigint') return Number.isInteger(Number(v)) ? 'integer' : 'number';
    return 'string';
  }
  return 'null';
}

export function srcText(ctx: Ctx, n: Node | null): string {
  return n?.range ? ctx.p.text.slice(n.range[0], n.range[1]) : '';
}

/** `{{NAME}}` template markers (jinja-style) that another tool fills in before launch. */
export function isTemplate(ctx: Ctx, n: Node | null): boolean {
  if (!n) return false;
  if (isScalar(n)) return typeof n.value === 'string' && /\{\{\s*[\w.-]+\s*\}\}/.test(n.value);
  // Unquoted `{{NAME}}` parses as a flow mapping holding a flow mapping.
  return isMap(n) && !!n.flow && /^\{\{\s*[\w.-]+\s*\}\}$/.test(srcText(ctx, n).trim());
}

export const PLACEHOLDER_RE = /^\/path\/to\/|^your[_-]|\/your[_-]|^xxx+(\.|$)/i;

/** Validates a parsed config. Returns [] for a document that is not an AgentJet/ASTuner config. */

export function typeOk(vt: JsonType, types: JsonType[], ctx: Ctx, value: Node | null): boolean {
  if (types.includes(vt)) {
    // `1.0` where an integer is expected is a float in Python.
    if (vt === 'integer' && !types.includes('number') && /[.eE]/.test(srcText(ctx, value)) && !/^0x/i.test(srcText(ctx, value)))
      return false;
    return true;
  }
  if (vt === 'integer' && types.includes('number')) return true;
  if (vt === 'number' && types.includes('integer')) return false;
  return false;
}

export function describe(type: JsonType): string {
  const names: Record<JsonType, string> = {
    object: t('a mapping'),
    array: t('a list'),
    integer: t('an integer'),
    number: t('a number'),
    string: t('a string'),
    boolean: t('a boolean'),
    null: t('a null'),
  };
  return names[type];
}

export function coerce(s: string, types: JsonType[]): string | undefined {
  const t = s.trim();
  if ((types.includes('integer') || types.includes('number')) && /^[-+]?\d+$/.test(t)) return t;
  if (types.includes('number') && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return t;
  if (types.includes('boolean') && /^(true|false)$/i.test(t)) return t.toLowerCase();
  return undefined;
}

export function yamlScalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string')
    return /^[\w./@+-]*$/.test(v) && !/^(true|false|null|yes|no|on|off|~|[-+.\d].*)$/i.test(v) && v !== '' ? v : JSON.stringify(v);
  if (Array.isArray(v) || typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
