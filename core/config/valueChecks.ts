// Checks of single values: allowed values (per framework version), class references, paths and
// `${...}` interpolations; empty values and values of the wrong type.
import { isMap, isScalar, type Node, type Pair, type Scalar } from 'yaml';
import { isAbsolute, join } from 'node:path';
import { childSchema, resolveRef, type JsonType, type SchemaNode } from './schema';
import { coerce, describe, srcText, yamlScalar } from './valueTypes';
import { mapKeyCount, mapKeys, nodeAt } from './parse';
import { suggest, type Range } from './text';
import type { Fix } from './diagnostics';
import { parseClassRef } from './classref';
import { frameworkName } from '../agentjet/dialect';
import { nodeRange, push, readsWhole, spendSuggest, type Ctx } from './validateContext';
import { t } from '../l10n';

export function checkEnum(ctx: Ctx, value: Scalar, s: SchemaNode, name: string, range: Range): void {
  const v = value.value as string | number | boolean;
  // The values the code of this version accepts, when known; else the schema's (AgentJet's) list.
  const byVersion = s['x-enumByVersion']?.[ctx.version];
  const allowed: (string | number | boolean | null)[] = byVersion ?? s.enum ?? [];
  if (allowed.includes(v)) return;
  const soft = s['x-enumSeverity'] === 'warning';
  const renamed = s['x-enumRenamed'] ?? {};
  const sv = String(v);
  // A spelling of another version: the code of this one rejects it (an error when the code raises).
  const to = renamed[sv] ?? Object.entries(renamed).find(([, b]) => b === sv)?.[0];
  if (to !== undefined) {
    if (!byVersion && ctx.dialect === 'astuner' && sv in renamed) return; // no per-version list: the ASTuner spelling stands
    if (!byVersion || allowed.includes(to)) {
      const fw = frameworkName(ctx.version);
      const stops = !!byVersion && !soft;
      const msg =
        sv in renamed
          ? stops
            ? t('`{0}` is the older (ASTuner) spelling; {1} expects `{2}` (any other value stops the run).', sv, fw, to)
            : t('`{0}` is the older (ASTuner) spelling; {1} expects `{2}`.', sv, fw, to)
          : stops
            ? t('`{0}` is the newer (AgentJet) spelling; {1} expects `{2}` (any other value stops the run).', sv, fw, to)
            : t('`{0}` is the newer (AgentJet) spelling; {1} expects `{2}`.', sv, fw, to);
      push(ctx, 'renamed-value', soft ? 'warning' : byVersion ? 'error' : 'warning', msg, range, [
        { title: t('Change to `{0}`', to), newText: to, preferred: true },
      ]);
      return;
    }
  }
  const sugg = suggest(sv, allowed.map(String));
  const list = allowed.map((a) => `\`${String(a)}\``).join(', ');
  const fallback = soft ? s['x-enumFallback'] : undefined;
  const base =
    fallback !== undefined
      ? t('`{0}` is not a `{1}` this AgentJet knows ({2}); it uses `{3}` instead.', sv, name, list, fallback)
      : byVersion
        ? t('`{0}` is not a valid `{1}` in {2}; expected one of {3}.', sv, name, frameworkName(ctx.version), list)
        : t('`{0}` is not a valid `{1}`; expected one of {2}.', sv, name, list);
  push(
    ctx,
    'enum',
    soft ? 'warning' : 'error',
    sugg[0] !== undefined ? t('{0} Did you mean `{1}`?', base, sugg[0]) : base,
    range,
    sugg.map((x, i) => ({ title: t('Change to `{0}`', x), newText: x, preferred: i === 0 })),
  );
}

/** Offset of the value's text inside the scalar's source (quoted scalars start one later). */
function contentStart(ctx: Ctx, n: Scalar): number {
  const start = n.range?.[0] ?? 0;
  const c = ctx.p.text[start];
  return c === '"' || c === "'" ? start + 1 : start;
}

export function checkClassRef(ctx: Ctx, n: Scalar, str: string): void {
  const base = contentStart(ctx, n);
  const quoted = base !== (n.range?.[0] ?? 0);
  const whole = nodeRange(ctx, n);
  const ref = parseClassRef(str);
  if ('error' in ref) {
    push(ctx, 'class-ref/syntax', 'error', t('Bad class reference: {0}.', ref.error), whole);
    return;
  }
  if (!ctx.root) return;
  // Offsets inside the value map 1:1 onto the source unless escapes were used in a quoted string.
  const exact = !quoted || !ctx.p.text.slice(base, base + str.length).includes('\\');
  const sub = (a: number, b: number) => (exact ? ctx.p.index.range(base + a, base + b) : whole);
  const r = ctx.resolver.resolve(ref, ctx.root);
  if (r.ok === true || r.ok === 'skip') return;
  if (r.ok === 'unchecked') {
    // A large file's class is what went unconfirmed; otherwise the module's installed package.
    const range = r.file ? sub(ref.classStart, ref.classEnd) : sub(ref.targetStart, ref.targetEnd);
    push(ctx, r.trust ? 'class-ref/waits-for-trust' : 'class-ref/unchecked', 'information', r.message, range);
    return;
  }
  const fixes: Fix[] = [];
  if (r.code === 'class-ref/missing-class') {
    const file =
      ref.form === 'file'
        ? isAbsolute(ref.target)
          ? ref.target
          : join(ctx.root, ref.target)
        : ctx.resolver.moduleFile(ctx.root, ref.target);
    const mod = file ? ctx.resolver.module(file, ctx.root) : undefined;
    const close = mod ? suggest(ref.className, mod.classes.keys()) : [];
    // A reference can only name a class of that module: offer them all when none is close.
    const sugg = close.length ? close : [...(mod?.classes.keys() ?? [])].slice(0, 5);
    const range = sub(ref.classStart, ref.classEnd);
    sugg.forEach((x, i) => fixes.push({ title: t('Change to `{0}`', x), newText: x, range, preferred: i === 0 }));
  }
  push(
    ctx,
    r.code,
    r.severity,
    r.message,
    r.part === 'class' ? sub(ref.classStart, ref.classEnd) : sub(ref.targetStart, ref.targetEnd),
    fixes,
  );
}

export function checkPath(ctx: Ctx, n: Scalar, str: string, kind: 'file' | 'dir' | 'model' | 'files'): void {
  const v = str.trim();
  if (ctx.standalone || !ctx.root || !v || /^[a-z]+:\/\//i.test(v)) return;
  // A model may be a hub id (`Qwen/Qwen2.5-7B`); only local-looking paths are checked.
  if (kind === 'model' && !(isAbsolute(v) || v.startsWith('./') || v.startsWith('../') || v.startsWith('~'))) return;
  if (v.startsWith('~')) return;
  const abs = isAbsolute(v) ? v : join(ctx.root, v);
  if (ctx.fs.kind(abs)) return;
  push(
    ctx,
    'path-missing',
    'warning',
    isAbsolute(v)
      ? t('`{0}` does not exist on this machine; fine if the job runs where it does.', v)
      : t('`{0}` does not exist on this machine (relative to {1}); fine if the job runs where it does.', v, ctx.root),
    nodeRange(ctx, n),
  );
}

/** Paths the merged config is known to have: the document plus the framework defaults. */
function interpolationTargetExists(ctx: Ctx, path: string[]): boolean {
  if (nodeAt(ctx.p.rootMap, ctx.doc, path)) return true;
  // The ASTuner roots are the same tree as ajet.
  let sch: SchemaNode | undefined = ctx.schema;
  for (const seg of path) {
    if (!sch) return false;
    const r = resolveRef(sch);
    const c: SchemaNode | undefined = childSchema(r, seg);
    if (!c) {
      // Inside an open subtree we cannot know every key that will exist.
      return r['x-open'] === true || (!r.properties && r.additionalProperties !== false && !r.type);
    }
    sch = c;
  }
  return true;
}

export function checkInterpolations(ctx: Ctx, n: Scalar, path: string[]): void {
  readsWhole(ctx);
  const str = n.value as string;
  const base = contentStart(ctx, n);
  const exact = !ctx.p.text.slice(base, base + str.length).includes('\\');
  const re = /\$\{([^}]*)(\}|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(str))) {
    const inner = (m[1] ?? '').trim();
    const range = exact ? ctx.p.index.range(base + m.index, base + m.index + m[0].length) : nodeRange(ctx, n);
    if (m[2] !== '}') {
      push(ctx, 'bad-interpolation', 'error', t('Unclosed `${` interpolation.'), range);
      break;
    }
    if (!inner) {
      push(ctx, 'bad-interpolation', 'error', t('Empty `${}` interpolation.'), range);
      continue;
    }
    if (inner.includes(':') || inner.includes('${')) continue; // resolvers (oc.env:..., now:...) are not checked
    let target: string[];
    if (inner.startsWith('.')) {
      const dots = (/^\.+/.exec(inner) as RegExpExecArray)[0].length;
      target = [...path.slice(0, Math.max(0, path.length - dots)), ...inner.slice(dots).split('.')];
    } else target = inner.split('.');
    if (target.some((seg) => !seg)) {
      push(ctx, 'bad-interpolation', 'error', t('`{0}` is not a valid key path.', inner), range);
      continue;
    }
    if (!interpolationTargetExists(ctx, target)) {
      const parent = target.slice(0, -1);
      const last = target.at(-1) ?? '';
      const parentNode = parent.length ? nodeAt(ctx.p.rootMap, ctx.doc, parent) : undefined;
      const cands = new Set<string>();
      if (parentNode && isMap(parentNode.node) && spendSuggest(ctx, mapKeyCount(parentNode.node, ctx.doc)))
        for (const k of mapKeys(parentNode.node, ctx.doc)) if (k) cands.add(k);
      const ps = parent.reduce<SchemaNode | undefined>((acc, seg) => (acc ? childSchema(acc, seg) : undefined), ctx.schema);
      for (const k of Object.keys(ps?.properties ?? {})) cands.add(k);
      const sugg = suggest(last, cands);
      const missing = t('`{0}` points to a key that does not exist in this file or the framework defaults.', `\${${inner}}`);
      push(
        ctx,
        'bad-interpolation',
        'error',
        sugg[0] !== undefined ? t('{0} Did you mean `{1}`?', missing, [...parent, sugg[0]].join('.')) : missing,
        range,
        sugg.slice(0, 1).map((x) => ({
          title: t('Change to {0}', `\${${[...parent, x].join('.')}}`),
          newText: `\${${[...parent, x].join('.')}}`,
          preferred: true,
        })),
      );
    }
  }
}

/** `key:` with nothing after it where a scalar with a default is expected: it becomes null; offer the default. */
export function reportEmpty(
  ctx: Ctx,
  raw: Node | null,
  s: SchemaNode,
  types: JsonType[],
  name: string,
  range: Range,
  pair: Pair | undefined,
): void {
  const empty = !raw || (isScalar(raw) && srcText(ctx, raw).trim() === '');
  const expectsScalar = types.length > 0 && !types.includes('null') && !types.includes('object') && !types.includes('array');
  if (empty && expectsScalar && s.default !== null && s.default !== undefined) {
    const keyNode = pair?.key as Node | undefined;
    const fixes: Fix[] = [];
    if (keyNode?.range) {
      // Replace `key:` with `key: default`.
      const colon = ctx.p.text.indexOf(':', keyNode.range[1]);
      if (colon >= 0)
        fixes.push({
          title: t('Set the default ({0})', JSON.stringify(s.default)),
          newText: `${srcText(ctx, keyNode)}: ${yamlScalar(s.default)}`,
          range: ctx.p.index.range(keyNode.range[0], colon + 1),
          preferred: true,
        });
    }
    push(
      ctx,
      'empty-value',
      'warning',
      t('`{0}` has no value, so it becomes null; the default is `{1}`.', name, JSON.stringify(s.default)),
      keyNode ? nodeRange(ctx, keyNode) : range,
      fixes,
    );
  }
}

/** A value of the wrong type (cold: out of checkValue, which runs for every value). */
export function reportTypeMismatch(
  ctx: Ctx,
  value: Node | null,
  str: string | undefined,
  vt: JsonType,
  types: JsonType[],
  name: string,
  range: Range,
): void {
  const want = types.filter((x) => x !== 'null').reduce((a, b) => (a ? t('{0} or {1}', a, b) : b), '');
  if (str !== undefined && /^(none|null|~)$/i.test(str.trim())) {
    push(ctx, 'type-mismatch', 'warning', t('`{0}` is read as the string "{0}", not as null; write `null`.', str), range, [
      { title: t('Write `null`'), newText: 'null', preferred: true },
    ]);
    return;
  }
  const soft = types.includes('string') && (vt === 'integer' || vt === 'number' || vt === 'boolean');
  const fixes: Fix[] = [];
  if (vt === 'string' && str !== undefined) {
    const coerced = coerce(str, types);
    if (coerced !== undefined) fixes.push({ title: t('Write {0} without quotes', coerced), newText: coerced, preferred: true });
  }
  push(
    ctx,
    'type-mismatch',
    soft ? 'warning' : 'error',
    isScalar(value)
      ? t('`{0}` expects {1}, got {2} `{3}`.', name, want, describe(vt), srcText(ctx, value))
      : t('`{0}` expects {1}, got {2}.', name, want, describe(vt)),
    range,
    fixes,
  );
}
