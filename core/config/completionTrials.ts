// The trial validations are kept while the user types: the text tried for a key is the document
// with the candidates in place of the line being typed, so it stays the same keystroke after
// keystroke. A kept result is reused only when every question it asked of the file cache and of
// the class resolver still gets the same answer (asked again, from their own caches), so reuse is
// never staler than a fresh trial would be.
import { parseConfig, type ParsedConfig } from './parse';
import { sharedConfigFs, validateParsed } from './validate';
import type { ConfigDiagnostic } from './diagnostics';
import type { FeatureContext } from './context';
import type { ConfigFs } from './fs';
import type { ClassResolver } from './classref';

interface Question {
  on: 'fs' | 'resolver';
  method: string;
  args: unknown[];
  answer: unknown;
}

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

/** Same answer: the same value, or arrays / plain records whose members are the same values. */
function sameAnswer(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return ka.length === kb.length && ka.every((k) => ra[k] === rb[k]);
  }
  return false;
}

/** A view of `target` that records each call made from outside (not the calls it makes on itself). */
function recording<T extends object>(target: T, on: Question['on'], log: Question[]): T {
  let depth = 0;
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const v: unknown = Reflect.get(obj, prop, receiver);
      if (typeof v !== 'function' || typeof prop !== 'string' || prop === 'constructor') return v;
      const fn = v as (...a: unknown[]) => unknown;
      return function (this: unknown, ...args: unknown[]): unknown {
        depth++;
        try {
          const answer = fn.apply(this, args);
          if (depth === 1) log.push({ on, method: prop, args, answer });
          return answer;
        } finally {
          depth--;
        }
      };
    },
  });
}

function stillTrue(k: Kept, fs: ConfigFs, resolver: ClassResolver): boolean {
  for (const q of k.questions) {
    const target = (q.on === 'fs' ? fs : resolver) as unknown as Record<string, (...a: unknown[]) => unknown>;
    const fn = target[q.method];
    if (typeof fn !== 'function' || !sameAnswer(fn.apply(target, q.args), q.answer)) return false;
  }
  return true;
}

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
    if (stillTrue(hit, sharedConfigFs, ctx.resolver)) {
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
