// The scanner's WebAssembly kernels (core/logs/wasm/): the committed build is what the
// source compiles to, and the kernels' idea of "lower case is itself" (search) is the engine's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kernels, MAX_WASM_PAYLOAD } from '../../core/logs/kernels';
import { FastScanner, exportLine, type ScanWant } from '../../core/logs/fastscan';
import { Bail } from '../../core/logs/jsonbytes';
import { repoRoot } from '../util/paths';

test('core/logs/wasmbin.ts is what core/logs/wasm/ builds to (npm run build:wasm)', async () => {
  const mod = (await import(pathToFileURL(join(repoRoot, 'scripts', 'build-wasm.mjs')).href)) as { buildWasmModule(): Promise<string> };
  const fresh = await mod.buildWasmModule();
  assert.equal(readFileSync(join(repoRoot, 'core', 'logs', 'wasmbin.ts'), 'utf8'), fresh, 'run npm run build:wasm and commit the result');
});

test('the kernels take a code point as lower-case-stable only when toLowerCase() leaves it as it is (every code point)', () => {
  const k = Kernels.create();
  assert.ok(k, 'WebAssembly is there in Node');
  let stable = 0;
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      assert.equal(k.lowerStable(c), false, `surrogate ${c.toString(16)}`);
      continue;
    }
    if (!k.lowerStable(c)) continue;
    stable++;
    const s = String.fromCodePoint(c);
    assert.equal(s.toLowerCase(), s, `U+${c.toString(16)}`);
  }
  // CJK, kana, Hangul, emoji and the rest of the caseless blocks are in.
  for (const ch of ['你', 'の', '한', '😀', 'é', 'ß', '→', '∑']) assert.ok(k.lowerStable(ch.codePointAt(0)!), ch);
  assert.ok(stable > 150_000, `stable ${stable}`);
});

test('a payload cut anywhere, or with a NUL byte in a token, is left to the decoder or read as the JavaScript loops read it (never a trap)', () => {
  const tokens = Array.from({ length: 300 }, (_, i) => [' the', '\n', 'é', '"', '42', '日本'][i % 6]!);
  const content = {
    text: tokens,
    title: tokens.map((_, i) => (i % 7 ? (-i / 97).toFixed(4) : 'N/A')),
    count: tokens.map((_, i) => String(1000 + i)),
    color: tokens.map((_, i) => (i % 3 ? '#09abcf' : '#d98510')),
  };
  const py = (v: unknown): string =>
    Array.isArray(v)
      ? '[' + v.map(py).join(', ') + ']'
      : v && typeof v === 'object'
        ? '{' +
          Object.entries(v)
            .map(([k, x]) => `${JSON.stringify(k)}: ${py(x)}`)
            .join(', ') +
          '}'
        : JSON.stringify(v);
  const json = Buffer.from(py({ header: '[3] Task t1 (Reward 1.000)', nested_json: { 't1.1.0.0': { outcome: '1.0', content } } }));
  const wasm = new FastScanner({ wasm: true }),
    js = new FastScanner({ wasm: false });
  const scan = (s: FastScanner, b: Buffer, want: ScanWant) => {
    try {
      const r = s.scanPayload(b, want);
      return JSON.stringify(r, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('latin1') : v instanceof Int32Array ? [...v] : v));
    } catch (err) {
      assert.ok(err instanceof Bail, `${String(err)}`);
      return 'bail';
    }
  };
  const wants: ScanWant[] = [{ tokens: true }, {}, { search: true }];
  let cuts = 0;
  for (let cut = 0; cut < json.length; cut += 7) {
    const b = json.subarray(0, cut);
    for (const want of wants) assert.equal(scan(wasm, b, want), 'bail', `cut at ${cut}`);
    cuts++;
  }
  const whole = wants.map((w) => scan(wasm, json, w));
  assert.ok(whole.every((r) => r !== 'bail'));
  assert.deepEqual(
    whole,
    wants.map((w) => scan(js, json, w)),
  );
  // A raw NUL in a token: the kernels stop there and the JavaScript loops read on.
  const nul = Buffer.from(json);
  nul[nul.indexOf('"日本"') + 1] = 0;
  for (const want of wants) assert.equal(scan(wasm, nul, want), scan(js, nul, want));
  assert.ok(cuts > 1000);
});

test('a payload above the kernels limit is read by the JavaScript loops, and the kernels still serve the next one', () => {
  const k = Kernels.create()!;
  assert.equal(k.load(Buffer.alloc(MAX_WASM_PAYLOAD + 1, 0x20)), false);
  const n = Math.ceil((MAX_WASM_PAYLOAD + 1) / 12);
  const text = Array.from({ length: n }, (_, i) => (i % 2 ? ' tok' : 'é\n'));
  const json = (t: string[]) =>
    Buffer.from(
      JSON.stringify({
        header: '[1] Task big (Reward 1.000)',
        nested_json: {
          'big.1.0': {
            outcome: '1.0',
            content: { text: t, title: t.map(() => '-0.5000'), count: t.map(() => '7'), color: t.map(() => '#09abcf') },
          },
        },
      }),
    );
  const big = json(text),
    small = json(text.slice(0, 50));
  assert.ok(big.length > MAX_WASM_PAYLOAD);
  const wasm = new FastScanner({ wasm: true }),
    js = new FastScanner({ wasm: false });
  const rows = (s: FastScanner, b: Buffer) => {
    const r = s.scanPayload(b, { tokens: true });
    return r.timelines.map((t) => exportLine(0, r, t).toString('utf8'));
  };
  assert.deepEqual(rows(wasm, big), rows(js, big));
  assert.deepEqual(rows(wasm, small), rows(js, small));
});

test('memory grown for a large payload is given back at the next small one', () => {
  const k = Kernels.create()!;
  const base = k.memoryBytes;
  assert.ok(k.load(Buffer.alloc(12 << 20, 0x20)));
  const grown = k.memoryBytes;
  assert.ok(grown > 64 << 20, `grown to ${grown}`);
  assert.ok(k.load(Buffer.from('{"a": ["x"]}')));
  assert.ok(k.memoryBytes < 32 << 20, `after a small payload: ${k.memoryBytes} (at first ${base})`);
  // The new instance still works: a join needs its tables again.
  assert.ok(k.lowerStable(0x4f60));
});

test('the 64-byte block count (stats, search) agrees with the JavaScript loops on odd arrays: escapes, separators, ends at every offset', () => {
  // A small deterministic generator: the same cases every run.
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = [
    'a',
    ' the',
    'é',
    '日本',
    '\\"',
    '\\\\',
    '\\n',
    '\\u00e9',
    ']',
    ',',
    '[',
    ' ',
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  ];
  const seps = [', ', ', ', ', ', ',', ' , ', ',\n  ', ',  '];
  const str = () => {
    let s = '"';
    for (let k = rnd(5); k > 0; k--) s += pieces[rnd(pieces.length)];
    return s + '"';
  };
  const arr = (n: number, odd: boolean) => {
    const els: string[] = [];
    for (let i = 0; i < n; i++) els.push(odd && rnd(40) === 0 ? ['1', 'null', '-0.5'][rnd(3)]! : str());
    let s = '[';
    els.forEach((e, i) => (s += (i ? seps[odd ? rnd(seps.length) : 0]! : '') + e));
    // The odd ends too: a space before it, a trailing comma (not JSON: the decoder decides).
    return s + (odd && rnd(3) === 0 ? [' ]', ',]', ', ]'][rnd(3)]! : ']');
  };
  const wasm = new FastScanner({ wasm: true }),
    js = new FastScanner({ wasm: false });
  const scan = (s: FastScanner, b: Buffer, want: ScanWant) => {
    try {
      return JSON.stringify(s.scanPayload(b, want), (_k, v: unknown) =>
        Buffer.isBuffer(v) ? v.toString('latin1') : v instanceof Int32Array ? [...v] : v,
      );
    } catch (err) {
      assert.ok(err instanceof Bail, `${String(err)}`);
      return 'bail';
    }
  };
  let whole = 0;
  for (let c = 0; c < 400; c++) {
    const n = 1 + rnd(60),
      odd = c % 2 === 1;
    const text = arr(n, odd);
    // Title, count and colour arrays of as many elements, some odd too (the colour one read by the mask kernel).
    const title = arr(n, odd && rnd(2) === 0);
    const count = arr(n, odd && rnd(2) === 0);
    const color = '[' + Array.from({ length: n }, () => (rnd(3) ? '"#09abcf"' : '"#d98510"')).join(', ') + ']';
    const lead = ' '.repeat(rnd(64));
    const json = Buffer.from(
      `{"header": "[3] Task t1 (Reward 1.000)",${lead} "nested_json": {"t1.1.0.0": {"outcome": "1.0", "content": {"title": ${title}, "count": ${count}, "text": ${text}, "color": ${color}}}}}`,
    );
    for (const want of [{}, { search: true }] as ScanWant[]) {
      const a = scan(wasm, json, want);
      assert.equal(a, scan(js, json, want), `case ${c}: ${json.toString()}`);
      if (a !== 'bail') whole++;
    }
  }
  assert.ok(whole > 200, `read in full: ${whole}`);
});

test('the join kernel (search) lowercases and joins token texts as the JavaScript loops do: case edges, runs past 16 bytes, escapes and non-ASCII at every offset', () => {
  let seed = 424242;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  // The bytes around the ASCII capitals ('@' 'A' 'Z' '[' '`' 'a' 'z' '{'), escapes, and characters
  // whose lower case is themselves or not ('é' stays, 'É' does not: the string path).
  const pieces = [
    '@',
    'A',
    'Z',
    '[',
    '`',
    'a',
    'z',
    '{',
    'Q',
    ' ',
    '~',
    '\\n',
    '\\"',
    '\\\\',
    '\\u0041',
    '\\u00e9',
    'é',
    '日',
    '😀',
    'É',
    'İ',
  ];
  const wasm = new FastScanner({ wasm: true }),
    js = new FastScanner({ wasm: false });
  const scan = (s: FastScanner, b: Buffer) => {
    try {
      return JSON.stringify(s.scanPayload(b, { search: true }), (_k, v: unknown) =>
        Buffer.isBuffer(v) ? v.toString('latin1') : v instanceof Int32Array ? [...v] : v,
      );
    } catch (err) {
      assert.ok(err instanceof Bail, `${String(err)}`);
      return 'bail';
    }
  };
  let joined = 0;
  for (let c = 0; c < 600; c++) {
    const n = 1 + rnd(30);
    const els: string[] = [];
    for (let i = 0; i < n; i++) {
      // Mostly ASCII runs of 0-40 bytes, with an odd piece at any offset in some.
      let s = '';
      for (let k = rnd(41); k > 0; k--) s += String.fromCharCode(0x40 + rnd(0x3f));
      s = s.replace(/["\\]/g, 'x');
      if (c % 3 !== 0 && rnd(3) === 0) {
        const at = rnd(s.length + 1);
        s = s.slice(0, at) + pieces[rnd(c % 3 === 1 ? 16 : pieces.length)]! + s.slice(at);
      }
      els.push(`"${s}"`);
    }
    const text = '[' + els.join(', ') + ']';
    const color = '[' + els.map(() => '"#09abcf"').join(', ') + ']';
    const json = Buffer.from(
      `{"header": "[3] Task t1 (Reward 1.000)", "nested_json": {"t1.1.0.0": {"outcome": "1.0", "content": {"text": ${text}, "color": ${color}}}}}`,
    );
    const a = scan(wasm, json);
    assert.equal(a, scan(js, json), `case ${c}: ${json.toString()}`);
    if (a.includes('"joined"')) joined++;
  }
  assert.ok(joined > 300, `joined: ${joined}`);
});

test('the find kernel (search) counts a needle in the joined text as Buffer.indexOf finds it one match after the other: overlaps, both ends, 16-byte edges', () => {
  let seed = 99991;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const scanner = new FastScanner({ wasm: true });
  const needles = ['a', 'aa', 'aba', 'ab', 'b', 'abab', 'aaaaaaaaaaaaaaaaa', 'ba a', 'x', 'é', 'ab\nb', 'b'.repeat(40)];
  let counted = 0,
    matched = 0;
  for (let c = 0; c < 500; c++) {
    const needle = needles[c % needles.length]!;
    const nb = Buffer.from(needle);
    const n = 1 + rnd(12);
    // Tokens from a small alphabet, so that matches overlap and cross tokens, up to 70 bytes each.
    const els = Array.from({ length: n }, () => {
      let s = '';
      for (let k = rnd(71); k > 0; k--) s += ['a', 'b', 'A', ' ', '\\n', 'é'][rnd(6)];
      return `"${s}"`;
    });
    const color = '[' + els.map(() => '"#09abcf"').join(', ') + ']';
    const json = Buffer.from(
      `{"header": "[3] Task t1 (Reward 1.000)", "nested_json": {"t1.1.0.0": {"outcome": "1.0", "content": {"text": [${els.join(', ')}], "color": ${color}}}}}`,
    );
    const r = scanner.scanPayload(json, { search: true, needle });
    for (const t of r.timelines) {
      assert.ok(t.joined);
      let want = 0;
      const at = t.joined.indexOf(nb);
      for (let p = at; p >= 0; p = t.joined.indexOf(nb, p + nb.length)) want++;
      if (!t.found) continue;
      counted++;
      if (want > 0) matched++;
      assert.deepEqual(
        [t.found.matches, t.found.at],
        [want, at],
        `case ${c} needle ${JSON.stringify(needle)}: ${t.joined.toString('latin1')}`,
      );
    }
  }
  // Timelines the raw-byte filter rules out get no text (and no count).
  assert.ok(counted > 200 && matched > 80, `counted by the kernel: ${counted}, with matches: ${matched}`);
});

test('the mask kernel agrees with the JavaScript loops on colours of every kind: thousands of distinct ones (its slots evict), case, odd elements and separators', () => {
  let seed = 777;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const hex = (v: number) => '#' + v.toString(16).padStart(6, '0');
  // Colours near the two hues and anywhere, a few repeated, some odd ones the kernel leaves to the loops.
  const colour = (odd: boolean): string => {
    if (odd && rnd(20) === 0) return JSON.stringify(['#09ABCF', '#09abc', '#09abcfa', 'red', '#0\\u0039abcf', '#0"abcd'][rnd(6)]!);
    if (odd && rnd(30) === 0) return ['7', 'null'][rnd(2)]!;
    const c = rnd(3) === 0 ? hex(rnd(1 << 24)) : ['#09abcf', '#d98510', '#0ca8cb', '#d28316'][rnd(4)]!;
    return JSON.stringify(rnd(10) === 0 ? c.toUpperCase() : c);
  };
  const wasm = new FastScanner({ wasm: true }),
    js = new FastScanner({ wasm: false });
  const scan = (s: FastScanner, b: Buffer, want: ScanWant) => {
    try {
      return JSON.stringify(s.scanPayload(b, want), (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('latin1') : v));
    } catch (err) {
      assert.ok(err instanceof Bail, `${String(err)}`);
      return 'bail';
    }
  };
  let whole = 0;
  for (let c = 0; c < 300; c++) {
    const n = 1 + rnd(400),
      odd = c % 3 === 0;
    const seps = odd ? [', ', ',', ' , ', ',  '] : [', '];
    const text = '[' + Array.from({ length: n }, (_, i) => `"t${i}"`).join(', ') + ']';
    // As many colours as tokens, or a few more or fewer.
    const m = Math.max(1, n + rnd(5) - 2);
    let color = '[';
    for (let i = 0; i < m; i++) color += (i ? seps[rnd(seps.length)]! : '') + colour(odd);
    color += ']';
    const json = Buffer.from(
      `{"header": "[3] Task t1 (Reward 1.000)", "nested_json": {"t1.1.0.0": {"outcome": "1.0", "content": {"text": ${text}, "color": ${color}}}}}`,
    );
    for (const want of [{}, { tokens: true }] as ScanWant[]) {
      const a = scan(wasm, json, want);
      assert.equal(a, scan(js, json, want), `case ${c}: ${json.toString()}`);
      if (a !== 'bail') whole++;
    }
  }
  assert.ok(whole > 400, `read in full: ${whole}`);
});

/** `[` and the elements, each after the first behind a separator drawn by `sep` (the closing bracket is the caller's). */
function joined(els: string[], sep: () => string): string {
  let out = '[';
  els.forEach((e, i) => (out += (i ? sep() : '') + e));
  return out;
}

/** A record of `n` token texts, then `lead` spaces and `field` holding `array` (a JSON array's text). */
function tokenRecord(n: number, lead: number, field: string, array: string): Buffer {
  const text = '[' + Array.from({ length: n }, (_, i) => `"t${i}"`).join(', ') + ']';
  return Buffer.from(
    `{"header": "[3] Task t1 (Reward 1.000)", "nested_json": {"t1.1.0.0": {"outcome": "1.0", "content": {"text": ${text},${' '.repeat(lead)} "${field}": ${array}}}}}`,
  );
}

/** The export lines of a payload, or 'bail' where the scanner leaves it to JSON.parse (with `syntax`, also where JSON.parse refuses it). */
function exportOrBail(s: FastScanner, b: Buffer, syntax = false): string {
  try {
    const r = s.scanPayload(b, { tokens: true });
    return r.timelines.map((t, k) => exportLine(k, r, t).toString('latin1')).join('');
  } catch (err) {
    assert.ok(err instanceof Bail || (syntax && err instanceof SyntaxError), `${String(err)}`);
    return 'bail';
  }
}

test('the 64-byte ids blocks (export) agree with the JavaScript loops: leading zeros, 15 and 16 digits, odd separators and elements, ends at every offset', () => {
  let seed = 98765;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const digits = (k: number) => {
    let s = String(1 + rnd(9));
    while (s.length < k) s += String(rnd(10));
    return s;
  };
  // Mostly the usual element; now and then one the blocks must leave to the element loop.
  const odd = () =>
    // 16 digits and more from 9: above 2 ** 53, where Number() would not print them back as they are.
    [
      '"0"',
      '"07"',
      '"00"',
      `"${digits(15)}"`,
      `"9${digits(15)}"`,
      `"9${digits(16)}"`,
      '"-5"',
      '""',
      '"1a"',
      '"1\\u0030"',
      '"12]"',
      '"é"',
      '7',
      'null',
      '"1"  ',
      '2"',
    ][rnd(16)]!;
  // Separators the JSON allows and some it does not (no comma, two commas).
  const seps = [', ', ',', ' , ', ',\n', ',  ', ' ', '', ',, ', ', , ', '  '];
  const wasm = new FastScanner({ wasm: true }),
    js = new FastScanner({ wasm: false });
  let whole = 0;
  for (let c = 0; c < 2000; c++) {
    const n = 13 + rnd(80);
    const rare = c % 4 === 0 ? 0 : [3, 10, 40][c % 3]!;
    const els: string[] = [];
    // Sometimes more ids than tokens (counted, not written) or fewer (padded with null).
    const m = n + [0, 0, 5, -5][rnd(4)]!;
    for (let i = 0; i < m; i++) els.push(rare && rnd(rare) === 0 ? odd() : `"${digits(1 + rnd(rnd(4) === 0 ? 15 : 7))}"`);
    let ids = joined(els, () => (rare && rnd(rare * 4) === 0 ? seps[rnd(seps.length)]! : ', '));
    ids += rnd(5) === 0 ? ' ]' : ']';
    const json = tokenRecord(n, rnd(64), 'count', ids);
    const a = exportOrBail(wasm, json);
    assert.equal(a, exportOrBail(js, json), `case ${c}: ${json.toString()}`);
    if (a !== 'bail') whole++;
  }
  assert.ok(whole > 400, `read in full: ${whole}`);
});

test("the logprobs kernel's runs of one decimal shape agree with the JavaScript loops: trailing zeros, -0, leading zeros, shape changes, odd separators, ends at every offset", () => {
  // mulberry32: the low bits of a plain LCG repeat with a short period, and the cases below
  // combine several draws per element.
  let seed = 4242;
  const rnd = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
  const digits = (k: number) => Array.from({ length: k }, () => String(rnd(10))).join('');
  // A run's shape: sign, digits before the dot, digits after it (up to 8: past 6 the 1e-6 rule).
  const shapes = [
    [true, 1, 4],
    [false, 1, 4],
    [true, 2, 4],
    [true, 1, 7],
    [false, 3, 2],
    [true, 1, 1],
    [true, 5, 10],
  ] as const;
  const decimal = (neg: boolean, int: number, frac: number) => {
    const r = rnd(8);
    // All zeros (-0.0000, 0.0000), trailing zeros, a leading zero where the int part is longer.
    // Zeros first in the fraction: below 1e-6 from 7 fraction digits on (JSON writes an exponent).
    const f =
      r === 0
        ? '0'.repeat(frac)
        : r === 1
          ? digits(Math.max(0, frac - 2)).padEnd(frac, '0')
          : r === 3
            ? String(1 + rnd(9)).padStart(frac, '0')
            : digits(frac);
    const i = r === 0 && int === 1 ? '0' : r === 2 ? '0' + digits(int - 1) : String(1 + rnd(9)) + digits(int - 1);
    return `"${neg ? '-' : ''}${int === 1 && rnd(3) === 0 ? '0' : i}.${f}"`;
  };
  const odd = () =>
    ['"N/A"', '"-1.5e-7"', '"1."', '"-.5"', '"--1.0"', '"1.2.3"', '"7"', '-0.5', 'null', '"-0.5\\u0030"', '"0.0000001"'][rnd(11)]!;
  const seps = [', ', ',', ' , ', ',\n', ',  '];
  const wasm = new FastScanner({ wasm: true }),
    js = new FastScanner({ wasm: false });
  // A value JSON.parse refuses (a quote changed below) throws its SyntaxError: the decoder's too.
  const scan = (sc: FastScanner, b: Buffer) => exportOrBail(sc, b, true);
  let whole = 0;
  for (let c = 0; c < 2000; c++) {
    const n = 4 + rnd(60);
    const m = n + [0, 0, 4, -4][rnd(4)]!;
    const els: string[] = [];
    let shape = shapes[rnd(shapes.length)]!;
    for (let i = 0; i < m; i++) {
      if (rnd(25) === 0) shape = shapes[rnd(shapes.length)]!;
      const e = rnd(30) === 0 ? odd() : decimal(shape[0], shape[1], shape[2]);
      // Now and then one byte changed: same length, another shape (a digit for the sign or the
      // dot, a second dot, a quote early).
      const at = 1 + rnd(Math.max(1, e.length - 2));
      els.push(rnd(20) === 0 ? e.slice(0, at) + '0123456789.-"x'[rnd(14)]! + e.slice(at + 1) : e);
    }
    let title = joined(els, () => (rnd(40) === 0 ? seps[rnd(seps.length)]! : ', '));
    title += rnd(5) === 0 ? ' ]' : ']';
    const json = tokenRecord(n, rnd(64), 'title', title);
    const a = scan(wasm, json);
    assert.equal(a, scan(js, json), `case ${c}: ${json.toString()}`);
    if (a !== 'bail') whole++;
  }
  assert.ok(whole > 1000, `read in full: ${whole}`);
});
