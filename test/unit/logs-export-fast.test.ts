// `log export --jsonl` on the fast path (the scanner writes the four token arrays while it reads
// them, the workers write into buffers given back by the writer) against the full-decode path
// (JSON.stringify of exportRow of decodeRecord), byte for byte: on every fixture log, on random
// hostile logs, and on records whose content columns come in any order and any length.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { FastScanner, exportLine } from '../../core/logs/fastscan';
import { decodeRecord } from '../../core/logs/decode';
import { exportRow } from '../../core/logs/stats';
import { LogIndex } from '../../core/logs/index';
import { planTasks, runTasks } from '../../core/logs/pool';
import { Rng, header, randomLog } from '../util/tokenlogs';
import { fixtures } from '../gen';

/** The export of a log file through the whole-file job (fast path), in small tasks. */
async function fastExport(path: string, workers: number): Promise<{ text: string; rows: number; corrupt: number }> {
  const ix = new LogIndex(path, { siblings: false });
  await ix.update();
  const parts: Buffer[] = [];
  let rows = 0,
    corrupt = 0;
  await runTasks(
    planTasks(ix, 0, ix.count, 16 * 1024),
    { kind: 'export' },
    async (r) => {
      if (r.kind !== 'export') return;
      // The buffer is written into again after this returns: keep a copy, as a writer's stream would.
      parts.push(Buffer.from(r.chunk.lines));
      rows += r.chunk.rows;
      corrupt += r.chunk.corrupt;
      await new Promise<void>((res) => setImmediate(res));
    },
    { workers, minBytesForWorkers: 0, reuseExportBuffers: true },
  );
  return { text: Buffer.concat(parts).toString('utf8'), rows, corrupt };
}

/** The reference: every record decoded in full, each timeline's row as JSON.stringify writes it. */
async function decodedExport(path: string): Promise<{ text: string; rows: number; corrupt: number }> {
  const ix = new LogIndex(path, { siblings: false });
  await ix.update();
  const fd = openSync(path, 'r');
  let text = '',
    rows = 0,
    corrupt = 0;
  try {
    for (let i = 0; i < ix.count; i++) {
      const loc = ix.locate(i)!;
      const buf = Buffer.alloc(loc.end - loc.offset);
      readSync(fd, buf, 0, buf.length, loc.offset);
      const d = decodeRecord(buf);
      if (!d.ok) {
        corrupt++;
        continue;
      }
      for (const t of d.record.timelines) {
        text += JSON.stringify(exportRow(i, d.record, t)) + '\n';
        rows++;
      }
    }
  } finally {
    closeSync(fd);
  }
  return { text, rows, corrupt };
}

async function agree(path: string, label: string): Promise<number> {
  const ref = await decodedExport(path);
  for (const workers of [0, 2]) {
    const got = await fastExport(path, workers);
    assert.equal(got.rows, ref.rows, `${label} (workers ${workers}): rows`);
    assert.equal(got.corrupt, ref.corrupt, `${label} (workers ${workers}): corrupt records`);
    if (got.text !== ref.text) {
      const a = got.text.split('\n'),
        b = ref.text.split('\n');
      const k = a.findIndex((l, j) => l !== b[j]);
      assert.equal(a[k], b[k], `${label} (workers ${workers}): line ${k}`);
    }
  }
  return ref.rows;
}

/**
 * A token record whose timelines have their content columns in a random order, each present or
 * not, and shorter or longer than the text; some timelines are long (the scanner's buffers grow
 * while earlier timelines' arrays are still held).
 */
function columnRecord(r: Rng, i: number): string {
  const pieces = [' the', 'é', '"', '\\', '\n', '😀', '\u2028', ' 42', 'İ', '/', '\t', 'N/A', '-0.5', '#09abcf'];
  const nested: string[] = [];
  const timelines = 1 + r.int(3);
  for (let k = 0; k < timelines; k++) {
    const n = r.int(6) === 0 ? 2000 + r.int(8000) : r.int(20);
    const text = Array.from({ length: n }, () => r.pick(pieces) + (r.int(4) === 0 ? r.pick(pieces) : ''));
    const len = () => Math.max(0, n + r.pick([0, 0, 0, -1, 1, -3, 2]));
    // A column of what the loggers write with an odd value now and then (the scanner's fast loops
    // run up to it), or of odd values throughout.
    const column = <T>(usual: () => T, odd: () => unknown): unknown[] => {
      const rare = r.int(2) === 0 ? 0.02 : 1;
      return Array.from({ length: len() }, () => (r.next() < rare ? odd() : usual()));
    };
    const cols: [string, unknown[]][] = [['text', text]];
    // Logprobs "N/A" now and then, or in long runs (prompt tokens: the kernel's run loop).
    const naRate = r.pick([1 / 9, 1 / 9, 0.6, 0.97]);
    const astune = r.int(6) === 0;
    if (astune) cols.push(['title', [...text]]);
    else if (r.int(8) !== 0)
      cols.push([
        'title',
        column(
          () => (r.next() < naRate ? 'N/A' : (-r.next() * 9).toFixed(4)),
          () =>
            r.pick([
              'N/A',
              (-r.next() * 9).toFixed(4),
              '-0.0000',
              '1e-3',
              'x',
              '0.0000001',
              '-12.50',
              (-r.next()).toString(),
              3,
              // The edges of the one-pass decimal copy: exponent form below 1e-6, 15 and 16 digits, not decimals.
              '0.000001',
              '0.0000010',
              '-0',
              '1.',
              '.5',
              '01.5',
              '-',
              'N/A ',
              '12345678901234.5',
              '123456789012345.6',
              '99.90000000000000',
            ]),
        ),
      ]);
    if (r.int(8) !== 0)
      cols.push([
        'count',
        column(
          () => String(r.int(151643)),
          () =>
            r.pick([
              String(r.int(151643)),
              '007',
              '-0',
              'abc',
              r.int(1000),
              '123456789012345678',
              '0',
              '00',
              '-12',
              '123456789012345',
              '1234567890123456',
              '',
            ]),
        ),
      ]);
    if (r.int(8) !== 0)
      cols.push([
        'color',
        column(
          () => r.pick(['#09abcf', '#d98510', '#4fa9bd', '#c0914f']),
          () => r.pick(['#09abcf', '#d98510', '#808080', 'red', 7, '#09ABCF', '#09abc', '#09abcfa', '#0\\abcde', '#0"abcde']),
        ),
      ]);
    // Any order of the columns (the loggers write text, title, count, color).
    for (let a = cols.length - 1; a > 0; a--) {
      const b = r.int(a + 1);
      [cols[a], cols[b]] = [cols[b]!, cols[a]!];
    }
    if (r.int(3) === 0) cols.sort((x, y) => (x[0] === 'text' ? -1 : y[0] === 'text' ? 1 : 0));
    const sep = r.int(2) === 0 ? ', ' : ',';
    const arr = (v: unknown[]) => '[' + v.map((x) => JSON.stringify(x)).join(sep) + ']';
    const content = '{' + cols.map(([name, v]) => `"${name}": ${arr(v)}`).join(', ') + '}';
    const outcome = r.pick(['0.0', '1.0']);
    nested.push(
      `"t${i}.${outcome}.${k}": {"outcome": "${outcome}", "len_prompt_ids": ${r.int(9)}, "raw_reward": "0.500", "step_advantage": "-0.250", "content": ${content}}`,
    );
  }
  const json = `{"header": "[${r.int(5)}] Task t${i} (Reward ${r.pick(['1.000', '0.500'])})", "nested_json": {${nested.join(', ')}}}`;
  return header() + 'base64:' + deflateSync(Buffer.from(json)).toString('base64') + '\n';
}

for (const wasm of [true, false])
  test(`export lines from the scanner equal the decoder lines for content columns in any order and of any length (${wasm ? 'WebAssembly kernels' : 'JavaScript loops'})`, () => {
    const rng = new Rng(41);
    const scanner = new FastScanner({ wasm });
    let fast = 0,
      rows = 0;
    for (let i = 0; i < 400; i++) {
      const bytes = Buffer.from(columnRecord(rng, i));
      const got = scanner.scanRecord(bytes, { tokens: true });
      const dec = decodeRecord(bytes);
      assert.ok(got.ok && dec.ok, `record ${i}`);
      if (!got.decoded) fast++;
      // Every line of the record, after all of its timelines are scanned (the arrays share buffers).
      got.timelines.forEach((t, k) => {
        const want = JSON.stringify(exportRow(i, dec.record, dec.record.timelines[k]!)) + '\n';
        assert.equal(exportLine(i, got, t).toString('utf8'), want, `record ${i} timeline ${k}`);
        rows++;
      });
    }
    assert.ok(fast > 350, `fast path taken ${fast} times of 400`);
    assert.ok(rows > 700, `rows ${rows}`);
  });

test('the export job agrees with the full decode on every fixture log (inline and on worker threads)', async () => {
  const f = fixtures();
  const files = [...readdirSync(f.logs).map((n) => join(f.logs, n)), join(f.crlf, 'plain.json.log'), f.rollout, f.evaluation];
  let rows = 0;
  for (const path of files) rows += await agree(path, path);
  assert.ok(rows >= 40, `rows ${rows}`);
});

test('the export job agrees with the full decode on random hostile logs and on reordered columns', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajexport-'));
  try {
    const hostile = join(dir, 'hostile.json.log');
    writeFileSync(hostile, randomLog(2026, 800));
    assert.ok((await agree(hostile, 'random hostile log')) > 800);
    const rng = new Rng(5);
    const columns = join(dir, 'columns.json.log');
    writeFileSync(columns, Array.from({ length: 150 }, (_, i) => columnRecord(rng, i)).join(''));
    assert.ok((await agree(columns, 'reordered columns')) > 250);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
