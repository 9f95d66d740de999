// Issue 31 item 2: the quicker reader of a large config's plain sections (core/config/fastParse.ts)
// gives the tree the yaml library gives (node classes, values, scalar types and formats, every
// range, errors), on generated configs, AgentJet's own configs and random ones; and it is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, isAlias, isMap, isPair, isScalar, isSeq, type Document } from 'yaml';
import { parseSplit, fastParseWork } from '../../core/config/fastParse';
import { generatedConfig } from '../../bench/validate-cost';
import { findUpstream } from '../util/upstream';
import { skipForEnvironment } from '../util/envSkip';
import { check, fc } from '../util/fc';

const options = { merge: true, prettyErrors: false, strict: false, uniqueKeys: false };

/** Everything a consumer of the tree can read, comments aside (fastParse.ts leaves them out). */
function dump(n: unknown): unknown {
  if (isMap(n) || isSeq(n)) {
    const items = (n.items as unknown[]).map(dump);
    return { kind: n.constructor.name, range: n.range, flow: n.flow, tag: n.tag, anchor: n.anchor, items };
  }
  if (isPair(n)) return { kind: 'Pair', key: dump(n.key), value: dump(n.value) };
  if (isScalar(n)) {
    const v = n.value;
    return {
      kind: n.constructor.name,
      // NaN, infinities and the merge key's symbol (a new one per parse) by their names.
      value: typeof v === 'symbol' || (typeof v === 'number' && !Number.isFinite(v)) ? String(v) : v,
      of: typeof v,
      keys: Object.keys(n).filter((k) => !/^comment|^spaceBefore$/.test(k)),
      range: n.range,
      source: n.source,
      type: n.type,
      format: n.format,
      minFractionDigits: n.minFractionDigits,
      tag: n.tag,
      anchor: n.anchor,
    };
  }
  if (isAlias(n)) return { kind: 'Alias', source: n.source, range: n.range };
  return n === null || n === undefined ? null : { other: String(n) };
}

function dumpDocs(docs: Document.Parsed[]): unknown {
  return docs.map((d) => ({
    range: d.range,
    contents: dump(d.contents),
    errors: d.errors.map((e) => [e.code, e.pos, e.message]),
    warnings: d.warnings.map((e) => [e.code, e.pos, e.message]),
  }));
}

/** The split's tree equals the library's, when the split takes the text; returns whether it did. */
function same(text: string): boolean {
  const split = parseSplit(text, options);
  if (!split) return false;
  assert.deepEqual(dumpDocs(split), dumpDocs(parseAllDocuments(text, options) as Document.Parsed[]));
  return true;
}

test('the generated configs of bench:lsp: the split reads them, with the library tree', () => {
  for (const lines of [2000, 5000]) {
    const before = fastParseWork.fastSections;
    assert.equal(same(generatedConfig(lines)), true, `${lines} lines`);
    assert.ok(fastParseWork.fastSections > before, 'a section was read by the quick reader');
  }
  // Cut anywhere (a key left without its block): whatever the split does, the tree is the library's.
  for (const lines of [4001, 4002, 4003, 4004, 4005, 4006, 4007]) same(generatedConfig(lines));
});

test('scalars of every kind in a plain section resolve as the library resolves them', () => {
  const values = [
    '0.001',
    '1.0',
    '10',
    '-3',
    '+4',
    '007',
    '0x1F',
    '0o17',
    '1e-5',
    '3.0E+2',
    '.5',
    '.inf',
    '-.Inf',
    '.nan',
    'true',
    'False',
    'TRUE',
    'yes',
    'no',
    'on',
    'null',
    'Null',
    'NULL',
    '~',
    'value with spaces',
    'a,b',
    'Qwen/Qwen2.5-7B',
    'x.y->Z',
    '-x',
    '"q"',
    "'s'",
    '"with \\"escape"',
    "'it''s'",
    '"a: b"',
    '12:30',
    '2024-01-01',
    'a:b',
    '(x)',
    '"${oc.env:HOME}"',
    '${a.b}',
  ];
  // One section each: the plain ones are read quickly, the others by the library, all compared.
  const body = values.map((v, i) => `s${i}:\n  k: ${v}\n  l:\n    - ${v}\n`).join('');
  const before = fastParseWork.fastSections;
  assert.equal(same(generatedConfig(2000) + body + 'tail:\n  x: 1\n'), true);
  assert.ok(fastParseWork.fastSections - before > values.length / 2, 'most scalar sections were read quickly');
});

test("AgentJet's own configs, grown past the split's threshold, give the library tree", (t) => {
  const aj = findUpstream('agentjet-d20cce0');
  if (skipForEnvironment(t, aj ? undefined : 'upstream: agentjet-d20cce0')) return;
  if (!aj) return;
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(n)) files.push(p);
    }
  };
  walk(join(aj, 'ajet', 'default_config'));
  walk(join(aj, 'tutorial'));
  assert.ok(files.length > 5);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    // Each file as it is, and followed by a large plain section (then it is split).
    same(text);
    const grown =
      text + (text.endsWith('\n') ? '' : '\n') + generatedConfig(1500).split('actor_rollout_ref:')[1]!.replace(/^\n/, 'grown:\n');
    same(grown);
  }
});

/** Lines a section may hold: plain ones and every kind the reader must leave to the library. */
const lineKinds = fc.constantFrom(
  'a: 1',
  'b: text',
  'c: "quoted"',
  "d: 'single'",
  'e:',
  '# comment',
  '',
  '   ',
  'f: 1 # trailing',
  'g: 1e-3',
  'h: - x',
  'i: a: b',
  '- item',
  '- k: v',
  'j: [1, 2]',
  'k: {a: 1}',
  'l: |',
  '  block text',
  'm: >-',
  'n: !!str 5',
  'o: x  ',
  'p: "esc\\n"',
  '? q',
  'r: &anc 1',
  's: *anc',
  '<<: {t: 1}',
  'u: ~',
  'v: .5',
  'a: dup',
  '"w": 1',
  'x : 1',
  'y:  2',
  'z: 0x10',
);
const section = fc.tuple(
  fc.constantFrom('sec_a', 'sec_b', 'sec_a', 'other'),
  fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), lineKinds), { maxLength: 8 }),
);

test('random configs: whenever the split reads one, its tree is the library tree', () => {
  const filler = generatedConfig(1500).split('actor_rollout_ref:')[1]!;
  let read = 0;
  check(
    fc.property(fc.array(section, { minLength: 1, maxLength: 6 }), fc.boolean(), (sections, endNewline) => {
      let text = 'ajet:\n  model:\n    path: m\nbig:' + filler;
      for (const [name, lines] of sections)
        text += `${name}:\n` + lines.map(([ind, l]) => (l ? ' '.repeat(ind * 2) + l : l) + '\n').join('');
      text += 'last:\n  a: 1\n  b:\n    - x\n';
      if (!endNewline) text = text.slice(0, -1);
      if (same(text)) read++;
    }),
    150,
  );
  assert.ok(read > 0, 'some random configs were split');
});

test('small files, several documents and anchors go to the library', () => {
  assert.equal(parseSplit('ajet:\n  a: 1\nb:\n  c: 2\n', options), undefined);
  const big = generatedConfig(3000);
  assert.equal(parseSplit(big + '---\nx: 1\n', options), undefined);
  assert.equal(parseSplit(big.replace('ajet:', 'ajet: &root'), options), undefined);
  assert.equal(parseSplit(big.replace(/\n/g, '\r\n'), options), undefined);
});

// R13 (issue 39): a cut at a line that starts with a BOM made it the start of a stream, where the
// library drops it; in the whole text the library keeps it in the key.
test('a BOM, or another odd character, at the start of any later line gives the library tree', () => {
  const big = generatedConfig(3000);
  const lines = big.split('\n');
  const at = lines.findIndex((l, i) => i > 10 && /^[a-z]/.test(l));
  const withBom = [...lines.slice(0, at), '\uFEFF' + lines[at], ...lines.slice(at + 1)].join('\n');
  const split = parseSplit(withBom, options);
  const lib = parseAllDocuments(withBom, options) as Document.Parsed[];
  if (split) assert.deepEqual(dumpDocs(split), dumpDocs(lib));
  check(
    fc.property(
      fc.integer({ min: 1, max: lines.length - 2 }),
      fc.constantFrom('\uFEFF', '\u00A0', '\u200B', '\u2028', '\u0085', '\uFEFF\uFEFF', '\uFEFF '),
      (line, ch) => {
        const text = [...lines.slice(0, line), ch + lines[line], ...lines.slice(line + 1)].join('\n');
        same(text);
      },
    ),
    60,
  );
});
