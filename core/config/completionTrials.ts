// The trial validations are kept while the user types: the text tried for a key is the document
// with the candidates in place of the line being typed, so it stays the same keystroke after
// keystroke. A kept result is reused only when every question it asked of the file cache and of
// the class resolver still gets the same answer (asked again, from their own caches), so reuse is
// never staler than a fresh trial would be.
import { parseConfig, type ParsedConfig } from './parse';
import { sharedConfigFs, validateParsed } from './validate';
import type { ConfigDiagnostic } from './diagnostics';
import type { FeatureContext } from './context';
import { recording, stillTrue, type Question } from './answers';

interface Kept {
  diags: ConfigDiagnostic[];
  questions: Question[];
}

/** Kept trials per resolver and per judging facts; a few per pair (the lines being typed now). */
const KEEP = 24;
const kept = new WeakMap<object, WeakMap<object, Map<string, Kept>>>();
const NO_FACTS = {};

/** The last trial's parse: the next trial's text differs from it in a line or two (incrementalParse.ts). */
let lastParse: ParsedConfig | undefined;

/** How much work the trials did: full validations and reuses (tests read it). */
export const trialWork = { validations: 0, reused: 0 };

/** The diagnostics of `text` validated as completion's trials validate it, reused while still true. */
export function trial(text: string, ctx: FeatureContext): ConfigDiagnostic[] {
  let byFacts = kept.get(ctx.resolver);
  if (!byFacts) kept.set(ctx.resolver, (byFacts = new WeakMap()));
  const factsKey = ctx.facts ?? NO_FACTS;
  let lru = byFacts.get(factsKey);
  if (!lru) byFacts.set(factsKey, (lru = new Map()));
  const key = `${ctx.root ?? ''}\0${ctx.waitingForTrust ? 1 : 0}\0${text}`;
  const hit = lru.get(key);
  if (hit) {
    lru.delete(key);
    if (stillTrue(hit.questions, sharedConfigFs, ctx.resolver)) {
      lru.set(key, hit);
      trialWork.reused++;
      return hit.diags;
    }
  }
  const questions: Question[] = [];
  trialWork.validations++;
  lastParse = parseConfig(text, lastParse ? { previous: lastParse } : {});
  const diags = validateParsed(lastParse, {
    ...(ctx.root !== undefined ? { root: ctx.root } : {}),
    fs: recording(sharedConfigFs, 'fs', questions),
    resolver: recording(ctx.resolver, 'resolver', questions),
    ...(ctx.facts ? { facts: ctx.facts } : {}),
  });
  lru.set(key, { diags, questions });
  while (lru.size > KEEP) lru.delete(lru.keys().next().value as string);
  return diags;
}
