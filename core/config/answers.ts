// Questions asked of the file cache and the class resolver, recorded with their answers, so a kept
// result (a completion trial, a subtree's diagnostics) is reused only while every question it asked
// still gets the same answer (asked again, from their own caches).
import type { ConfigFs } from './fs';
import type { ClassResolver } from './classref';

export interface Question {
  on: 'fs' | 'resolver';
  method: string;
  args: unknown[];
  answer: unknown;
}

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
export function recording<T extends object>(target: T, on: Question['on'], log: Question[]): T {
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

/** Does every question still get the answer it got? */
export function stillTrue(questions: readonly Question[], fs: ConfigFs, resolver: ClassResolver): boolean {
  for (const q of questions) {
    const target = (q.on === 'fs' ? fs : resolver) as unknown as Record<string, (...a: unknown[]) => unknown>;
    const fn = target[q.method];
    if (typeof fn !== 'function' || !sameAnswer(fn.apply(target, q.args), q.answer)) return false;
  }
  return true;
}
