// Issue 15 item 12: accepting a nested snippet (e.g. `val_kwargs`) must indent its children one
// step under the key, at any depth, in files indented with 2 spaces, 4 spaces or tabs. The editor
// inserts a snippet with InsertTextMode.adjustIndentation: every line after the first gets the
// key line's indentation; this test applies that rule, fills the placeholders with their
// defaults and checks the result line by line and as YAML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { parseConfig } from '../../core/config/parse';
import { complete, indentUnit } from '../../core/config/completion';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { schema, resolveRef, type SchemaNode } from '../../core/config/schema';
import { check, fc } from '../util/fc';

const ctx = { resolver: new ClassResolver(new CachedFs()) };

/** Placeholders to their default text, as accepting a snippet without typing does. */
function fill(snippet: string): string {
  return snippet
    .replace(/\$\{\d+\|([^|]*?)(?:,[^|]*)?\|\}/g, (_, first: string) => first.replace(/\\(.)/g, '$1'))
    .replace(/\$\{\d+:((?:\\.|[^}])*)\}/g, (_, d: string) => d.replace(/\\(.)/g, '$1'))
    .replace(/\$\{\d+\}|\$\d+/g, '');
}

/** Sections under `ajet` whose children are offered, down to `maxDepth` levels. */
function sections(node: SchemaNode, path: string[], maxDepth: number, out: string[][] = []): string[][] {
  const r = resolveRef(node);
  if (!r.properties) return out;
  out.push(path);
  if (path.length >= maxDepth) return out;
  for (const [k, v] of Object.entries(r.properties))
    if (resolveRef(v).properties && !v['x-dialect']) sections(v, [...path, k], maxDepth, out);
  return out;
}

const ajet = resolveRef(schema.properties?.ajet as SchemaNode);
const targets = sections(ajet, ['ajet'], 3);

for (const [name, unit] of [
  ['2 spaces', '  '],
  ['4 spaces', '    '],
  ['tabs', '\t'],
] as const) {
  test(`every nested snippet lands one step under its key (${name})`, () => {
    let checked = 0;
    for (const path of targets) {
      // The sections down to `path`, then an empty key position one step deeper.
      const lines = path.map((k, i) => `${unit.repeat(i)}${k}:`);
      const pad = unit.repeat(path.length);
      // Keep the file's indentation visible to the unit detection even at depth 1.
      const text = `${lines.join('\n')}\n${pad}\n${unit.repeat(path.length)}zz_other: 1\n`;
      assert.equal(indentUnit(text), unit);
      const offset = lines.join('\n').length + 1 + pad.length;
      const items = complete(parseConfig(text), offset, ctx).filter((e) => e.snippet && e.insertText.includes('\n'));
      for (const e of items) {
        const inserted = fill(e.insertText)
          .split('\n')
          .map((l, i) => (i === 0 ? l : pad + l))
          .join('\n');
        const [keyLine, ...kids] = inserted.split('\n');
        assert.equal(keyLine, `${e.label}:`);
        for (const k of kids) {
          assert.ok(k.startsWith(pad + unit), `${path.join('.')}.${e.label}: child ${JSON.stringify(k)} not one step under the key`);
          assert.ok(
            !/^\s/.test(k.slice(pad.length + unit.length)),
            `${path.join('.')}.${e.label}: child ${JSON.stringify(k)} indented more than one step`,
          );
        }
        if (unit !== '\t') {
          const doc = text.slice(0, offset) + inserted + text.slice(offset);
          const value = path.reduce<unknown>((acc, k) => (acc as Record<string, unknown>)[k], parse(doc)) as Record<string, unknown>;
          assert.ok(value && typeof value === 'object' && e.label in value, `${path.join('.')}.${e.label} parses under its section`);
          assert.equal(value.zz_other, 1, `${path.join('.')}.${e.label}: the next sibling is still a sibling`);
        }
        checked++;
      }
    }
    assert.ok(checked >= 10, `${checked} nested snippets checked`);
    // The case of the report: val_kwargs under rollout.
    assert.ok(targets.some((t) => t.join('.') === 'ajet.rollout'));
  });
}

test('val_kwargs under a key at 4 spaces: children at 6 in a 2-space file, at 8 in a 4-space file', () => {
  for (const unit of ['  ', '    ']) {
    const text = `ajet:\n${unit}rollout:\n${unit}${unit}\n`;
    const offset = text.length - 1;
    const v = complete(parseConfig(text), offset, ctx).find((e) => e.label === 'val_kwargs');
    assert.ok(v, 'val_kwargs offered');
    const kids = fill(v.insertText)
      .split('\n')
      .slice(1)
      .map((l) => unit + unit + l);
    assert.ok(kids.length > 0);
    for (const k of kids) assert.equal(/^ */.exec(k)?.[0].length, unit.length * 3, JSON.stringify(k));
  }
});

test('the indentation step is what a multi-line /^([ \\t]+)\\S/ finds, on any text', () => {
  // The scan replaced a regular expression that made a match per line; the expression is the reference.
  const reference = (text: string): string => {
    let min = Infinity;
    for (const m of text.matchAll(/^([ \t]+)\S/gm)) {
      const ws = m[1] ?? '';
      if (ws.startsWith('\t')) return '\t';
      if (ws.length < min) min = ws.length;
    }
    return Number.isFinite(min) ? ' '.repeat(min) : '  ';
  };
  const chars = fc.constantFrom(' ', '\t', 'a', ':', '#', '\n', '\r', '\u00a0', '\u2028', '\u2029', '\ufeff', '\v');
  check(
    fc.property(fc.array(chars, { maxLength: 60 }), (cs) => {
      const text = cs.join('');
      assert.equal(JSON.stringify(indentUnit(text)), JSON.stringify(reference(text)), JSON.stringify(text));
    }),
    3000,
  );
});
