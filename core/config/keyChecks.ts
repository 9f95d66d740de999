// Checks of keys: which dialect (AgentJet or ASTuner) and framework version reads a key, renamed,
// moved and deprecated keys, the sections a misplaced key belongs in, and what is said of a key no schema node has.
import { childSchema, inDialect, resolveRef, type Family, type SchemaNode } from './schema';
import { suggest, type Range } from './text';
import { versionNote } from './rulesByRelease';
import { push, type Ctx } from './validateContext';
import { t } from '../l10n';

export const ROOT_NAMES = new Set(['ajet', 'astuner', 'astune']);
const versionKeySets = new WeakMap<SchemaNode, Map<string, Set<string>>>();

/** Does this framework version declare or read `<root>.<rel>` (x-versionKeys, from its code)? */
export function versionReads(ctx: Ctx, rel: string[]): boolean {
  const all = (ctx.schema as { 'x-versionKeys'?: Record<string, string[]> })['x-versionKeys'];
  if (!all) return false;
  let byVersion = versionKeySets.get(ctx.schema);
  if (!byVersion) {
    byVersion = new Map();
    versionKeySets.set(ctx.schema, byVersion);
  }
  let set = byVersion.get(ctx.version);
  if (!set) {
    set = new Set(all[ctx.version] ?? []);
    byVersion.set(ctx.version, set);
  }
  return set.has(rel.join('.'));
}
let homeIndex: { schema: SchemaNode; dialect: Family; map: Map<string, string[]> } | undefined;

/** Sections of the ajet tree that declare `key` (for keys put in the wrong section). */
export function homesOf(root: SchemaNode, key: string, dialect: Family): string[] {
  if (homeIndex?.schema !== root || homeIndex.dialect !== dialect) {
    const map = new Map<string, string[]>();
    const walk = (n: SchemaNode, path: string[], depth: number) => {
      if (depth > 6) return;
      for (const [k, v] of Object.entries(resolveRef(n).properties ?? {})) {
        if (!inDialect(v, dialect) || v.deprecated) continue;
        if (path.length) map.set(k, [...(map.get(k) ?? []), path.join('.')]);
        walk(v, [...path, k], depth + 1);
      }
    };
    const ajet = childSchema(root, 'ajet');
    if (ajet) walk(ajet, [], 0);
    homeIndex = { schema: root, dialect, map };
  }
  const homes = homeIndex.map.get(key) ?? [];
  return homes.length <= 3 ? homes : [];
}

export function checkKeyDialect(ctx: Ctx, key: string, child: SchemaNode, keyRange: Range, path: string[]): void {
  const d = child['x-dialect'];
  if (d && d !== ctx.dialect) {
    const other = child['x-movedTo'] ?? child['x-renamedTo'];
    const theirs = d === 'astuner' ? 'ASTuner' : 'AgentJet';
    const ours = ctx.dialect === 'astuner' ? 'ASTuner' : 'AgentJet';
    const movedTo = child['x-movedTo'];
    if (movedTo && ctx.dialect === 'agentjet') {
      push(ctx, 'renamed-key', 'warning', t('`{0}` is the {1} name; {2} reads `{3}` instead.', key, theirs, ours, movedTo), keyRange);
    } else if (other) {
      push(ctx, 'renamed-key', 'warning', t('`{0}` is the {1} name; {2} reads `{3}`.', key, theirs, ours, other), keyRange, [
        { title: t('Rename to `{0}`', other), newText: other, preferred: true },
      ]);
    } else {
      push(
        ctx,
        'deprecated-key',
        'warning',
        schemaText(child['x-deprecatedMessage']) ?? t('`{0}` is only read by {1}.', key, theirs),
        keyRange,
      );
    }
    return;
  }
  // The framework's own defaults files and run snapshots list every key, old ones included.
  if (child.deprecated && !d && ctx.dialect === 'agentjet' && !ctx.standalone)
    push(
      ctx,
      'deprecated-key',
      'warning',
      schemaText(child['x-deprecatedMessage']) ?? t('`{0}` is deprecated.', [...path, key].join('.')),
      keyRange,
    );
}

/** A message the schema carries (x-deprecatedMessage, x-unread): its zh-cn lives in core/l10n/zh-cn.json too. */
function schemaText(s: string | undefined): string | undefined {
  return s === undefined ? undefined : t(s);
}

const knownKeyLists = new WeakMap<SchemaNode, Map<Family, string[]>>();

/** Labels of the keys under a schema node that exist in this dialect (memoised: asked per unknown key). */
function knownKeys(node: SchemaNode, dialect: Family): string[] {
  let byDialect = knownKeyLists.get(node);
  if (!byDialect) knownKeyLists.set(node, (byDialect = new Map()));
  let keys = byDialect.get(dialect);
  if (!keys) {
    keys = Object.entries(resolveRef(node).properties ?? {})
      .filter(([, v]) => inDialect(v, dialect))
      .map(([k]) => k);
    byDialect.set(dialect, keys);
  }
  return keys;
}

/** A key its schema node lacks: what another release calls it, a likely spelling, where it belongs, or that it is ignored. Kept out of checkMap's loop, which runs for every key. */
export function reportUnknownKey(ctx: Ctx, s: SchemaNode, key: string, keyRange: Range, path: string[], open: SchemaNode['x-open']): void {
  // A key another AgentJet release reads: say which, and rename it where it was renamed.
  const note = ctx.facts && path[0] === 'ajet' && ctx.p.rootKey === 'ajet' ? versionNote(ctx.facts, [...path.slice(1), key]) : undefined;
  if (note) {
    const last = note.rename?.split('.');
    const samePlace = last && last.length === path.length && last.slice(0, -1).join('.') === path.slice(1).join('.');
    push(
      ctx,
      note.rename ? 'renamed-key' : 'unknown-key',
      'warning',
      note.message,
      keyRange,
      samePlace && last
        ? [{ title: t('Rename to `{0}`', last[last.length - 1] ?? ''), newText: last[last.length - 1] ?? '', preferred: true }]
        : undefined,
    );
    return;
  }
  const sugg = suggest(key, knownKeys(s, ctx.dialect));
  const where = path.length ? `\`${path.join('.')}\`` : t('the top level');
  const home = !sugg.length && ROOT_NAMES.has(path[0] ?? '') ? homesOf(ctx.schema, key, ctx.dialect) : [];
  if (home.length) {
    push(
      ctx,
      'unknown-key',
      'warning',
      t('`{0}` is not a key of {1}; it belongs under `{2}`.', key, where, home.map((h) => `${path[0]}.${h}`).join(t('` or `'))),
      keyRange,
    );
  } else if (sugg.length) {
    push(
      ctx,
      'unknown-key',
      'warning',
      t('Unknown key `{0}` in {1}. Did you mean `{2}`?', key, where, sugg[0] ?? ''),
      keyRange,
      sugg.map((x, i) => ({ title: t('Change to `{0}`', x), newText: x, preferred: i === 0 })),
    );
  } else if (open === 'info') {
    push(
      ctx,
      'unknown-key',
      'information',
      t('`{0}` is not a setting the framework reads in {1}; fine if your own code reads it.', key, where),
      keyRange,
    );
  } else {
    push(ctx, 'unknown-key', 'warning', t('Unknown key `{0}` in {1}; the framework ignores it.', key, where), keyRange);
  }
}
