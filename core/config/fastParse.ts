// A quicker parse of the plain parts of a large config, giving the same tree as the yaml library.
//
// Most of a big config (the verl sections a generated or copied config holds) is block maps and
// lists of one-line scalars. The library spends about 8 µs a line on those (a token generator, a
// CST parser and a composer, each allocating), 85% of validating a 5,000-line config. Here the top
// level is cut into sections (a key at column 0 and the lines under it). The first section, and any
// section with something this reader does not handle, is parsed by the library (on its own, its
// ranges moved to where it sits); the rest are read line by line into the library's own node
// classes, their plain scalars resolved by the document's own schema tags as the library does.
// test/unit/config-fastparse.test.ts compares the whole tree (values, types, ranges, errors) with
// the library's on the reference configs and generated ones.
//
// What the tree leaves out: comments (commentBefore/comment/spaceBefore of nodes read here). A
// section holding `#` or a blank line goes to the library, so every range is the library's.
import {
  Pair,
  Scalar,
  YAMLMap,
  YAMLSeq,
  isMap,
  isScalar,
  parseAllDocuments,
  visit,
  type Document,
  type Node,
  type ParseOptions,
  type DocumentOptions,
  type SchemaOptions,
} from 'yaml';

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** Below this size the library alone is as quick (the split has a fixed cost). */
const MIN_FAST_BYTES = 16 * 1024;

/** Work counters for the linear-cost test (lines read here, sections given to the library). */
export const fastParseWork = { lines: 0, librarySections: 0, fastSections: 0 };

interface ScalarTag {
  default?: boolean | 'key';
  test?: RegExp;
  format?: string;
  resolve: (value: string, onError: (msg: string) => void, options: unknown) => unknown;
}

/**
 * The documents of `text` as parseAllDocuments(text, options) gives them, or undefined when the
 * text is not one the split handles (small, several documents, anchors, tabs, CRLF, ...): the
 * caller then asks the library.
 */
export function parseSplit(text: string, options: Options): Document.Parsed[] | undefined {
  if (text.length < MIN_FAST_BYTES) return undefined;
  // Anchors and aliases may cross sections; directives and document markers end the one document.
  if (/[&*\t\r]/.test(text) || /^(?:---|\.\.\.|%)/m.test(text)) return undefined;
  const starts = sectionStarts(text);
  if (starts.length < 2) return undefined;
  // Which sections are read here: plain ones with no comment just before them (which the library
  // would attach across the cut).
  const fast = starts.map((s, i) => i > 0 && isPlainSection(text, s, starts[i + 1] ?? text.length));
  if (!fast.some(Boolean)) return undefined;
  const first = libraryPart(text, 0, starts[1] as number, options);
  if (!first || !isMap(first.contents)) return undefined;
  const doc = first;
  const root = doc.contents as YAMLMap;
  const schema = doc.schema as unknown as { tags: ScalarTag[]; compat?: unknown; [k: symbol]: ScalarTag };
  if (schema.compat) return undefined;
  const reader = new SectionReader(text, schema.tags, doc.options);
  // Where the document ends: the text's end after a section read here, else the library's word.
  let docEnd: [number, number] = [doc.range[1], doc.range[2]];
  for (let i = 1; i < starts.length;) {
    const from = starts[i] as number;
    if (fast[i]) {
      const pair = reader.section(from, starts[i + 1] ?? text.length);
      if (pair) {
        fastParseWork.fastSections++;
        root.items.push(pair);
        docEnd = [text.length, text.length];
        i++;
        continue;
      }
    }
    // A run of sections for the library (from one the reader gave up on), parsed together.
    let j = i + 1;
    while (j < starts.length && !fast[j]) j++;
    const to = starts[j] ?? text.length;
    const part = libraryPart(text, from, to, options);
    if (!part || !isMap(part.contents)) return undefined;
    for (const it of part.contents.items) root.items.push(it);
    docEnd = [part.range[1], part.range[2]];
    i = j;
  }
  const last = root.items[root.items.length - 1] as Pair<Node, Node | null>;
  const end = (last.value ?? last.key)?.range;
  if (!end || !root.range) return undefined;
  root.range = [root.range[0], end[2], end[2]];
  doc.range = [doc.range[0], docEnd[0], docEnd[1]];
  return [doc as Document.Parsed];
}

/** Offsets where a top-level section starts: a line beginning with neither space nor `#`. */
function sectionStarts(text: string): number[] {
  const out: number[] = [];
  for (let at = 0; at < text.length;) {
    const c = text.charCodeAt(at);
    if (c !== 32 && c !== 35 && c !== 10) out.push(at);
    const nl = text.indexOf('\n', at);
    if (nl < 0) break;
    at = nl + 1;
  }
  return out;
}

/** No comment, no blank line, and the line before it is content. */
function isPlainSection(text: string, from: number, to: number): boolean {
  const body = text.slice(from, to);
  if (body.includes('#') || /\n *\n|\n +$/.test(body)) return false;
  if (to === text.length && !body.endsWith('\n')) return false;
  // No comment on the lines just before it (the library would attach it to this section's key).
  let end = from - 1;
  for (;;) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line.startsWith('#')) return false;
    if (line !== '' || start === 0) return true;
    end = start - 1;
  }
}

/** The library's documents for text[from, to), ranges and error positions moved by `from`. */
function libraryPart(text: string, from: number, to: number, options: Options): Document.Parsed | undefined {
  fastParseWork.librarySections++;
  // A cut makes its first character the start of a stream, where the library drops a BOM that it
  // keeps (in the key) anywhere else: such a cut is not the whole text's tree.
  if (from > 0 && text.charCodeAt(from) === 0xfeff) return undefined;
  const docs = parseAllDocuments(text.slice(from, to), options);
  if (!Array.isArray(docs) || docs.length !== 1) return undefined;
  const doc = docs[0] as Document.Parsed;
  // The library's recovery from a syntax error may reach across the cut: the whole text is its.
  if (doc.errors.length || doc.warnings.length) return undefined;
  if (from === 0) return doc;
  const move = (r: [number, number, number]): [number, number, number] => [r[0] + from, r[1] + from, r[2] + from];
  visit(doc, {
    Node: (_k, n) => {
      if (n.range) n.range = move(n.range);
    },
  });
  if (doc.range) doc.range = move(doc.range);
  return doc;
}

/** A plain key: what configs use (no quotes, no indicators, no `<<`). */
const KEY_RE = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
/** A one-line plain scalar that starts with no indicator and holds no `: ` (`#` is already absent). */
const PLAIN_RE = /^(?:[A-Za-z0-9_./~+(]|-(?=[^\s]))[^\n]*$/;

class SectionReader {
  private pos = 0;
  private end = 0;
  constructor(
    private readonly text: string,
    private readonly tags: readonly ScalarTag[],
    private readonly options: unknown,
  ) {}

  /** The top-level pair of the section text[from, to), or undefined when it is not plain enough. */
  section(from: number, to: number): Pair | undefined {
    this.pos = from;
    this.end = to;
    const map = this.map(0);
    if (!map || this.pos !== to || map.items.length !== 1) return undefined;
    return map.items[0] as Pair;
  }

  private indentAt(at: number): number {
    let i = at;
    while (i < this.end && this.text.charCodeAt(i) === 32) i++;
    return i - at;
  }

  /** A block map whose keys sit at `indent`, from this.pos on. */
  private map(indent: number): YAMLMap | undefined {
    const map = new YAMLMap();
    let start = -1;
    while (this.pos < this.end && this.indentAt(this.pos) === indent) {
      const lineStart = this.pos + indent;
      const nl = this.text.indexOf('\n', lineStart);
      const lineEnd = nl < 0 || nl >= this.end ? this.end : nl;
      const next = nl < 0 || nl >= this.end ? this.end : nl + 1;
      fastParseWork.lines++;
      const line = this.text.slice(lineStart, lineEnd);
      if (line.startsWith('-') || line.endsWith(' ')) return undefined;
      const colon = line.indexOf(':');
      if (colon <= 0) return undefined;
      const keySrc = line.slice(0, colon);
      if (!KEY_RE.test(keySrc)) return undefined;
      const key = this.scalar(keySrc, lineStart, lineStart + colon, lineStart + colon, true);
      if (!key) return undefined;
      if (start < 0) start = lineStart;
      if (colon === line.length - 1) {
        // `key:` and a block under it, deeper than the key.
        this.pos = next;
        const inner = this.pos < this.end ? this.indentAt(this.pos) : -1;
        if (inner <= indent) return undefined;
        const first = this.text.charCodeAt(this.pos + inner);
        const value = first === 45 /* - */ ? this.seq(inner) : this.map(inner);
        if (!value) return undefined;
        map.items.push(new Pair(key, value));
        continue;
      }
      if (line.charCodeAt(colon + 1) !== 32) return undefined;
      const vs = colon + 2;
      if (line.charCodeAt(vs) === 32) return undefined;
      const value = this.scalar(line.slice(vs), lineStart + vs, lineEnd, next, false);
      if (!value) return undefined;
      map.items.push(new Pair(key, value));
      this.pos = next;
      // A deeper line after a scalar would continue it (or be an error): the library's business.
      if (this.pos < this.end && this.indentAt(this.pos) > indent) return undefined;
    }
    if (start < 0 || (this.pos < this.end && this.indentAt(this.pos) > indent)) return undefined;
    const end = (map.items[map.items.length - 1] as Pair<Node, Node | null>).value?.range?.[2];
    if (end === undefined) return undefined;
    map.range = [start, end, end];
    return map;
  }

  /** A block list whose `-` sit at `indent`, items one-line scalars. */
  private seq(indent: number): YAMLSeq | undefined {
    const seq = new YAMLSeq();
    const start = this.pos + indent;
    while (this.pos < this.end && this.indentAt(this.pos) === indent) {
      const lineStart = this.pos + indent;
      const nl = this.text.indexOf('\n', lineStart);
      const lineEnd = nl < 0 || nl >= this.end ? this.end : nl;
      const next = nl < 0 || nl >= this.end ? this.end : nl + 1;
      fastParseWork.lines++;
      const line = this.text.slice(lineStart, lineEnd);
      if (!line.startsWith('- ') || line.charCodeAt(2) === 32 || line.endsWith(' ')) return undefined;
      const item = this.scalar(line.slice(2), lineStart + 2, lineEnd, next, false);
      if (!item) return undefined;
      seq.items.push(item);
      this.pos = next;
      if (this.pos < this.end && this.indentAt(this.pos) > indent) return undefined;
    }
    const last = seq.items[seq.items.length - 1] as Node | undefined;
    if (!last?.range) return undefined;
    seq.range = [start, last.range[2], last.range[2]];
    return seq;
  }

  /** A one-line scalar at [from, to), its node ending at `nodeEnd`; undefined when not simple. */
  private scalar(src: string, from: number, to: number, nodeEnd: number, atKey: boolean): Scalar | undefined {
    const q = src.charCodeAt(0);
    let node: Scalar;
    if (q === 34 /* " */ || q === 39 /* ' */) {
      const inner = src.slice(1, -1);
      if (src.length < 2 || src.charCodeAt(src.length - 1) !== q || inner.includes(q === 34 ? '"' : "'") || inner.includes('\\'))
        return undefined;
      node = new Scalar(inner);
      node.range = [from, to, atKey ? to : nodeEnd];
      node.source = inner;
      node.type = q === 34 ? Scalar.QUOTE_DOUBLE : Scalar.QUOTE_SINGLE;
      return node;
    }
    {
      if (!PLAIN_RE.test(src) || src.includes(': ') || src.endsWith(':')) return undefined;
      // The library's own choice: the first default tag whose test matches, else a string.
      let tag: ScalarTag | undefined;
      for (const t of this.tags)
        if ((t.default === true || (atKey && t.default === 'key')) && t.test?.test(src)) {
          tag = t;
          break;
        }
      if (tag) {
        let failed = false;
        const res = tag.resolve(
          src,
          () => {
            failed = true;
          },
          this.options,
        );
        if (failed) return undefined;
        node = isScalar(res) ? res : new Scalar(res);
      } else node = new Scalar(src);
      // The fields in the library's order (composeScalar).
      node.range = [from, to, atKey ? to : nodeEnd];
      node.source = src;
      node.type = Scalar.PLAIN;
      if (tag?.format) node.format = tag.format;
      return node;
    }
  }
}
