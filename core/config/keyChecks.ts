// Checks of keys: which dialect (AgentJet or ASTuner) and framework version reads a key, renamed,
// moved and deprecated keys, and the sections a misplaced key belongs in.
import { childSchema, inDialect, resolveRef, type Family, type SchemaNode } from './schema';
import type { Range } from './text';
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
