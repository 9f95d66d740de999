// Checking an edited config again only where it changed. The diagnostics of a key whose value is a
// map or a list are kept by the text of that key's lines (from the start of its line to the end of
// its value's last line) and its key path; the next version of the document (ParsedConfig.checks,
// carried by an incremental parse) reuses them, moved by the lines the key moved, for a key whose
// text is the same. What such diagnostics read outside those lines decides whether they are kept:
// the questions asked of the file cache and the class resolver are recorded and asked again before
// a reuse (answers.ts); a `${...}` interpolation (it reads the whole document) keeps its key and the
// keys above it from being kept at all. The rules over the whole config always run again.
// test/unit/config-incremental.test.ts compares the diagnostics with a validation from scratch.
import { isCollection, type Node, type Pair } from 'yaml';
import type { ConfigDiagnostic } from './diagnostics';
import type { ParsedConfig } from './parse';
import type { Range } from './text';
import type { ConfigFs } from './fs';
import type { ClassResolver } from './classref';
import { recording, stillTrue, type Question } from './answers';

interface Entry {
  /** The line the key's text started on. */
  line: number;
  diags: ConfigDiagnostic[];
  questions: Question[];
}

/** What one document's last validation kept, and the options it ran with. */
export class CheckCache {
  entries = new Map<string, Entry>();
  sig: readonly unknown[] = [];
}

/** Subtrees checked and reused (tests read it). */
export const checkWork = { checked: 0, reused: 0 };

/** One validation's use of the cache. */
export interface CheckSession {
  cache: CheckCache;
  sig: readonly unknown[];
  old: Map<string, Entry>;
  next: Map<string, Entry>;
  log: Question[];
  /** The real file cache and resolver (the validation asks recording views of them). */
  fs: ConfigFs;
  resolver: ClassResolver;
  /** Reads of the whole document so far: a subtree that made one is not kept. */
  cross: number;
  /** Where the first syntax error is: only subtrees before it are kept or reused. */
  limit: number;
}

/**
 * The session of a validation of `p` with these options (`sig`: everything the checks of a subtree
 * read besides its text), with the views of `fs` and `resolver` the validation must ask; undefined
 * when `p` carries no cache.
 */
export function openChecks(
  p: ParsedConfig,
  sig: readonly unknown[],
  fs: ConfigFs,
  resolver: ClassResolver,
): { session: CheckSession; fs: ConfigFs; resolver: ClassResolver } | undefined {
  const cache = p.checks;
  if (!cache || p.docs.length !== 1) return undefined;
  // The library reads the text before a syntax error as it would without the error.
  let limit = p.text.length;
  for (const d of p.docs) for (const e of [...d.errors, ...d.warnings]) limit = Math.min(limit, e.pos[0]);
  const same = cache.sig.length === sig.length && sig.every((x, i) => x === cache.sig[i]);
  const log: Question[] = [];
  const session: CheckSession = { cache, sig, old: same ? cache.entries : new Map(), next: new Map(), log, fs, resolver, cross: 0, limit };
  return { session, fs: recording(fs, 'fs', log), resolver: recording(resolver, 'resolver', log) };
}

/** The validation ran to the end: what it kept is what the next version may reuse. */
export function closeChecks(s: CheckSession | undefined): void {
  if (!s) return;
  s.cache.entries = s.next;
  s.cache.sig = s.sig;
}

/** The key under which the pair's diagnostics are kept, and the line it starts on; undefined for a scalar value. */
export function subtreeKey(
  s: CheckSession,
  p: ParsedConfig,
  pair: Pair,
  path: string[],
  key: string,
): { key: string; line: number } | undefined {
  const v = pair.value as Node | null;
  const k = pair.key as Node | null;
  if (!isCollection(v) || !v.range || !k?.range) return undefined;
  const text = p.text;
  const from = text.lastIndexOf('\n', k.range[0] - 1) + 1;
  const nl = text.indexOf('\n', Math.max(v.range[1], k.range[1]));
  const to = nl < 0 ? text.length : nl;
  if (to >= s.limit) return undefined;
  return { key: `${path.join('\u0001')}\u0001${key}\u0000${text.slice(from, to)}`, line: p.index.position(from).line };
}

function moveRange(r: Range, by: number): Range {
  return { start: { line: r.start.line + by, character: r.start.character }, end: { line: r.end.line + by, character: r.end.character } };
}

function moveDiag(d: ConfigDiagnostic, by: number): ConfigDiagnostic {
  const out: ConfigDiagnostic = { ...d, range: moveRange(d.range, by) };
  if (d.fixes) out.fixes = d.fixes.map((f) => (f.range ? { ...f, range: moveRange(f.range, by) } : { ...f }));
  return out;
}

/** Pushes the kept diagnostics of the subtree, moved to its line, when they still hold; false when it must be checked. */
export function reuse(s: CheckSession, at: { key: string; line: number }, out: ConfigDiagnostic[]): boolean {
  const e = s.old.get(at.key);
  if (!e || !stillTrue(e.questions, s.fs, s.resolver)) return false;
  const by = at.line - e.line;
  const diags = by ? e.diags.map((d) => moveDiag(d, by)) : e.diags;
  for (const d of diags) out.push(moveDiag(d, 0));
  for (const q of e.questions) s.log.push(q);
  s.next.set(at.key, { line: at.line, diags, questions: e.questions });
  checkWork.reused++;
  return true;
}

/** Where the subtree's check starts: what it adds from here on is what is kept. */
export function mark(s: CheckSession, out: ConfigDiagnostic[]): { out: number; log: number; cross: number } {
  return { out: out.length, log: s.log.length, cross: s.cross };
}

/** Keeps what the subtree's check added, unless it read the whole document. */
export function keep(s: CheckSession, at: { key: string; line: number }, m: ReturnType<typeof mark>, out: ConfigDiagnostic[]): void {
  checkWork.checked++;
  if (s.cross !== m.cross) return;
  s.next.set(at.key, { line: at.line, diags: out.slice(m.out).map((d) => moveDiag(d, 0)), questions: s.log.slice(m.log) });
}
