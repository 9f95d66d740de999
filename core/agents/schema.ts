// The input schemas of the agent tools, as JSON Schema (what MCP's tools/list and VS Code's
// `contributes.languageModelTools[].inputSchema` both take), and the one check of a call's
// arguments against them: an agent's arguments are untrusted input.
import { t } from '../l10n';

export interface ScalarSchema {
  type: 'string' | 'integer' | 'number' | 'boolean';
  description: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** A list of strings (run folders, keys). */
export interface StringListSchema {
  type: 'array';
  description: string;
  items: { type: 'string'; minLength?: number; maxLength?: number };
  minItems?: number;
  maxItems?: number;
}

/** An object argument (agentjet_wait's `until`): checked as the arguments themselves are. */
export interface NestedObjectSchema extends ObjectSchema {
  description: string;
}

export type PropertySchema = ScalarSchema | StringListSchema | NestedObjectSchema;

export interface ObjectSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties: false;
}

export interface ToolArgs {
  [key: string]: string | number | boolean | string[] | ToolArgs | undefined;
}

/** Objects nest at most this deep (an agent's arguments are untrusted input). */
const MAX_DEPTH = 4;

/** The arguments as the schema allows them, or the first problem in one plain sentence. */
export function checkArgs(
  schema: ObjectSchema,
  raw: unknown,
  depth = 0,
  prefix = '',
): { ok: true; args: ToolArgs } | { ok: false; problem: string } {
  if (depth > MAX_DEPTH) return { ok: false, problem: t('the arguments nest too deeply') };
  const input = raw === undefined || raw === null ? {} : raw;
  if (typeof input !== 'object' || Array.isArray(input)) return { ok: false, problem: t('the arguments must be an object') };
  const args: ToolArgs = {};
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    const p = schema.properties[k];
    if (!p) return { ok: false, problem: t('unknown argument "{0}" (known: {1})', k, Object.keys(schema.properties).join(', ') || '-') };
    if (v === undefined || v === null) continue;
    if (p.type === 'array') {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
        return { ok: false, problem: t('"{0}" must be a list of strings', prefix + k) };
      const list = v as string[];
      if (p.minItems !== undefined && list.length < p.minItems)
        return { ok: false, problem: t('"{0}" needs at least {1} items', k, p.minItems) };
      if (p.maxItems !== undefined && list.length > p.maxItems)
        return { ok: false, problem: t('"{0}" takes at most {1} items', k, p.maxItems) };
      const { minLength, maxLength } = p.items;
      if (minLength !== undefined && list.some((x) => x.length < minLength))
        return { ok: false, problem: t('"{0}" must not hold an empty item', k) };
      if (maxLength !== undefined && list.some((x) => x.length > maxLength))
        return { ok: false, problem: t('"{0}" is longer than {1} characters', k, maxLength) };
      args[k] = [...list];
      continue;
    }
    if (p.type === 'object') {
      if (typeof v !== 'object' || Array.isArray(v)) return { ok: false, problem: t('"{0}" must be an object', prefix + k) };
      const inner = checkArgs(p, v, depth + 1, `${prefix}${k}.`);
      if (!inner.ok) return inner;
      args[k] = inner.args;
      continue;
    }
    if (p.type === 'string') {
      if (typeof v !== 'string') return { ok: false, problem: t('"{0}" must be a string', k) };
      if (p.minLength !== undefined && v.length < p.minLength) return { ok: false, problem: t('"{0}" must not be empty', k) };
      if (p.maxLength !== undefined && v.length > p.maxLength)
        return { ok: false, problem: t('"{0}" is longer than {1} characters', k, p.maxLength) };
    } else if (p.type === 'boolean') {
      if (typeof v !== 'boolean') return { ok: false, problem: t('"{0}" must be true or false', k) };
    } else {
      if (typeof v !== 'number' || !Number.isFinite(v)) return { ok: false, problem: t('"{0}" must be a number', k) };
      if (p.type === 'integer' && !Number.isInteger(v)) return { ok: false, problem: t('"{0}" must be a whole number', k) };
      if (p.minimum !== undefined && v < p.minimum) return { ok: false, problem: t('"{0}" must be at least {1}', k, p.minimum) };
      if (p.maximum !== undefined && v > p.maximum) return { ok: false, problem: t('"{0}" must be at most {1}', k, p.maximum) };
    }
    args[k] = v as string | number | boolean;
  }
  for (const r of schema.required ?? []) if (args[r] === undefined) return { ok: false, problem: t('"{0}" is required', r) };
  return { ok: true, args };
}
