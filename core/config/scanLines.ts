// The lines of a text as scanParse.ts reads them: where the yaml library ends an empty value among
// comment lines, and what it makes of a word alone on a line in a block map (a key being typed): only the cases whose recovery follows from the library's lexer and parser rules
// below; in any other the reader gives up and the library parses the text.
// test/unit/config-scanparse.test.ts compares the tree and the errors with the library's on random
// edits (half-typed keys of one and more letters at every indentation and place).
//
// The rules: a plain scalar goes on over the next line when that line is blank or indented at
// least the lexer's `indentNext` (any line when it is 0), and stops before a comment. `indentNext`
// is one more than the indentation of the last `key:` line; a line whose second character (after
// its indentation) is not a space or line end lowers it to that line's indentation.
import { YAMLParseError } from 'yaml';
import { GiveUp } from './scanValues';

const MESSAGES = {
  BAD_INDENT: 'All mapping items must start at the same column',
  MISSING_CHAR: 'Implicit map keys need to be followed by map values',
  MULTILINE_IMPLICIT_KEY: 'Implicit keys need to be on a single line',
};

/** The library's error of that code at [from, to), its message word for word. */
export function yamlError(from: number, to: number, code: keyof typeof MESSAGES): YAMLParseError {
  return new YAMLParseError([from, to], code, MESSAGES[code]);
}

/** Lines of the text: where each starts and ends, its indentation, and what it is. */
export const BLANK = 0;
export const COMMENT = 1;
export const CONTENT = 2;

export interface Lines {
  text: string;
  starts: number[];
  ends: number[];
  indents: number[];
  kinds: number[];
}

/** The lines of `text`; a line of spaces only gives up (the library's rules for it are not these). */
export function splitLines(text: string): Lines {
  const l: Lines = { text, starts: [], ends: [], indents: [], kinds: [] };
  for (let at = 0; at <= text.length;) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    if (nl < 0 && at === text.length) break;
    let i = at;
    while (i < end && text.charCodeAt(i) === 32) i++;
    if (i === end && i > at) throw new GiveUp();
    l.starts.push(at);
    l.ends.push(end);
    l.indents.push(i - at);
    l.kinds.push(i === end ? BLANK : text.charCodeAt(i) === 35 ? COMMENT : CONTENT);
    if (nl < 0) break;
    at = nl + 1;
  }
  return l;
}

/** A plain word that cannot be anything else (no indicator, colon, space or comment). */
const WORD = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
/** A key line from its key on (a plain key, `:`, then the line's end or a space and more). */
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_./-]*:(?:$| +[^ ])/;

function lineAt(l: Lines, i: number, col: number): string {
  return l.text.slice((l.starts[i] as number) + col, l.ends[i]);
}

function hasComment(l: Lines, from: number, to: number, deeperThan = -1): boolean {
  for (let i = from; i < to; i++) if (l.kinds[i] === COMMENT && (l.indents[i] as number) > deeperThan) return true;
  return false;
}

function nextContent(l: Lines, from: number): number {
  let i = from;
  while (i < l.kinds.length && l.kinds[i] !== CONTENT) i++;
  return i;
}

/** The word on line `i` at column `col`, or a give-up. */
export function bareWord(l: Lines, i: number, col: number): string {
  const w = lineAt(l, i, col);
  if (!WORD.test(w)) throw new GiveUp();
  return w;
}

const isSpaceOrEnd = (c: string | undefined) => c === undefined || c === ' ' || c === '\n';

/** The lexer's `indentNext` on line `w`, after the `key:` line `p` and the blank and comment lines between. */
function indentNextAt(l: Lines, p: number, w: number): number {
  if (!KEY.test(lineAt(l, p, l.indents[p] as number))) throw new GiveUp();
  let n = (l.indents[p] as number) + 1;
  for (let i = p + 1; i <= w; i++) {
    const q = l.kinds[i] === BLANK ? 0 : (l.indents[i] as number);
    if (n > q && !isSpaceOrEnd(l.text[(l.starts[i] as number) + q + 1])) n = q;
  }
  return n;
}

/**
 * Where the plain word on line `w` ends, its `indentNext` being `n`: 'joined' when the next line is
 * a key at the word's column that continues it (one key over two lines), 'ended' when a comment,
 * a shallower line or the end stops it; any other continuation gives up.
 */
function afterWord(l: Lines, w: number, n: number): 'joined' | 'ended' {
  for (let j = w + 1; j < l.kinds.length; j++) {
    if (l.kinds[j] === BLANK) continue;
    if (l.kinds[j] === COMMENT) return 'ended';
    const e = l.indents[j] as number;
    if (n > 0 && e < n) return 'ended';
    if (j === w + 1 && e === l.indents[w] && KEY.test(lineAt(l, j, e))) return 'joined';
    throw new GiveUp();
  }
  return 'ended';
}

/**
 * A word alone on line `i`, at the map's column `indent` after the map's first entry: the first line
 * of the key on the next line (MULTILINE_IMPLICIT_KEY), or a key with no value (MISSING_CHAR) whose
 * map goes on at the next content line (`line`), unless that line is deeper.
 */
export function brokenEntry(l: Lines, i: number, indent: number): { kind: 'joined' | 'bare'; line: number } {
  let p = i - 1;
  while (p >= 0 && l.kinds[p] !== CONTENT) p--;
  if (p < 0) throw new GiveUp();
  const r = afterWord(l, i, indentNextAt(l, p, i));
  if (r === 'joined') return { kind: 'joined', line: i + 1 };
  const next = nextContent(l, i + 1);
  if (next < l.kinds.length && (l.indents[next] as number) > indent) throw new GiveUp();
  return { kind: 'bare', line: next };
}

/** A word alone as a map's first line (under a `key:`, or the text's first): the first line of the key on the next line, or a give-up. */
export function firstEntry(l: Lines, i: number): { kind: 'joined'; line: number } {
  let p = i - 1;
  while (p >= 0 && l.kinds[p] !== CONTENT) p--;
  // At the text's start `indentNext` is 0: the next line goes on from this one.
  if (afterWord(l, i, p < 0 ? 0 : indentNextAt(l, p, i)) !== 'joined') throw new GiveUp();
  return { kind: 'joined', line: i + 1 };
}

/**
 * The content line `w` under the `key:` line `keyLine` of a map at `indent`: is it a word the library
 * reads as the key's plain value (it ends there), rather than the first key of a map under it?
 */
export function scalarBelow(l: Lines, keyLine: number, w: number): boolean {
  if (!WORD.test(lineAt(l, w, l.indents[w] as number))) return false;
  // A comment at column 0 before the word would make the lexer's rule another one: the library reads it.
  for (let i = keyLine + 1; i < w; i++) if (l.kinds[i] === COMMENT && l.indents[i] === 0) return false;
  return afterWord(l, w, indentNextAt(l, keyLine, w)) === 'ended';
}

/**
 * May the content line `i`, deeper than its map at `indent`, be read as the library's BAD_INDENT
 * entry: a key, after a one-line scalar on line `scalarLine` that a comment
 * line deeper than the map ended (the first such key), or at the column of such keys before it
 * (`badAt`)?
 */
export function deeperKey(l: Lines, scalarLine: number, i: number, indent: number, badAt: number): boolean {
  const k = l.indents[i] as number;
  if (k !== badAt && (badAt >= 0 || !hasComment(l, scalarLine + 1, i, indent))) return false;
  // Comments at the map's column or shallower since the last content line may end the map in the library's parser.
  for (let j = i - 1; j >= 0 && l.kinds[j] !== CONTENT; j--) if (l.kinds[j] === COMMENT && (l.indents[j] as number) <= indent) return false;
  return KEY.test(lineAt(l, i, k));
}

/** Where the next content line from line `i` starts (after its indentation), or the text's end. */
function contentAt(l: Lines, i: number): number {
  return i < l.kinds.length ? (l.starts[i] as number) + (l.indents[i] as number) : l.text.length;
}

/**
 * Where the null of `key:` (line `keyLine`, a map at `indent`) with nothing under it ends when a
 * comment belongs to it, and whether one does (`next`: the next content line; `sameIndent` when it
 * is a key of the same map).
 */
export function emptyEnd(l: Lines, keyLine: number, next: number, indent: number, sameIndent: boolean): { end: number; comment: boolean } {
  let comment = false;
  // The library gives the comment lines after the last one deeper than the map to the next key.
  let r = keyLine;
  if (sameIndent) for (let i = keyLine + 1; i < next; i++) if (l.kinds[i] === COMMENT && (l.indents[i] as number) > indent) r = i;
  const last = sameIndent && r + 1 < next ? r + 1 : next - 1;
  for (let i = keyLine + 1; i <= last; i++) if (l.kinds[i] === COMMENT) comment = true;
  return { end: sameIndent && r + 1 < next ? (l.ends[r + 1] as number) : contentAt(l, next), comment };
}
