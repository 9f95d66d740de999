// Helpers shared by the config tests (not a test file itself).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { LineIndex, type Range } from '../../core/config/text';
import { isAlias, isMap, isPair, isScalar, isSeq, type Document } from 'yaml';

export const demoDir = join(repoRoot, 'demo');
export const demoConfig = readFileSync(join(demoDir, 'math_agent.yaml'), 'utf8');

/** Range of the `nth` occurrence of `needle` in `text`. */
export function rangeOf(text: string, needle: string, nth = 0): Range {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`'${needle}' not found in text`);
  }
  return new LineIndex(text).range(at, at + needle.length);
}

export function applyEdits(text: string, edits: { range: Range; newText: string }[]): string {
  const idx = new LineIndex(text);
  const sorted = edits.map((e) => ({ s: idx.offset(e.range.start), e: idx.offset(e.range.end), t: e.newText })).sort((a, b) => b.s - a.s);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.s) + e.t + out.slice(e.e);
  return out;
}

/** Replaces exactly one occurrence; fails loudly when the base text changed. */
export function replaceOnce(text: string, from: string, to: string): string {
  const i = text.indexOf(from);
  if (i < 0 || text.indexOf(from, i + 1) >= 0) throw new Error(`expected exactly one '${from}'`);
  return text.slice(0, i) + to + text.slice(i + from.length);
}

/** Every .yaml/.yml file below `dir`, in a stable order. */
export function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) yamlFiles(p, out);
    else if (/\.ya?ml$/.test(n)) out.push(p);
  }
  return out;
}

/** What a reader of the tree sees, comments aside. */
function dump(n: unknown): unknown {
  if (isMap(n) || isSeq(n))
    return { kind: n.constructor.name, range: n.range, flow: n.flow, tag: n.tag, items: (n.items as unknown[]).map(dump) };
  if (isPair(n)) return { kind: 'Pair', key: dump(n.key), value: dump(n.value) };
  if (isScalar(n)) {
    const v = n.value;
    const value = typeof v === 'symbol' || (typeof v === 'number' && !Number.isFinite(v)) ? String(v) : v;
    return { kind: 'Scalar', value, of: typeof v, range: n.range, source: n.source, type: n.type, format: n.format, tag: n.tag };
  }
  if (isAlias(n)) return { kind: 'Alias', source: n.source, range: n.range };
  return n === null || n === undefined ? null : { other: String(n) };
}

export function dumpDocs(docs: Document.Parsed[]): unknown {
  return docs.map((d) => ({
    range: d.range,
    contents: dump(d.contents),
    errors: d.errors.map((e) => [e.code, e.pos, e.message]),
    warnings: d.warnings.map((e) => [e.code, e.pos, e.message]),
  }));
}
