// The one-line values of scanParse.ts: plain, quoted, `[]`, `{}` and `{{NAME}}` values as the yaml library
// composes them (the tag its schema picks, the format, the ranges).
import { Pair, Scalar, YAMLMap, YAMLParseError, YAMLSeq, isScalar, type Document } from 'yaml';

/** The reader cannot tell what the library would make of the text: the library parses it. */
export class GiveUp extends Error {}

interface ScalarTag {
  default?: boolean | 'key';
  test?: RegExp;
  format?: string;
  resolve: (value: string, onError: (msg: string) => void, options: unknown) => unknown;
}

/** What resolving a value reads: the document's schema, its tags and options. */
export interface Scope {
  schema: Document['schema'];
  tags: readonly ScalarTag[];
  options: unknown;
}

export function scopeOf(doc: Document.Parsed): Scope {
  return { schema: doc.schema, tags: (doc.schema as unknown as { tags: ScalarTag[] }).tags, options: doc.options };
}

/** A template's placeholder `{{NAME}}`, then maybe a comment. */
const TEMPLATE = /^\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}(?: +#.*)?$/;
/** The same, then a word typed right after it (`junk` in lineValue). */
const TEMPLATE_JUNK = /^\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}(?=[ \w.])/;
/**
 * A word typed right after a closed value (`{{X}}3`, `"x"ab`): words of letters, digits, `_` and `.`, then
 * maybe a comment. The library reads it as a plain scalar after the node: UNEXPECTED_TOKEN at its span.
 */
const JUNK = /^( *)([\w.]+(?: [\w.]+)*)(?: +#.*)?$/;
/** A plain scalar's first character: no indicator (a `-` only before a non-space). */
const PLAIN_START = /^(?:[A-Za-z0-9_./~+($^\u0080-\uffff]|-[^ ])/;

/**
 * A one-line value at `from` (`src`: the rest of its line, no trailing space): a plain or quoted
 * scalar, `[]`, `{}` or `{{NAME}}`, then maybe ` # comment`; its node ends at `end` (after the line).
 * With `junk`, a quoted value, `[]`, `{}` or `{{NAME}}` may be followed by words (one being typed after it): the
 * library's error for them goes into `junk`, and the node is the value's alone.
 */
export function lineValue(scope: Scope, src: string, from: number, end: number, junk?: YAMLParseError[]): Scalar | YAMLMap | YAMLSeq {
  const q = src.charCodeAt(0);
  let len: number;
  let node: Scalar | YAMLMap | YAMLSeq;
  const whole = q === 123 ? TEMPLATE.exec(src) : null;
  const tpl = whole ?? (q === 123 && junk ? TEMPLATE_JUNK.exec(src) : null);
  if (tpl) {
    // `{{NAME}}`, a template's placeholder: a flow map whose one key is a flow map of one key.
    const l = (tpl[1] as string).length;
    const name = plainScalar(scope, tpl[1] as string, true, [from + 2, from + 2 + l, from + 2 + l]);
    if (typeof name.value !== 'string') throw new GiveUp();
    const inner = new YAMLMap(scope.schema);
    inner.flow = true;
    inner.items.push(new Pair(name));
    inner.range = [from + 1, from + 3 + l, from + 3 + l];
    node = new YAMLMap(scope.schema);
    node.flow = true;
    node.items.push(new Pair(inner));
    len = l + 4;
    if (!whole && junk) junkAfter(src, len, from, junk);
    node.range = [from, from + len, end];
  } else if (q === 91 || q === 123) {
    // `[]` or `{}`: an empty flow collection, maybe with a word typed right after it (`[]0`).
    if (src.charCodeAt(1) !== q + 2) throw new GiveUp();
    if (!/^(?: +#.*)?$/.test(src.slice(2))) {
      if (!junk) throw new GiveUp();
      junkAfter(src, 2, from, junk);
    }
    node = q === 91 ? new YAMLSeq(scope.schema) : new YAMLMap(scope.schema);
    node.flow = true;
    len = 2;
    node.range = [from, from + len, end];
  } else if (q === 34 || q === 39) {
    // Quoted, with no escape and no quote inside.
    const close = src.indexOf(q === 34 ? '"' : "'", 1);
    if (close < 0 || (q === 34 && src.slice(0, close).includes('\\'))) throw new GiveUp();
    const tail = src.slice(close + 1);
    if (tail && !/^ +#/.test(tail)) {
      if (!junk) throw new GiveUp();
      junkAfter(src, close + 1, from, junk);
    }
    len = close + 1;
    node = new Scalar(src.slice(1, close));
    node.range = [from, from + len, end];
    node.source = src.slice(1, close);
    node.type = q === 34 ? Scalar.QUOTE_DOUBLE : Scalar.QUOTE_SINGLE;
  } else {
    const hash = src.indexOf(' #');
    let body = hash < 0 ? src : src.slice(0, hash);
    body = body.replace(/ +$/, '');
    if (!PLAIN_START.test(body) || body.includes(': ') || body.endsWith(':')) throw new GiveUp();
    len = body.length;
    node = plainScalar(scope, body, false, [from, from + len, end]);
  }
  return node;
}

/** The words after a closed value at `at` in `src` (which starts at `from`): the library's error for them. */
function junkAfter(src: string, at: number, from: number, junk: YAMLParseError[]): void {
  const m = JUNK.exec(src.slice(at));
  if (!m) throw new GiveUp();
  const start = from + at + (m[1] as string).length;
  junk.push(new YAMLParseError([start, start + (m[2] as string).length], 'UNEXPECTED_TOKEN', 'Unexpected scalar at node end'));
}

/**
 * A plain scalar's node as the library resolves it: the first default tag whose test matches, else a string.
 * Its fields are set in the library's order (range, source, type, format): nodes of the same kind then share
 * one object shape whoever made them, and the code reading them stays compiled for one shape.
 */
export function plainScalar(scope: Scope, src: string, atKey: boolean, range: [number, number, number]): Scalar {
  let tag: ScalarTag | undefined;
  for (const t of scope.tags)
    if ((t.default === true || (atKey && t.default === 'key')) && t.test?.test(src)) {
      tag = t;
      break;
    }
  let node: Scalar;
  if (tag) {
    let failed = false;
    const res = tag.resolve(
      src,
      () => {
        failed = true;
      },
      scope.options,
    );
    if (failed) throw new GiveUp();
    node = isScalar(res) ? res : new Scalar(res);
  } else node = new Scalar(src);
  node.range = range;
  node.source = src;
  node.type = Scalar.PLAIN;
  if (tag?.format) node.format = tag.format;
  return node;
}
