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

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** The pieces of one version of a document, by kind and text: what the next version may reuse. */
export type PieceCache = Map<string, Piece>;

/** Work counters (tests read them): pieces parsed by the library and pieces reused. */
export const incrementalWork = { parsed: 0, reused: 0 };

/** The stand-in parent of an entry piece. */
const PARENT = '_:\n';
/** A text the cut may change: an anchor or alias, a tab, CR, a directive or document marker. */
const UNSAFE = /(?:^|[\s,[{])[&*]\S|[\t\r]|^(?:---|\.\.\.|%)/m;
/** A piece that starts with a plain key (what its value holds aside). */
const KEY_LINE = /^ *[A-Za-z0-9_][\w./-]*:(?: |\n|$)/;
/** A section whose key line opens a block map (the key, then nothing but a comment). */
const OPENS_BLOCK = /^[A-Za-z_][\w.-]*:[ ]*(?:#.*)?$/;

interface Cut {
  /** Where the piece's own text starts and ends in the document. */
  from: number;
  to: number;
  /** An entry of a section's map (parsed behind the stand-in key), or a whole section. */
  entry: boolean;
  /** The indentation of the next piece (an entry of the same map, or 0); -1 for the text's last piece. */
  nextIndent: number;
}

/** Offsets of the lines at `indent` spaces that start content (not a comment, not a list item). */
function starts(text: string, from: number, to: number, indent: number): number[] {
  const out: number[] = [];
  for (let at = from; at < to;) {
    let i = at;
    while (i < to && text.charCodeAt(i) === 32) i++;
    const c = text.charCodeAt(i);
    if (i - at === indent && i < to && c !== 35 && c !== 10 && c !== 45) out.push(at);
    const nl = text.indexOf('\n', at);
    if (nl < 0 || nl >= to) break;
    at = nl + 1;
  }
  return out;
}

/** The pieces of `text`: sections, and the entries of a section that holds a block map. */
function cuts(text: string): Cut[] {
  const secs = starts(text, 0, text.length, 0);
  if (!secs.length) return [];
  const out: Cut[] = [];
  for (let i = 0; i < secs.length; i++) {
    const from = i === 0 ? 0 : (secs[i] as number);
    const to = secs[i + 1] ?? text.length;
    const nl = text.indexOf('\n', secs[i] as number);
    const keyLine = text.slice(secs[i] as number, nl < 0 || nl > to ? to : nl);
    const entries = nl >= 0 && nl < to && OPENS_BLOCK.test(keyLine) ? entryStarts(text, nl + 1, to) : [];
    if (entries.length < 2) {
      out.push({ from, to, entry: false, nextIndent: 0 });
      continue;
    }
    // The section's head (its key, comments, its first entry) as a section; the other entries apart.
    const n = indentAt(text, entries[0] as number);
    out.push({ from, to: entries[1] as number, entry: false, nextIndent: n });
    for (let j = 1; j < entries.length; j++)
      out.push({ from: entries[j] as number, to: entries[j + 1] ?? to, entry: true, nextIndent: j + 1 < entries.length ? n : 0 });
  }
  (out[out.length - 1] as Cut).nextIndent = -1;
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
  /** The piece's map (the root map, or the stand-in key's value map) and its entries. */
  map: YAMLMap;
}

/**
 * The library's parse of a piece. Where a comment or a blank line ends a piece, what the library
 * makes of it (the end of the node before it) depends on the next key: the piece is parsed with a
 * stand-in key where the next piece's key starts, dropped from the tree afterwards.
 */
function parsePiece(src: string, options: Options, c: Cut): Piece | undefined {
  incrementalWork.parsed++;
  const next = c.nextIndent >= 0 ? ' '.repeat(c.nextIndent) + '_:\n' : '';
  const docs = parseAllDocuments((c.entry ? PARENT : '') + src + next, options);
  if (!Array.isArray(docs) || docs.length !== 1) return undefined;
  const doc = docs[0] as Document.Parsed;
  if (!isMap(doc.contents)) return undefined;
  const base = c.from - (c.entry ? PARENT.length : 0);
  // A piece with a syntax error (a key half typed) stands on its own when it starts with a key, as
  // the stand-in before it did, and its errors stay inside it (the stand-in after it still a key).
  if (doc.errors.length || doc.warnings.length) {
    const lo = c.entry ? PARENT.length : 0;
    const inside = (e: { pos: [number, number] }) => e.pos[0] >= lo && e.pos[1] <= lo + src.length;
    if ((c.from > 0 && !KEY_LINE.test(src)) || !doc.errors.every(inside) || !doc.warnings.every(inside)) return undefined;
    for (const e of [...doc.errors, ...doc.warnings]) e.pos = [e.pos[0] + base, e.pos[1] + base];
  }
  if (base) {
    shift(doc.contents, base);
    doc.range = [doc.range[0] + base, doc.range[1] + base, doc.range[2] + base];
  }
  const root = doc.contents;
  let map: YAMLMap = root;
  if (c.entry) {
    const only = root.items[0];
    if (!isPair(only) || !isStandIn(only.key) || !isMap(only.value)) return undefined;
    map = only.value;
  }
  if (next) {
    // The stand-in for the next key: in the root for a section after, else in the entries' map.
    const last = root.items[root.items.length - 1];
    const into = c.nextIndent === 0 ? root : isPair(last) && isMap(last.value) ? last.value : undefined;
    const added = into?.items[into.items.length - 1];
    if (!into || !isPair(added) || !isStandIn(added.key) || !isScalar(added.value) || added.value.value !== null) return undefined;
    into.items.pop();
  }
  if ((c.entry && root.items.length !== 1) || !map.items.length) return undefined;
  return { at: c.from, doc, map };
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
 * Undefined when the text is not one the cut handles: the caller parses it whole.
 */
export function parseReusing(
  text: string,
  options: Options,
  previous: PieceCache | undefined,
): { docs: Document.Parsed[]; pieces: PieceCache } | undefined {
  if (UNSAFE.test(text)) return undefined;
  const list = cuts(text);
  if (list.length < 2) return undefined;
  const pieces: PieceCache = new Map();
  let doc: Document.Parsed | undefined;
  let root: YAMLMap | undefined;
  /** The map entries are added to: the value of the last section's key. */
  let entryMap: YAMLMap | undefined;
  let last: { piece: Piece; by: number } | undefined;
  for (const c of list) {
    const src = text.slice(c.from, c.to);
    const key = `${c.entry ? 'e' : 's'}${c.nextIndent}:${src}`;
    let piece = previous?.get(key) ?? pieces.get(key);
    if (piece) incrementalWork.reused++;
    else {
      piece = parsePiece(src, options, c);
      // A piece the library finds wrong (the user is typing in it): the pieces before it stand, the
      // rest of the text is parsed in one go, as the library would recover from it in the whole.
      // That holds when the piece starts with a key, as the stand-in the piece before it was parsed with.
      if (!piece) return doc && root && KEY_LINE.test(src) ? withRest(text, c, options, doc, root, entryMap, pieces) : undefined;
    }
    pieces.set(key, piece);
    const by = c.from - piece.at;
    if (doc) addProblems(doc, piece.doc, by);
    if (!doc || !root) {
      // The document's shell: the first piece's own, with new contents and error lists.
      const d = piece.doc;
      doc = Object.create(Object.getPrototypeOf(d) as object, Object.getOwnPropertyDescriptors(d)) as Document.Parsed;
      doc.errors = [];
      doc.warnings = [];
      addProblems(doc, d, by);
      root = shell(piece.map, by, d.schema);
      doc.contents = root as unknown as Document.Parsed['contents'];
    }
    const schema = doc.schema;
    if (c.entry) {
      if (!entryMap) return undefined;
      const items = piece.map.items;
      for (let i = 0; i < items.length; i++) entryMap.items.push(moved(items[i] as Pair, by, schema));
      fixEnd(entryMap, piece.map, by);
    } else {
      const items = piece.map.items;
      for (let i = 0; i < items.length; i++) {
        const it = items[i] as Pair;
        // The section's last key opens a map the next pieces may add entries to: a new one.
        if (i === items.length - 1 && isMap(it.value)) {
          entryMap = shell(it.value, by, schema);
          const xs = it.value.items;
          for (let j = 0; j < xs.length; j++) entryMap.items.push(moved(xs[j] as Pair, by, schema));
          root.items.push(new Pair(moved(it.key, by, schema), entryMap));
        } else root.items.push(moved(it, by, schema));
        if (i === items.length - 1 && !isMap(it.value)) entryMap = undefined;
      }
    }
    last = { piece, by };
  }
  if (!doc || !root || !last) return undefined;
  fixEnd(root, last.piece.doc.contents as YAMLMap, last.by);
  const r = last.piece.doc.range;
  doc.range = [doc.range[0], r[1] + last.by, r[2] + last.by];
  return { docs: [doc], pieces };
}

/** The piece's syntax errors and warnings, moved to where the piece sits (new objects: the piece is kept). */
function addProblems(doc: Document.Parsed, from: Document.Parsed, by: number): void {
  for (const e of from.errors) doc.errors.push(new YAMLParseError([e.pos[0] + by, e.pos[1] + by], e.code, e.message));
  for (const w of from.warnings) doc.warnings.push(new YAMLWarning([w.pos[0] + by, w.pos[1] + by], w.code, w.message));
}

/** The document finished with the library's parse of text[c.from..] (behind the stand-in key for an entry). */
function withRest(
  text: string,
  c: Cut,
  options: Options,
  doc: Document.Parsed,
  root: YAMLMap,
  entryMap: YAMLMap | undefined,
  pieces: PieceCache,
): { docs: Document.Parsed[]; pieces: PieceCache } | undefined {
  incrementalWork.parsed++;
  const docs = parseAllDocuments((c.entry ? PARENT : '') + text.slice(c.from), options);
  if (!Array.isArray(docs) || docs.length !== 1) return undefined;
  const rest = docs[0] as Document.Parsed;
  if (!isMap(rest.contents) || !rest.contents.range) return undefined;
  const by = c.from - (c.entry ? PARENT.length : 0);
  shift(rest.contents, by);
  let items = rest.contents.items;
  if (c.entry) {
    const first = items[0];
    if (!entryMap?.range || !isPair(first) || !isScalar(first.key) || first.key.value !== '_' || !isMap(first.value) || !first.value.range)
      return undefined;
    for (const it of first.value.items) entryMap.items.push(it);
    entryMap.range = [entryMap.range[0], first.value.range[1], first.value.range[2]];
    items = items.slice(1);
  }
  for (const it of items) root.items.push(it);
  const r = rest.contents.range;
  if (root.range) root.range = [root.range[0], r[1], r[2]];
  doc.range = [doc.range[0], rest.range[1] + by, rest.range[2] + by];
  for (const e of rest.errors) {
    e.pos = [e.pos[0] + by, e.pos[1] + by];
    doc.errors.push(e);
  }
  for (const w of rest.warnings) {
    w.pos = [w.pos[0] + by, w.pos[1] + by];
    doc.warnings.push(w);
  }
  return { docs: [doc], pieces };
}

/** A map grown from pieces ends where the last piece's map ends. */
function fixEnd(map: YAMLMap, lastMap: YAMLMap, by: number): void {
  const r = lastMap.range;
  if (map.range && r) map.range = [map.range[0], r[1] + by, r[2] + by];
}
