// Rules that depend on which AgentJet release judges the file (AgentJet 0.0.4 of May 2026 onward):
// the verl overlap check, LoRA's launch requirements, swarm mode's server, and the keys one release
// added, renamed or removed. Each rule is cited in docs/config.md's table.
import { isMap, isScalar, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { nodeAt, type ParsedConfig } from './parse';
import type { Fix } from './diagnostics';
import type { Range } from './text';
import { nodeRange, push, type Ctx } from './validateContext';
import { bundledReleases, compareReleases, knowsKey, type JudgingFacts } from './releases';
import type { SchemaNode } from './schema';
import { t } from '../l10n';

/**
 * Keys AgentJet 0.0.4 renamed (old → new, relative to `ajet:`) or removed (new undefined), checked
 * against agentjet-d20cce0 and agentjet-c68c154's defaults and verl conversion tables.
 */
export const RELEASE_CHANGES: readonly { release: string; from: string; to?: string }[] = [
  { release: '0.0.4', from: 'enable_experimental_interchange_server', to: 'enable_interchange_server' },
  { release: '0.0.4', from: 'trainer_common.algorithm.use_kl_in_reward', to: 'trainer_common.use_kl_in_reward' },
  { release: '0.0.4', from: 'rollout.val_kwargs.num_repeat' },
  { release: '0.0.4', from: 'task_runner.llm_infer_submit_method' },
];

function name(f: Pick<JudgingFacts, 'release' | 'date'>): string {
  return f.release ? `AgentJet ${f.release}${f.date ? ` (${f.date})` : ''}` : 'AgentJet';
}

/**
 * A version-aware message for an `ajet.<rel>` key the judging AgentJet does not know but another
 * bundled release does: added later, or removed (maybe renamed) since.
 */
export function versionNote(facts: JudgingFacts, rel: string[]): { message: string; rename?: string } | undefined {
  const key = rel.join('.');
  const others = bundledReleases().filter((f) => f.release !== facts.release && knowsKey(f, rel));
  if (!others.length) return undefined;
  const newer = others.filter((f) => compareReleases(f.release, facts.release) > 0);
  const older = others.filter((f) => compareReleases(f.release, facts.release) < 0);
  const change = RELEASE_CHANGES.find((c) => c.from === key);
  if (older.length && !newer.length) {
    const last = older[0] as JudgingFacts;
    const removedIn = change?.release ?? facts.release ?? '?';
    if (change?.to)
      return {
        message: t(
          '`{0}` was renamed to `{1}` in AgentJet {2}; {3} ignores the old name (it was read by {4}).',
          key,
          change.to,
          removedIn,
          name(facts),
          name(last),
        ),
        rename: change.to,
      };
    return {
      message: t('`{0}` was removed in AgentJet {1} (it was read by {2}); {3} ignores it.', key, removedIn, name(last), name(facts)),
    };
  }
  const first = (newer[newer.length - 1] ?? others[0]) as JudgingFacts;
  return { message: t('`{0}` was added in AgentJet {1}; {2} does not read it.', key, first.release ?? '?', name(facts)) };
}

// ---------------------------------------------------------------- whole-file rules of a release

/** Python's str() of a YAML scalar, as the overlap check compares them (`str(a) != str(b)`). */
function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  return String(v);
}

function ajetValue(ctx: Ctx, rel: string[]): { value: unknown; pair?: Pair; inFile: boolean } {
  const hit = nodeAt(ctx.p.rootMap, ctx.doc, ['ajet', ...rel]);
  if (hit) return { value: isScalar(hit.node) ? hit.node.value : hit.node ? hit.node.toJSON() : null, pair: hit.pair, inFile: true };
  let n: SchemaNode | undefined = ctx.schema.properties?.ajet;
  for (const seg of rel) n = n?.properties?.[seg];
  return { value: n?.default, inFile: false };
}

/** An edit that sets `ajet.<parent>.<key>: text`: replaces the value, or adds the key to its section. */
function setFix(ctx: Ctx, parent: string[], key: string, text: string, title: string): Fix | undefined {
  const hit = nodeAt(ctx.p.rootMap, ctx.doc, ['ajet', ...parent, key]);
  const value = hit?.pair.value as Node | null | undefined;
  if (hit && value?.range) return { title, newText: text, range: nodeRange(ctx, value), preferred: true };
  const section = nodeAt(ctx.p.rootMap, ctx.doc, ['ajet', ...parent]);
  if (!section || !isMap(section.node)) return undefined;
  const items = (section.node as YAMLMap).items;
  const first = items[0]?.key as Node | undefined;
  const last = items[items.length - 1] as Pair | undefined;
  if (!first?.range || !last) return undefined;
  const indent = ctx.p.index.position(first.range[0]).character;
  const end = ((last.value as Node | null)?.range ?? (last.key as Node).range)?.[1];
  if (end === undefined) return undefined;
  const at = ctx.p.index.position(end);
  const lineEnd = ctx.p.text.indexOf('\n', end);
  const pos = lineEnd < 0 ? ctx.p.text.length : lineEnd;
  void at;
  const r = ctx.p.index.range(pos, pos);
  return { title, newText: `\n${' '.repeat(indent)}${key}: ${text}`, range: r, preferred: true };
}

function keyRangeOf(ctx: Ctx, path: string[]): Range | undefined {
  const hit = nodeAt(ctx.p.rootMap, ctx.doc, path);
  return hit ? nodeRange(ctx, hit.pair.key as Node) : undefined;
}

/** Rules of AgentJet 0.0.4 and later; they apply when the judging facts define what they read. */
export function checkReleaseRules(ctx: Ctx): void {
  if (ctx.p.rootKey !== 'ajet' || ctx.standalone) return;
  checkVerlOverlap(ctx);
  checkLora(ctx);
  checkSwarm(ctx);
  checkOpd(ctx);
}

/**
 * On-policy distillation after 0.0.4 (`OpdLossConfig.__post_init__`, ajet/backbone/verl/distillation.py):
 * with distillation on, `loss_mode` `kl` or `k1` without `use_policy_gradient: true` raises (their
 * gradient does not depend on the teacher). Applies when the judging AgentJet has the `opd` keys.
 */
function checkOpd(ctx: Ctx): void {
  const props = ctx.schema.properties?.ajet?.properties;
  if (!props?.opd?.properties?.use_policy_gradient || !props.teacher_model?.properties?.teacher_opd_enabled) return;
  if (ajetValue(ctx, ['teacher_model', 'teacher_opd_enabled']).value !== true) return;
  const mode = ajetValue(ctx, ['opd', 'loss_mode']);
  if (!mode.inFile || (mode.value !== 'kl' && mode.value !== 'k1')) return;
  if (ajetValue(ctx, ['opd', 'use_policy_gradient']).value === true) return;
  const fix = setFix(ctx, ['opd'], 'use_policy_gradient', 'true', t('Set `ajet.opd.use_policy_gradient: true`'));
  push(
    ctx,
    'cross-field/opd',
    'error',
    t(
      '`opd.loss_mode: {0}` needs `opd.use_policy_gradient: true`: backpropagating {0} directly does not depend on the teacher, and AgentJet raises. Use `{0}+` or another mode, or turn on the policy gradient.',
      String(mode.value),
    ),
    keyRangeOf(ctx, ['ajet', 'opd', 'loss_mode']) as Range,
    fix ? [fix] : undefined,
  );
}

/**
 * `_validate_input_yaml_no_overlap_with_auto_convertion_config` (ajet/utils/config_utils.py of
 * 0.0.4): a verl key the conversion table writes, set in the config to another value than the
 * `ajet.*` key it is converted from, makes the launcher raise.
 */
function checkVerlOverlap(ctx: Ctx): void {
  const table = ctx.schema['x-release' as keyof SchemaNode] as { verlConversions?: Record<string, string[]> } | undefined;
  const conv = table?.verlConversions;
  // January's launcher has no such check (its config_utils.py never compares the two).
  if (!conv || !knowsOverlapCheck(ctx)) return;
  for (const [from, tos] of Object.entries(conv)) {
    const src = ajetValue(ctx, from.split('.'));
    if (src.value === undefined || (typeof src.value === 'object' && src.value !== null)) continue;
    for (const to of tos) {
      const hit = nodeAt(ctx.p.rootMap, ctx.doc, to.split('.'));
      if (!hit || !isScalar(hit.node)) continue;
      const mine = hit.node.value;
      if (pyStr(mine) === pyStr(src.value)) continue;
      push(
        ctx,
        'cross-field/verl-overlap',
        'error',
        t(
          'Configuration conflict between AgentJet and Verl: `{0}` is {1} here, but AgentJet sets it from `ajet.{2}` ({3}); the launcher stops. Set `ajet.{2}` instead.',
          to,
          pyStr(mine),
          from,
          pyStr(src.value),
        ),
        nodeRange(ctx, hit.pair.key as Node),
      );
    }
  }
}

/** The overlap check exists from AgentJet 0.0.4 on. */
function knowsOverlapCheck(ctx: Ctx): boolean {
  const rel = (ctx.schema['x-release' as keyof SchemaNode] as { release?: string } | undefined)?.release;
  return compareReleases(rel, '0.0.4') >= 0;
}

/** `align_parameter_safe_guard` (config_utils.py): LoRA needs safetensors weights and layered summon. */
function checkLora(ctx: Ctx): void {
  if (!ctx.schema.properties?.ajet?.properties?.lora) return;
  const rank = ajetValue(ctx, ['lora', 'lora_rank']);
  if (typeof rank.value !== 'number' || rank.value <= 0 || !rank.inFile) return;
  const fmt = ajetValue(ctx, ['lora', 'load_format']);
  const summon = ajetValue(ctx, ['lora', 'layered_summon']);
  const anchor = (rel: string[]) => keyRangeOf(ctx, ['ajet', ...rel]) ?? (keyRangeOf(ctx, ['ajet', 'lora', 'lora_rank']) as Range);
  if (fmt.value !== 'safetensors') {
    const fix = setFix(ctx, ['lora'], 'load_format', 'safetensors', t('Set `ajet.lora.load_format: safetensors`'));
    push(
      ctx,
      'cross-field/lora',
      'error',
      t(
        'LoRA (`lora_rank: {0}`) needs `ajet.lora.load_format: safetensors`, but it is `{1}`: the verl launch stops.',
        String(rank.value),
        pyStr(fmt.value ?? 'auto'),
      ),
      anchor(['lora', 'load_format']),
      fix ? [fix] : undefined,
    );
  }
  if (summon.value !== true) {
    const fix = setFix(ctx, ['lora'], 'layered_summon', 'true', t('Set `ajet.lora.layered_summon: true`'));
    push(
      ctx,
      'cross-field/lora',
      'error',
      t('LoRA (`lora_rank: {0}`) needs `ajet.lora.layered_summon: true`: the verl launch stops.', String(rank.value)),
      anchor(['lora', 'layered_summon']),
      fix ? [fix] : undefined,
    );
  }
}

/** `start_swarm_server` (launcher.py) asserts both; the trainer only serves swarm clients through the interchange server. */
function checkSwarm(ctx: Ctx): void {
  const props = ctx.schema.properties?.ajet?.properties;
  if (!props?.enable_swarm_mode || !props.enable_interchange_server) return;
  const swarm = ajetValue(ctx, ['enable_swarm_mode']);
  if (swarm.value !== true || !swarm.inFile) return;
  const server = ajetValue(ctx, ['enable_interchange_server']);
  if (server.value === true) return;
  const fix = setFix(ctx, [], 'enable_interchange_server', 'true', t('Set `ajet.enable_interchange_server: true`'));
  push(
    ctx,
    'cross-field/swarm',
    'error',
    t(
      '`enable_swarm_mode` needs `enable_interchange_server: true`: swarm clients reach the trainer through that server, and `ajet-swarm start` stops without it.',
    ),
    keyRangeOf(ctx, ['ajet', 'enable_interchange_server']) ?? (keyRangeOf(ctx, ['ajet', 'enable_swarm_mode']) as Range),
    fix ? [fix] : undefined,
  );
}

// ---------------------------------------------------------------- "Update this config to AgentJet 0.0.4"

/** Line span of a pair (from its key's line to the end of its value), for deletion. */
function pairLines(p: ParsedConfig, pair: Pair): { start: number; end: number } | undefined {
  const k = (pair.key as Node).range;
  const v = (pair.value as Node | null)?.range ?? k;
  if (!k || !v) return undefined;
  const start = p.text.lastIndexOf('\n', k[0] - 1) + 1;
  let end = p.text.indexOf('\n', Math.max(v[1] - 1, k[1]));
  end = end < 0 ? p.text.length : end + 1;
  return { start, end };
}

/**
 * One edit list that updates a January 2026 config to AgentJet 0.0.4: renamed keys renamed in
 * place (or moved to their new section), removed keys deleted. Empty when nothing applies.
 */
export function updateEdits(p: ParsedConfig, release = '0.0.4'): { range: Range; newText: string }[] {
  const out: { range: Range; newText: string }[] = [];
  if (!p.doc || !p.rootMap || p.rootKey !== 'ajet') return out;
  const doc = p.doc as Document;
  for (const c of RELEASE_CHANGES) {
    if (c.release !== release) continue;
    const from = c.from.split('.');
    const hit = nodeAt(p.rootMap, doc, ['ajet', ...from]);
    if (!hit) continue;
    const lines = pairLines(p, hit.pair);
    if (!lines) continue;
    const to = c.to?.split('.');
    const sameParent = to && to.length === from.length && to.slice(0, -1).join('.') === from.slice(0, -1).join('.');
    if (to && sameParent) {
      const k = (hit.pair.key as Node).range;
      if (k) out.push({ range: p.index.range(k[0], k[1]), newText: to[to.length - 1] ?? '' });
      continue;
    }
    out.push({ range: p.index.range(lines.start, lines.end), newText: '' });
    if (!to || nodeAt(p.rootMap, doc, ['ajet', ...to])) continue;
    // Moved: add it under its new section, at that section's indentation.
    const section = nodeAt(p.rootMap, doc, ['ajet', ...to.slice(0, -1)]);
    if (!section || !isMap(section.node)) continue;
    const firstKey = (section.node as YAMLMap).items[0]?.key as Node | undefined;
    if (!firstKey?.range) continue;
    const indent = p.index.position(firstKey.range[0]).character;
    const lineStart = p.text.lastIndexOf('\n', firstKey.range[0] - 1) + 1;
    const valueText =
      hit.node && (hit.node as Node).range ? p.text.slice((hit.node as Node).range![0], (hit.node as Node).range![1]) : 'null';
    out.push({ range: p.index.range(lineStart, lineStart), newText: `${' '.repeat(indent)}${to[to.length - 1]}: ${valueText}\n` });
  }
  return out;
}
