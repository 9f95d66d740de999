// Structural diff and patch of JSON values, so a bundled version's schema ships as its differences
// from the base schema. Objects are diffed key by key; anything else (arrays included) is replaced
// whole. A removed key is written as DELETED.
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Marker of a key the newer value no longer has. */
const DELETED = { $deleted: true } as const;

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isDeleted(v: unknown): boolean {
  return isObject(v) && Object.keys(v).length === 1 && v.$deleted === true;
}

/** The patch that turns `a` into `b` (undefined when they are equal). */
export function jsonDiff(a: Json, b: Json): Json | undefined {
  if (isObject(a) && isObject(b)) {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(a)) if (!(k in b)) out[k] = DELETED as unknown as Json;
    for (const [k, v] of Object.entries(b)) {
      if (!(k in a)) out[k] = isObject(v) ? { $whole: v } : v;
      else {
        const d = jsonDiff(a[k] as Json, v);
        if (d !== undefined) out[k] = d;
      }
    }
    return Object.keys(out).length ? out : undefined;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  return isObject(b) ? { $whole: b } : b;
}

/** Applies a patch of jsonDiff to a copy of `a`. */
export function jsonPatch(a: Json, patch: Json | undefined): Json {
  if (patch === undefined) return a;
  if (isObject(patch) && '$whole' in patch && Object.keys(patch).length === 1) return patch.$whole as Json;
  if (!isObject(patch)) return patch;
  const base: Record<string, Json> = isObject(a) ? { ...a } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (isDeleted(v)) delete base[k];
    else base[k] = jsonPatch(base[k] as Json, v);
  }
  return base;
}
