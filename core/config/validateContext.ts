// The state one validation pass shares between its checks (validate.ts) and rules (rules.ts).
import type { Document } from 'yaml';
import type { ParsedConfig } from './parse';
import type { Range } from './text';
import type { ConfigDiagnostic, DiagnosticCode, Fix, Severity } from './diagnostics';
import type { ClassResolver } from './classref';
import type { ConfigFs } from './fs';
import type { ConfigSchema } from './schema';
import type { JudgingFacts } from './releases';
import type { Family, FrameworkVersion } from '../agentjet/dialect';
import type { CheckSession } from './checkCache';

export interface Ctx {
  p: ParsedConfig;
  doc: Document;
  out: ConfigDiagnostic[];
  dialect: Family;
  /** The framework version whose code reads this file. */
  version: FrameworkVersion;
  root?: string;
  fs: ConfigFs;
  resolver: ClassResolver;
  schema: ConfigSchema;
  /** The AgentJet that judges this file (its schema is `schema`). */
  facts?: JudgingFacts;
  inheritsDefaults: boolean;
  /** A run snapshot or a framework defaults file: complete on its own, written by the framework. */
  standalone: boolean;
  /** A piece merged into or read by something else (defaults file, Hydra piece, data-generation
   * config): the launch essentials are not demanded of it. */
  fragment: boolean;
  /** Key names from the document left to compare for "Did you mean" (keeps a huge map linear). */
  suggestBudget?: number;
  /** The diagnostics kept from the last version of the document (checkCache.ts). */
  checks?: CheckSession;
}

/** A check read the document outside the subtree being checked: the subtree's result is not kept. */
export function readsWhole(ctx: Ctx): void {
  if (ctx.checks) ctx.checks.cross++;
}

/** Names the document holds compared per validation for suggestions; a real config uses a few hundred. */
export const DOCUMENT_SUGGEST_BUDGET = 50_000;

/**
 * May `count` names from the document be compared for a suggestion? Spends the pass's budget, so a
 * document with thousands of misses into a huge map stays linear (no suggestion once it is spent).
 */
export function spendSuggest(ctx: Ctx, count: number): boolean {
  readsWhole(ctx);
  const left = ctx.suggestBudget ?? DOCUMENT_SUGGEST_BUDGET;
  if (count > left) {
    ctx.suggestBudget = 0;
    return false;
  }
  ctx.suggestBudget = left - count;
  return true;
}

export function nodeRange(ctx: Ctx, n: { range?: [number, number, number?] | null } | null | undefined, fallback?: Range): Range {
  if (n?.range) return ctx.p.index.range(n.range[0], n.range[1]);
  return fallback ?? ctx.p.index.range(0, 0);
}

export function push(ctx: Ctx, code: DiagnosticCode, severity: Severity, message: string, range: Range, fixes?: Fix[]): void {
  const d: ConfigDiagnostic = { code, severity, message, range };
  if (fixes?.length) d.fixes = fixes;
  ctx.out.push(d);
}

export function rootName(ctx: Ctx): string {
  return ctx.p.rootKey ?? 'ajet';
}
