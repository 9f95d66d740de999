// A quick reader of the plain block-style YAML AgentJet configs are written in, giving the tree the
// yaml library gives them (comments aside), without its token generator, CST and composer.
//
// What it reads: block maps of plain keys; values that are one-line plain or quoted scalars (no
// escapes), `[]`, `{}`, `{{NAME}}` placeholders, literal block scalars (`|`, `|-`), empty values,
// nested block maps, and block lists of such values or of maps; comment lines and blank lines
// anywhere; a key being typed (a word alone on its line) and a word typed right after a closed value,
// with the library's errors and recovery (scanLines.ts, scanValues.ts). Anything else (a tab, CR, BOM,
// anchors, tags, other flow collections, folded or multi-line scalars, trailing spaces, other errors,
// several documents) makes it give up: the caller asks the library. Where comment and blank lines fall
// decides the end of some ranges; the rules below are the library's (its parser keeps a comment line
// in the node above it, or hands it to the next key, by its indentation). Tested against the library
// on random edits (test/unit/config-scanparse.test.ts).
import {
  Pair,
  Scalar,
  YAMLMap,
  YAMLSeq,
  isScalar,
  type YAMLParseError,
  parseAllDocuments,
  type Document,
  type Node,
  type ParseOptions,
  type DocumentOptions,
  type SchemaOptions,
} from 'yaml';
import { GiveUp, lineValue, plainScalar, scopeOf, type Scope } from './scanValues';
import {
  bareWord,
  brokenEntry,
  deeperKey,
  firstEntry,
  scalarBelow,
  splitLines,
  emptyEnd,
  yamlError,
  BLANK,
  CONTENT,
  type Lines,
} from './scanLines';

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** Texts this reader leaves to the library at once. */
const UNSAFE = /[\t\r\ufeff]|^(?:---|\.\.\.|%)/m;
/** A key line from its key on: a plain key, `:` and the rest (no trailing space). */
const KEY_LINE = /^([A-Za-z0-9_][A-Za-z0-9_./-]*):(?:$| +([^ ](?:.*[^ ])?)$)/;
/** A list item: `- ` and a value (no trailing space). */
const ITEM_LINE = /^( *)- +([^ ](?:.*[^ ])?)$/;
const MAX_DEPTH = 64;
/** A literal block scalar's header, kept or stripped of its last newline (`|`, `|-`), maybe with an indentation indicator (`|2`, `|-2`, `|2-`). */
const BLOCK_HEADER = /^\|(?:(-?)([1-9]?)|([1-9])(-))(?: +#.*)?$/;

/** Comment and blank lines after a node's last content that the library has not placed yet. */
interface Trail {
  comments: boolean;
  /** The deepest comment's indentation. */
  maxIndent: number;
}

/** Lines this reader has split (the linear-cost test reads it). */
export const scanWork = { scannedLines: 0 };

const templates = new Map<string, Document.Parsed>();

/** A document shell for these options (the schema, directives and options the library would give). */
function shellFor(options: Options): Document.Parsed | undefined {
  const key = JSON.stringify(options);
  let t = templates.get(key);
  if (!t) {
    const docs = parseAllDocuments('_: 0\n', options);
    if (!Array.isArray(docs) || docs.length !== 1) return undefined;
    t = docs[0] as Document.Parsed;
    if ((t.schema as unknown as { compat?: unknown }).compat) return undefined;
    templates.set(key, t);
  }
  const d = Object.create(Object.getPrototypeOf(t) as object, Object.getOwnPropertyDescriptors(t)) as Document.Parsed;
  d.errors = [];
  d.warnings = [];
  return d;
}

/** The documents of `text` as parseAllDocuments(text, options) gives them (comments aside), or undefined. */
export function scanDocuments(text: string, options: Options): Document.Parsed[] | undefined {
  if (UNSAFE.test(text)) return undefined;
  const doc = shellFor(options);
  if (!doc) return undefined;
  try {
    const r = new Reader(text, scopeOf(doc));
    const root = r.document();
    doc.contents = root as unknown as Document.Parsed['contents'];
    // What follows the contents is the document's end, unless the last value is a bare `key:` (its newline and what follows are the key's and part of no range).
    const end = root.range?.[2] ?? 0;
    doc.range = [root.range?.[0] ?? 0, end, r.bareEnd ? end : text.length];
    for (const e of r.errors) doc.errors.push(e);
    return [doc];
  } catch {
    // GiveUp, or a text this reader mishandles: the library's word stands.
    return undefined;
  }
}

class Reader {
  private readonly lines: Lines;
  private readonly starts: number[];
  private readonly ends: number[];
  private readonly indents: number[];
  private readonly kinds: number[];
  private li = 0;
  private depth = 0;
  /** The last value read is a `key:` with no comment (its range is where it starts). */
  bareEnd = false;
  /** The syntax errors the library reports on the lines read (a key being typed), in its order. */
  readonly errors: YAMLParseError[] = [];

  constructor(
    private readonly text: string,
    private readonly scope: Scope,
  ) {
    this.lines = splitLines(text);
    scanWork.scannedLines += this.lines.kinds.length;
    ({ starts: this.starts, ends: this.ends, indents: this.indents, kinds: this.kinds } = this.lines);
  }

  /** Where line `i`'s newline ends (the next line's start), or the text's end. */
  private after(i: number): number {
    const end = this.ends[i] as number;
    return end < this.text.length ? end + 1 : end;
  }

  /** The offset of the next content line's first character (the end of the text when none). */
  private contentAt(i: number): number {
    return i < this.kinds.length ? (this.starts[i] as number) + (this.indents[i] as number) : this.text.length;
  }

  private nextContent(from: number): number {
    let i = from;
    while (i < this.kinds.length && this.kinds[i] !== CONTENT) i++;
    return i;
  }

  document(): YAMLMap {
    this.li = this.nextContent(0);
    if (this.li >= this.kinds.length || this.indents[this.li] !== 0) throw new GiveUp();
    const { node } = this.map(0);
    if (this.li < this.kinds.length) throw new GiveUp();
    return node;
  }

  /** Applies the library's rule to a collection at `indent` that ends: its trailing comments move up, or stay (its range ends at the next content). */
  private close(range: [number, number, number], indent: number, trail: Trail | undefined): Trail | undefined {
    if (!trail || !trail.comments) return trail;
    if (indent === 0 || trail.maxIndent < indent) return trail;
    range[2] = this.contentAt(this.li);
    return undefined;
  }

  /** A block map whose keys sit at `indent`; this.li is on its first key line (`inItem`: after a list item's `- `). */
  private map(indent: number, inItem = false): { node: YAMLMap; trail: Trail | undefined } {
    if (++this.depth > MAX_DEPTH) throw new GiveUp();
    const map = new YAMLMap(this.scope.schema);
    const first = (this.starts[this.li] as number) + indent;
    let offset = first;
    let trail: Trail | undefined;
    /** The line of the last entry's one-line scalar value (what a deeper key may follow), else -1. */
    let scalarLine = -1;
    /** The column of the keys read past this map's own (the library's BAD_INDENT), else -1. */
    let badAt = -1;
    for (let n = 0; ; n++) {
      const at = this.indents[this.li] === badAt ? badAt : indent;
      if (at === indent) badAt = -1; // a key of the map's own: the next deeper one is judged afresh
      if (this.indents[this.li] !== at && !(inItem && n === 0)) throw new GiveUp();
      let m = KEY_LINE.exec(this.text.slice((this.starts[this.li] as number) + at, this.ends[this.li]));
      const keyFrom = (this.starts[this.li] as number) + at;
      let joined: string | undefined;
      if (!m) {
        // A word with no colon (a key being typed): what the library makes of it (scanLines.ts).
        if (inItem || at !== indent) throw new GiveUp();
        const word = bareWord(this.lines, this.li, indent);
        // The first entry: the key above holds a plain value, read there (scalarBelow), or a key spans two lines.
        const r = n === 0 ? firstEntry(this.lines, this.li) : brokenEntry(this.lines, this.li, indent);
        if (r.kind === 'joined') {
          // It and the key on the next line are one key spanning two lines.
          const k = KEY_LINE.exec(this.text.slice((this.starts[r.line] as number) + indent, this.ends[r.line])) as RegExpExecArray;
          const end = (this.starts[r.line] as number) + indent + (k[1] as string).length;
          this.errors.push(yamlError(keyFrom, end, 'MULTILINE_IMPLICIT_KEY'));
          this.li = r.line;
          m = k;
          joined = `${word} ${k[1] as string}`;
        } else {
          // A key with no value; the map goes on to the next content line.
          const key = plainScalar(this.scope, word, true, [keyFrom, keyFrom + word.length, keyFrom + word.length]);
          this.errors.push(yamlError(keyFrom, keyFrom + word.length, 'MISSING_CHAR'));
          map.items.push(new Pair(key));
          this.li = r.line;
          offset = this.contentAt(r.line);
          this.bareEnd = false;
          trail = undefined;
          scalarLine = -1;
          const k = this.li < this.kinds.length ? (this.indents[this.li] as number) : -1;
          if (k === indent) continue;
          map.range = [first, offset, offset];
          this.depth--;
          return { node: map, trail };
        }
      }
      const line = this.text.slice(this.starts[this.li], this.ends[this.li]);
      const lineStart = this.starts[this.li] as number;
      const keySrc = m[1] as string;
      const colon = lineStart + at + keySrc.length;
      const key = plainScalar(this.scope, joined ?? keySrc, true, [keyFrom, colon, colon]);
      const rest = m[2];
      const restAt = lineStart + line.length - (rest?.length ?? 0);
      const keyLine = this.li;
      this.li++;
      scalarLine = -1;
      const header = rest === undefined ? null : BLOCK_HEADER.exec(rest);
      if (header) {
        const digit = header[2] || header[3];
        // An indentation indicator counts from the key's column (not tried inside a list item).
        if (at !== indent || (digit && inItem)) throw new GiveUp();
        const value = this.literal(restAt, !!(header[1] || header[4]), indent, digit ? Number(digit) : 0);
        this.bareEnd = false;
        trail = this.afterBlock();
        map.items.push(new Pair(key, value));
        offset = (value.range as [number, number, number])[2];
      } else if (rest !== undefined && rest.charCodeAt(0) !== 35) {
        // `key: value` on one line, maybe a word typed after a closed value (the library's error; not over a deeper line).
        const errors = this.errors.length;
        const value = lineValue(this.scope, rest, restAt, this.after(keyLine), this.errors);
        this.bareEnd = false;
        trail = this.afterScalar(value, indent);
        map.items.push(new Pair(key, value));
        offset = (value.range as [number, number, number])[2];
        if (isScalar(value)) scalarLine = keyLine;
        if (this.errors.length > errors && (this.indents[this.li] ?? -1) > indent) throw new GiveUp();
      } else {
        const next = this.nextContent(this.li);
        const k = next < this.kinds.length ? (this.indents[next] as number) : -1;
        const isItem = k >= 0 && this.text.charCodeAt((this.starts[next] as number) + k) === 45;
        if (at !== indent && !(k > at)) throw new GiveUp();
        if (rest === undefined && !inItem && at === indent && k > indent && !isItem && scalarBelow(this.lines, keyLine, next)) {
          // A word alone under the key (a key being typed, or a value on the next line): the key's plain value.
          const w = this.text.slice((this.starts[next] as number) + k, this.ends[next]);
          const value = lineValue(this.scope, w, (this.starts[next] as number) + k, this.after(next));
          this.li = next + 1;
          this.bareEnd = false;
          trail = this.afterScalar(value, indent);
          map.items.push(new Pair(key, value));
          offset = (value.range as [number, number, number])[2];
          scalarLine = next;
        } else if (k > indent || (k === indent && isItem)) {
          // A nested map or list: the lines before it stay with this key.
          this.li = next;
          const r = isItem ? this.seq(k) : this.map(k);
          map.items.push(new Pair(key, r.node));
          offset = (r.node.range as [number, number, number])[2];
          trail = r.trail;
        } else {
          const empty = this.emptyValue(rest === undefined ? colon + 1 : restAt, rest !== undefined, keyLine, next, indent, k === indent);
          map.items.push(new Pair(key, empty));
          offset = (empty.range as [number, number, number])[2];
          this.bareEnd = offset === (empty.range as [number, number, number])[0];
          this.li = next;
          trail = undefined;
        }
      }
      // The next content line: a key of this map, or the end of it.
      const k = this.li < this.kinds.length ? (this.indents[this.li] as number) : -1;
      if (k === indent) {
        if (this.text.charCodeAt((this.starts[this.li] as number) + k) === 45) throw new GiveUp();
        trail = undefined;
        continue;
      }
      if (k > indent) {
        // A key deeper than the map's after a one-line value that a comment ended: the library takes
        // it into this map (BAD_INDENT at the end of the value before it).
        if (inItem || (k !== badAt && scalarLine < 0) || !deeperKey(this.lines, scalarLine, this.li, indent, badAt)) throw new GiveUp();
        this.errors.push(yamlError(offset, offset + 1, 'BAD_INDENT'));
        badAt = k;
        trail = undefined;
        continue;
      }
      const range: [number, number, number] = [first, offset, offset];
      trail = this.close(range, indent, trail);
      map.range = range;
      this.depth--;
      return { node: map, trail };
    }
  }

  /** A block list at `indent` of one-line scalars; this.li is on its first item. */
  private seq(indent: number): { node: YAMLSeq; trail: Trail | undefined } {
    const seq = new YAMLSeq(this.scope.schema);
    const first = (this.starts[this.li] as number) + indent;
    let offset = first;
    let trail: Trail | undefined;
    for (;;) {
      const line = this.text.slice(this.starts[this.li], this.ends[this.li]);
      const m = ITEM_LINE.exec(line);
      if (!m || (m[1] as string).length !== indent) throw new GiveUp();
      const src = m[2] as string;
      if (src.charCodeAt(0) === 35) throw new GiveUp();
      const at = this.li;
      if (KEY_LINE.test(src)) {
        // `- key: ...`: a map whose keys sit where this one does.
        const r = this.map(line.length - src.length, true);
        seq.items.push(r.node);
        offset = (r.node.range as [number, number, number])[2];
        trail = r.trail;
      } else {
        this.li++;
        const value = lineValue(this.scope, src, (this.starts[at] as number) + line.length - src.length, this.after(at));
        this.bareEnd = false;
        trail = this.afterScalar(value, indent);
        seq.items.push(value);
        offset = (value.range as [number, number, number])[2];
      }
      const k = this.li < this.kinds.length ? (this.indents[this.li] as number) : -1;
      const isItem = k >= 0 && this.text.charCodeAt((this.starts[this.li] as number) + k) === 45;
      if (k === indent && isItem) continue;
      if (k > indent) throw new GiveUp();
      const range: [number, number, number] = [first, offset, offset];
      trail = this.close(range, indent, trail);
      seq.range = range;
      return { node: seq, trail };
    }
  }

  /** A literal block (`|` at `at`) of a key at `indent`, this.li after its header: the lines indented as its first one (or `indent` + the header's indicator) and the blank lines between. */
  private literal(at: number, strip: boolean, indent: number, indicator: number): Scalar {
    const first = this.nextContentOrComment(this.li);
    const found = first < this.kinds.length ? (this.indents[first] as number) : -1;
    const n = indicator ? indent + indicator : found;
    if (found <= indent || found < n || first !== this.li) throw new GiveUp();
    let last = first;
    for (let i = first; i < this.kinds.length && (this.kinds[i] === BLANK || (this.indents[i] as number) >= n); i++)
      if (this.kinds[i] !== BLANK) last = i;
    const lines: string[] = [];
    for (let i = first; i <= last; i++)
      lines.push(this.kinds[i] === BLANK ? '' : this.text.slice((this.starts[i] as number) + n, this.ends[i]));
    const value = lines.join('\n') + (strip ? '' : '\n');
    const end = this.after(last);
    const node = new Scalar(value);
    node.range = [at, end, end];
    node.source = value;
    node.type = Scalar.BLOCK_LITERAL;
    this.li = last + 1;
    return node;
  }

  private nextContentOrComment(from: number): number {
    let i = from;
    while (i < this.kinds.length && this.kinds[i] === BLANK) i++;
    return i;
  }

  /** After a block scalar: its comment lines wait for the next content line. */
  private afterBlock(): Trail | undefined {
    let trail: Trail | undefined;
    for (; this.li < this.kinds.length && this.kinds[this.li] !== CONTENT; this.li++) {
      if (this.kinds[this.li] === BLANK) continue;
      const c = this.indents[this.li] as number;
      if (!trail) trail = { comments: true, maxIndent: c };
      else trail.maxIndent = Math.max(trail.maxIndent, c);
    }
    return trail;
  }

  /**
   * After a one-line scalar of a collection at `indent`: the comment lines deeper than `indent`
   * (and the blank lines between) join the scalar's end until a comment that is not; the rest
   * waits for the next content line. Leaves this.li on that line.
   */
  private afterScalar(value: Node, indent: number): Trail | undefined {
    let trail: Trail | undefined;
    const range = value.range as [number, number, number];
    for (; this.li < this.kinds.length && this.kinds[this.li] !== CONTENT; this.li++) {
      if (this.kinds[this.li] === BLANK) continue;
      const c = this.indents[this.li] as number;
      if (!trail && c > indent) {
        range[2] = this.after(this.li);
        continue;
      }
      if (!trail) trail = { comments: true, maxIndent: c };
      else trail.maxIndent = Math.max(trail.maxIndent, c);
    }
    return trail;
  }

  /** The null of `key:` with nothing under it (`next` is the next content line, `sameIndent` when it is a key of the same map). */
  private emptyValue(p: number, commented: boolean, keyLine: number, next: number, indent: number, sameIndent: boolean): Scalar {
    const { end, comment } = emptyEnd(this.lines, keyLine, next, indent, sameIndent);
    const node = plainScalar(this.scope, '', false, [p, p, comment || commented ? end : p]);
    return node;
  }
}
