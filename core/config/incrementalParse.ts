// Reparsing a config after an edit: only the blocks the edit touched go through the yaml library.
//
// The text is cut into pieces: each top-level section (a key at column 0 and the lines under it)
// and, in a section whose key opens a block map, each of that map's entries (the key at the map's
// indentation and the lines under it). A piece is parsed by the library on its own (an entry behind
// a stand-in parent key `_:`), and kept by its text; the next version of the document parses only
// the pieces whose text is new and takes copies of the kept ones, their ranges moved to where the
// piece now sits. The tree is the one the library gives the whole text (the ranges, values and
// errors), comments aside: a comment between pieces is not attached to the next key (nothing reads
// the tree's comments; `text` holds them). Texts the cut cannot take as the library would (anchors
// and aliases, tabs, CRLF, several documents, a piece with a syntax error) are parsed whole.
// test/unit/config-incremental.test.ts checks the diagnostics against a full parse on random edits.
import {
  Pair,
  Scalar,
  YAMLMap,
  YAMLSeq,
  YAMLParseError,
  YAMLWarning,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseAllDocuments,
  type Document,
  type DocumentOptions,
  type Node,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';
import { scanDocuments } from './scanParse';

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** The pieces of one version of a document, by kind and text: what the next version may reuse. */
export type PieceCache = Map<string, Piece>;

/** Work counters (tests read them): pieces parsed by the library and pieces reused. */
export const incrementalWork = { parsed: 0, reused: 0 };

/**
 * A text the cut may change: an anchor or alias, a tab, CR, a byte-order mark (one that starts a
 * piece is dropped, inside the text it is content), a directive or document marker, a line that starts
 * with a flow collection (`{a}` under a `key: value`: an error in the document, none in its piece alone).
 */
const UNSAFE = /(?:^|[\s,[{])[&*]\S|[\t\r\ufeff]|^(?:---|\.\.\.|%)|^ *[[{]/m;
/** A piece that starts with a plain key (what its value holds aside). */
const KEY_LINE = /^ *[A-Za-z0-9_][\w./-]*:(?: |\n|$)/;
/** A key line that opens a block map (the key, then nothing but a comment). */
const OPENS_BLOCK = /^ *[A-Za-z_][\w.-]*:[ ]*(?:#.*)?$/;
/** How deep entries are cut into pieces of their own. */
const MAX_LEVEL = 4;

interface Cut {
  /** Where the piece's own text starts and ends in the document. */
  from: number;
  to: number;
  /** 0 for a top-level section; else an entry of a map nested `level` keys deep. */
  level: number;
  /** The indentation of the keys above the entry (one per level): its stand-in parents. */
  parents: number[];
  /** The indentation of the next piece's key; -1 for the text's last piece. */
  nextIndent: number;
  /** The next piece's level. */
  nextLevel: number;
}

/** Offsets of the lines at `indent` spaces that start content (not a comment, a list item, an empty or explicit key). */
function starts(text: string, from: number, to: number, indent: number): number[] {
  const out: number[] = [];
  for (let at = from; at < to;) {
    let i = at;
    while (i < to && text.charCodeAt(i) === 32) i++;
    const c = text.charCodeAt(i);
    // Not at `:` or `?` either: an empty or explicit key's range depends on the line before it.
    if (i - at === indent && i < to && c !== 35 && c !== 10 && c !== 45 && c !== 58 && c !== 63) out.push(at);
    const nl = text.indexOf('\n', at);
    if (nl < 0 || nl >= to) break;
    at = nl + 1;
  }
  return out;
}

/**
 * The pieces of `text`: the top-level sections; a section or entry whose key opens a block map of
 * two entries or more is cut into its head (the key and its first entry) and its other entries.
 */
function cuts(text: string): Cut[] {
  const secs = starts(text, 0, text.length, 0);
  // Content before the first top-level key (indented) would change how everything after it reads.
  if (!secs.length || /^[ ]*[^ #\n]/m.test(text.slice(0, secs[0]))) return [];
  const out: Cut[] = [];
  const split = (from: number, to: number, keyAt: number, level: number, parents: number[]): void => {
    const nl = text.indexOf('\n', keyAt);
    const keyLine = text.slice(keyAt, nl < 0 || nl > to ? to : nl);
    const entries = level < MAX_LEVEL && nl >= 0 && nl < to && OPENS_BLOCK.test(keyLine) ? entryStarts(text, nl + 1, to) : [];
    if (entries.length < 2) {
      out.push({ from, to, level, parents, nextIndent: 0, nextLevel: 0 });
      return;
    }
    out.push({ from, to: entries[1] as number, level, parents, nextIndent: 0, nextLevel: 0 });
    const inner = [...parents, indentAt(text, keyAt)];
    for (let j = 1; j < entries.length; j++) split(entries[j] as number, entries[j + 1] ?? to, entries[j] as number, level + 1, inner);
  };
  for (let i = 0; i < secs.length; i++) split(i === 0 ? 0 : (secs[i] as number), secs[i + 1] ?? text.length, secs[i] as number, 0, []);
  for (let i = 0; i < out.length; i++) {
    const next = out[i + 1];
    (out[i] as Cut).nextIndent = next ? indentAt(text, next.from) : -1;
    (out[i] as Cut).nextLevel = next?.level ?? 0;
  }
  return out;
}

function indentAt(text: string, at: number): number {
  let i = at;
  while (text.charCodeAt(i) === 32) i++;
  return i - at;
}

/** Starts of a block map's entries in text[from, to): the indentation of its first content line. */
function entryStarts(text: string, from: number, to: number): number[] {
  for (let at = from; at < to;) {
    let i = at;
    while (i < to && text.charCodeAt(i) === 32) i++;
    const c = text.charCodeAt(i);
    if (i < to && c !== 35 && c !== 10) return c === 45 || i === at ? [] : starts(text, at, to, i - at);
    const nl = text.indexOf('\n', at);
    if (nl < 0 || nl >= to) break;
    at = nl + 1;
  }
  return [];
}

/** A piece as the library parsed it, its ranges where the piece sat when it was parsed (`at`). */
interface Piece {
  at: number;
  /** The document the piece was parsed in: the shell of the first piece's copy. */
  doc: Document.Parsed;
  /** The maps from the root down to the one holding the piece's entries (through the stand-in parents). */
  chain: YAMLMap[];
}

function prefixOf(c: Cut): string {
  return c.parents.map((n) => ' '.repeat(n) + '_:\n').join('');
}

/**
 * The library's parse of a piece, behind stand-in keys for the keys above it. Where a comment or a
 * blank line ends a piece, what the library makes of it (the end of the node before it) depends on
 * the next key: the piece is parsed with a stand-in key where the next piece's key starts, dropped
 * from the tree afterwards.
 */
function parsePiece(src: string, options: Options, c: Cut): Piece | undefined {
  incrementalWork.parsed++;
  const prefix = prefixOf(c);
  const next = c.nextIndent >= 0 ? ' '.repeat(c.nextIndent) + '_:\n' : '';
  const whole = prefix + src + next;
  const docs = scanDocuments(whole, options) ?? parseAllDocuments(whole, options);
  if (!Array.isArray(docs) || docs.length !== 1) return undefined;
  const doc = docs[0] as Document.Parsed;
  if (!isMap(doc.contents)) return undefined;
  // A syntax error: the whole text is parsed (see parseReusing); no piece after this one is parsed for nothing.
  if (doc.errors.length) return undefined;
  const base = c.from - prefix.length;
  // A piece with a warning stands on its own when it starts with a key, as the stand-in before it
  // did, and its warnings stay inside it (the stand-in after it still a key).
  if (doc.warnings.length) {
    const lo = prefix.length;
    const inside = (e: { pos: [number, number] }) => e.pos[0] >= lo && e.pos[1] <= lo + src.length;
    // An open flow collection or quote may run on past the piece in the whole text: parsed from here on.
    if (c.from === 0 || !KEY_LINE.test(src) || leftOpen(src) || !doc.warnings.every(inside)) return undefined;
    for (const e of doc.warnings) e.pos = [e.pos[0] + base, e.pos[1] + base];
  }
  if (base) {
    shift(doc.contents, base);
    doc.range = [doc.range[0] + base, doc.range[1] + base, doc.range[2] + base];
  }
  const root = doc.contents;
  if (next && !dropStandIn(root, c.nextLevel, c.to + c.nextIndent)) return undefined;
  const chain: YAMLMap[] = [root];
  for (let k = 0; k < c.level; k++) {
    const m = chain[k] as YAMLMap;
    const only = m.items[0];
    if (m.items.length !== 1 || !isPair(only) || !isStandIn(only.key) || !isMap(only.value)) return undefined;
    chain.push(only.value);
  }
  if (!(chain[c.level] as YAMLMap).items.length) return undefined;
  return { at: c.from, doc, chain };
}

/** Does the text leave a flow collection or a quoted string open (a comment aside)? Unsure is open. */
function leftOpen(src: string): boolean {
  let depth = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if ((c === '"' || c === "'") && startsScalar(src, i)) {
      const end = c === '"' ? /(?:^|[^\\])(?:\\\\)*"/.exec(src.slice(i + 1)) : /'/.exec(src.slice(i + 1));
      if (!end) return true;
      i += end.index + end[0].length;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === '#' && (i === 0 || src[i - 1] === ' ' || src[i - 1] === '\n')) {
      const nl = src.indexOf('\n', i);
      if (nl < 0) break;
      i = nl;
    }
  }
  return depth !== 0;
}

/** Is the character at `i` the first of a scalar (after an indicator or at a line's start), not inside a plain one? */
function startsScalar(src: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && src[j] === ' ') j--;
  return j < 0 || ':-[{,?\n'.includes(src[j] as string);
}

/** Removes the stand-in next key (its key at `at`) from the map `depth` keys down the tree's right edge, where the next piece's key goes. */
function dropStandIn(root: YAMLMap, depth: number, at: number): boolean {
  let m: YAMLMap = root;
  for (let d = 0; d < depth; d++) {
    const last = m.items[m.items.length - 1];
    if (!isPair(last) || !isMap(last.value)) return false;
    m = last.value;
  }
  const last = m.items[m.items.length - 1];
  if (!isPair(last) || !isStandIn(last.key) || (last.key as Node).range?.[0] !== at) return false;
  if (!isScalar(last.value) || last.value.value !== null) return false;
  m.items.pop();
  return true;
}

function isStandIn(n: unknown): boolean {
  return isScalar(n) && n.value === '_' && n.source === '_';
}

function shift(n: unknown, by: number): void {
  if (isPair(n)) {
    shift(n.key, by);
    shift(n.value, by);
    return;
  }
  if (!n || typeof n !== 'object') return;
  const node = n as Node;
  if (node.range) node.range = [node.range[0] + by, node.range[1] + by, node.range[2] + by];
  if (isCollection(node)) for (const it of node.items) shift(it, by);
}

/** `n` with its ranges moved by `by`: the node itself when it does not move (nothing changes a parsed tree), else a copy. */
function moved<T>(n: T, by: number, schema: Document['schema']): T {
  if (!by || !n || typeof n !== 'object') return n;
  if (isPair(n)) return new Pair(moved(n.key, by, schema), moved(n.value, by, schema)) as T;
  const node = n as unknown as Node;
  let copy: Node;
  const items = (xs: unknown[]) => ({ items: xs.map((x) => moved(x, by, schema)) });
  if (isScalar(node)) copy = Object.assign(new Scalar(node.value), node);
  else if (isMap(node)) copy = Object.assign(new YAMLMap(schema), node, items(node.items));
  else if (isSeq(node)) copy = Object.assign(new YAMLSeq(schema), node, items(node.items));
  else return node.clone() as T;
  if (node.range) copy.range = [node.range[0] + by, node.range[1] + by, node.range[2] + by];
  return copy as T;
}

/** A new map like `m` (its tag, flow, ...) with no entries yet, its range moved by `by`. */
function shell(m: YAMLMap, by: number, schema: Document['schema']): YAMLMap {
  const copy = Object.assign(new YAMLMap(schema), m, { items: [] });
  if (m.range) copy.range = [m.range[0] + by, m.range[1] + by, m.range[2] + by];
  return copy;
}

/**
 * The documents of `text` as parseAllDocuments(text, options) gives them (comments aside), parsing
 * only the pieces `previous` does not hold; with the pieces of this text, for the next version.
 * No documents when the text is not one the cut handles: the caller parses it whole. When a piece is
 * one the library finds wrong (a key being typed), the pieces read until then come back with the
 * last version's: the next keystroke parses only the piece it changes before it gives up again.
 */
export function parseReusing(
  text: string,
  options: Options,
  previous: PieceCache | undefined,
): { docs?: Document.Parsed[]; pieces?: PieceCache } {
  if (UNSAFE.test(text)) return {};
  const list = cuts(text);
  if (list.length < 2) return {};
  const pieces: PieceCache = new Map();
  let doc: Document.Parsed | undefined;
  /** The maps open at each level: the root, then the value of the last key at each depth. */
  const open: YAMLMap[] = [];
  let last: { piece: Piece; by: number } | undefined;
  for (const c of list) {
    const src = text.slice(c.from, c.to);
    const key = `${c.parents.join(',')}:${c.nextIndent}:${src}`;
    let piece = previous?.get(key) ?? pieces.get(key);
    if (piece) incrementalWork.reused++;
    else {
      piece = parsePiece(src, options, c);
      // A piece the library finds wrong (the user is typing in it): the whole text is parsed.
      if (!piece) return { pieces: carried(previous, pieces, list.length) };
    }
    pieces.set(key, piece);
    const by = c.from - piece.at;
    if (!doc) {
      // The document's shell: the first piece's own, with new contents and error lists.
      const d = piece.doc;
      doc = Object.create(Object.getPrototypeOf(d) as object, Object.getOwnPropertyDescriptors(d)) as Document.Parsed;
      doc.errors = [];
      doc.warnings = [];
      open.push(shell(piece.chain[0] as YAMLMap, by, d.schema));
      doc.contents = open[0] as unknown as Document.Parsed['contents'];
    }
    addProblems(doc, piece.doc, by);
    const target = open[c.level];
    if (!target) return {};
    open.length = c.level + 1;
    const schema = doc.schema;
    const items = (piece.chain[c.level] as YAMLMap).items;
    for (let i = 0; i < items.length; i++) {
      const it = items[i] as Pair;
      // The last key opening a map: the next pieces may add entries to it, so a map of this tree's own.
      if (i === items.length - 1 && isMap(it.value)) {
        const inner = shell(it.value, by, schema);
        for (const x of it.value.items) inner.items.push(moved(x as Pair, by, schema));
        target.items.push(new Pair(moved(it.key, by, schema), inner));
        open.push(inner);
      } else target.items.push(moved(it, by, schema));
    }
    // The maps above the piece end where it ends (until a later piece in them says otherwise).
    for (let k = 1; k <= c.level; k++) fixEnd(open[k] as YAMLMap, piece.chain[k] as YAMLMap, by);
    last = { piece, by };
  }
  if (!doc || !last) return {};
  // A text with a syntax error anywhere is parsed whole: how the library recovers from an error
  // depends on the lines around it, which a piece parsed alone does not see (the property tests
  // found texts where reused pieces gave another tree).
  if (doc.errors.length) return {};
  fixEnd(open[0] as YAMLMap, last.piece.chain[0] as YAMLMap, last.by);
  const r = last.piece.doc.range;
  doc.range = [doc.range[0], r[1] + last.by, r[2] + last.by];
  return { docs: [doc], pieces };
}

/** The last version's pieces with this one's: bounded (a long run of broken versions keeps this one's only). */
function carried(previous: PieceCache | undefined, now: PieceCache, cuts: number): PieceCache {
  if (!previous?.size) return now;
  if (previous.size + now.size > 2 * cuts + 16) return now;
  const out = new Map(previous);
  for (const [k, v] of now) out.set(k, v);
  return out;
}

/** The piece's syntax errors and warnings, moved to where the piece sits (new objects: the piece is kept). */
function addProblems(doc: Document.Parsed, from: Document.Parsed, by: number): void {
  for (const e of from.errors) doc.errors.push(new YAMLParseError([e.pos[0] + by, e.pos[1] + by], e.code, e.message));
  for (const w of from.warnings) doc.warnings.push(new YAMLWarning([w.pos[0] + by, w.pos[1] + by], w.code, w.message));
}

/** A map grown from pieces ends where the last piece's map ends. */
function fixEnd(map: YAMLMap, lastMap: YAMLMap, by: number): void {
  const r = lastMap.range;
  if (map.range && r) map.range = [map.range[0], r[1] + by, r[2] + by];
}
