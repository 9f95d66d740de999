// The engine of the rules that depend on which AgentJet judges the file. The rules themselves are
// data (core/config/releaseRules.ts), each keyed on facts of the judging AgentJet (a key, a function,
// a file), which the schema it judges with carries; nothing here names a release. Each rule is
// cited in docs/config.md's table.
import { isMap, isScalar, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { nodeAt, nodeJson, type ParsedConfig } from './parse';
import type { Fix } from './diagnostics';
import type { Range } from './text';
import { nodeRange, push, type Ctx } from './validateContext';
import { bundledReleases, compareReleases, knowsKey, releaseName, type JudgingFacts } from './releases';
import type { ConfigSchema, SchemaNode } from './schema';
import { t } from '../l10n';
import {
  factName,
  KEY_CHANGES,
  RELEASE_RULES,
  type ConversionOverlapRule,
  type KeyChange,
  type ReleaseRule,
  type RequiresRule,
  type Scalar,
  type TreeFact,
  type ValueTest,
} from './releaseRules';

/** Does the AgentJet whose schema this is have the fact (a key its defaults declare, a recorded def or file)? */
export function hasFact(schema: ConfigSchema, fact: TreeFact): boolean {
  if ('key' in fact) {
    let n: SchemaNode | undefined = schema.properties?.ajet;
    for (const seg of fact.key.split('.')) n = n?.properties?.[seg];
    return !!n;
  }
  return !!schema['x-release']?.has?.includes(factName(fact));
}

/** The newest bundled AgentJet (what a file is updated to when no AgentJet judges it). */
export function newestBundled(): JudgingFacts {
  return bundledReleases()[0] as JudgingFacts;
}

/** The rules of the table that apply to the AgentJet whose schema this is. */
export function rulesFor(schema: ConfigSchema, rules: readonly ReleaseRule[] = RELEASE_RULES): ReleaseRule[] {
  return rules.filter((r) => r.when.every((f) => hasFact(schema, f)));
}

/**
 * The key changes that apply to an AgentJet: it no longer knows the old key and, for a rename,
 * knows the new one.
 */
export function changesFor(facts: JudgingFacts, changes: readonly KeyChange[] = KEY_CHANGES): KeyChange[] {
  return changes.filter((c) => !knowsKey(facts, c.from.split('.')) && (!c.to || knowsKey(facts, c.to.split('.'))));
}

const name = releaseName;

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
  const change = changesFor(facts).find((c) => c.from === key);
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
  if (hit) return { value: isScalar(hit.node) ? hit.node.value : hit.node ? nodeJson(hit.node) : null, pair: hit.pair, inFile: true };
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

/** The table's rules that apply to the judging AgentJet, run over the file. */
export function checkReleaseRules(ctx: Ctx): void {
  if (ctx.p.rootKey !== 'ajet' || ctx.standalone) return;
  for (const rule of rulesFor(ctx.schema)) {
    if (rule.kind === 'conversion-overlap') checkConversionOverlap(ctx, rule);
    else checkRequires(ctx, rule);
  }
}

function passes(v: { value: unknown; inFile: boolean }, test: ValueTest): boolean {
  if (test.inFile && !v.inFile) return false;
  if (test.equals !== undefined && v.value !== test.equals) return false;
  if (test.oneOf && !test.oneOf.includes(v.value as Scalar)) return false;
  if (test.above !== undefined && !(typeof v.value === 'number' && v.value > test.above)) return false;
  return true;
}

/** The YAML text of a required value (`true`, `safetensors`). */
function yamlText(v: Scalar): string {
  return v === null ? 'null' : String(v);
}

/** A `requires` rule: when every `given` holds, each requirement the file misses is an error with its fix. */
function checkRequires(ctx: Ctx, rule: RequiresRule): void {
  if (!rule.given.every((g) => passes(ajetValue(ctx, g.key.split('.')), g))) return;
  const args = (rule.args ?? []).map((a) => {
    const v = ajetValue(ctx, a.key.split('.')).value;
    return pyStr(v ?? a.orElse);
  });
  const firstGiven = rule.given.find((g) => g.inFile) ?? rule.given[0];
  for (const req of rule.requires) {
    const path = req.key.split('.');
    if (ajetValue(ctx, path).value === req.value) continue;
    const fix = setFix(ctx, path.slice(0, -1), path[path.length - 1] ?? '', yamlText(req.value), t(req.fix));
    const anchor = rule.anchor
      ? keyRangeOf(ctx, ['ajet', ...rule.anchor.split('.')])
      : (keyRangeOf(ctx, ['ajet', ...path]) ?? (firstGiven ? keyRangeOf(ctx, ['ajet', ...firstGiven.key.split('.')]) : undefined));
    if (!anchor) continue;
    push(ctx, rule.code, 'error', t(req.message, ...args), anchor, fix ? [fix] : undefined);
  }
}

/**
 * A conversion-overlap rule: a key the judging AgentJet's conversion table writes, set in the
 * config to another value than the `ajet.*` key it is converted from, makes the launcher raise
 * (`str(a) != str(b)`, hence Python's str() on both sides).
 */
function checkConversionOverlap(ctx: Ctx, rule: ConversionOverlapRule): void {
  const conv = ctx.schema['x-release']?.verlConversions;
  if (!conv) return;
  for (const [from, tos] of Object.entries(conv)) {
    const src = ajetValue(ctx, from.split('.'));
    if (src.value === undefined || (typeof src.value === 'object' && src.value !== null)) continue;
    for (const to of tos) {
      const hit = nodeAt(ctx.p.rootMap, ctx.doc, to.split('.'));
      if (!hit || !isScalar(hit.node)) continue;
      const mine = hit.node.value;
      if (pyStr(mine) === pyStr(src.value)) continue;
      push(ctx, rule.code, 'error', t(rule.message, to, pyStr(mine), from, pyStr(src.value)), nodeRange(ctx, hit.pair.key as Node));
    }
  }
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
 * One edit list that updates a config to the AgentJet of `facts` (default: the newest bundled one):
 * the key changes that apply to it (`changesFor`), renamed keys renamed in place (or moved to their
 * new section), removed keys deleted. Empty when nothing applies.
 */
export function updateEdits(p: ParsedConfig, facts: JudgingFacts = newestBundled()): { range: Range; newText: string }[] {
  const out: { range: Range; newText: string }[] = [];
  if (!p.doc || !p.rootMap || p.rootKey !== 'ajet') return out;
  const doc = p.doc as Document;
  for (const c of changesFor(facts)) {
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
