// Hostile run folders (issue 22, items 6-9 and 17): a FIFO lock, loose lock contents, odd
// experiment names, run sizes that lost updates, dashboard roots from the webview. Property tests
// (fast-check, fixed budget, seed in the report) over the lock parser, the size walker and the
// table's names; every defect also as a named case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectExperiment, listExperiments, readExperimentEntry } from '../../core/runs/discover';
import { folderSize } from '../../core/runs/artefacts';
import { nodeFs, syncNodeFs, type RunsFs } from '../../core/fs/seam';
import { readHost } from '../../core/runs/hostStatus';
import { printable } from '../../core/runs/format';
import { maxPid, parseLockContent } from '../../core/agentjet/liveness';
import { restoreDashboardRuns } from '../../core/runs/dashboardRuns';
import { collectRuns } from '../../cli/runs';
import { tempDir, writeRun } from '../util/runtree';
import { repoRoot } from '../util/paths';
import { checkProperty, fc } from '../util/prop';

const LOCAL = 'this-host';

/** Exact bytes of the regular files under `dir` (no links followed), the reference for folderSize. */
function duBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += duBytes(p);
    else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

/** The seam with a random delay before each call: concurrent callbacks finish in any order. */
function jitteryFs(seed: number): RunsFs {
  const inner = nodeFs();
  let s = seed >>> 0 || 1;
  const pause = () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return new Promise<void>((r) => setTimeout(r, s % 3));
  };
  return {
    get ops() {
      return inner.ops;
    },
    readdir: async (p) => (await pause(), inner.readdir(p)),
    stat: async (p) => (await pause(), inner.stat(p)),
    readRange: (p, a, b) => inner.readRange(p, a, b),
    readFile: (p) => inner.readFile(p),
    realpath: (p) => inner.realpath(p),
  };
}

// ---- properties ----

// Python's own reading of each text, asked of the test's Python once for a whole batch: the
// `int(text.strip())` beast-logger applies to its lock (register.py, install_lock_file), after
// opening the file as UTF-8 text (a BOM kept, bytes that are not UTF-8 refused).
function pythonReads(samples: Uint8Array[]): (string | null)[] {
  const prog = [
    'import sys, json',
    'out = []',
    'for h in json.load(sys.stdin):',
    '    try:',
    '        t = bytes.fromhex(h).decode("utf-8")',
    '        out.append(str(int(t.strip())))',
    '    except (ValueError, UnicodeDecodeError):',
    '        out.append(None)',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', prog], {
    input: JSON.stringify(samples.map((b) => Buffer.from(b).toString('hex'))),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.equal(r.status, 0, r.stderr || String(r.error));
  return JSON.parse(r.stdout) as (string | null)[];
}

/** The decimal digit sets the test's Python knows (the zero of each run of ten), asked once. */
function pythonDigitZeros(): number[] {
  const prog =
    'import sys, unicodedata, json; print(json.dumps([c for c in range(sys.maxunicode + 1) if unicodedata.decimal(chr(c), None) == 0]))';
  const r = spawnSync('python3', ['-c', prog], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr || String(r.error));
  return JSON.parse(r.stdout) as number[];
}

test("property: the pid read from a lock is what Python's int(text.strip()) gives (beast-logger's read), asked of Python", async () => {
  const zeros = pythonDigitZeros();
  assert.ok(zeros.length > 50, `Python knows ${zeros.length} digit sets`);
  const digit = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 9 }).map(String) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...zeros), fc.integer({ min: 0, max: 9 })).map(([z, d]) => String.fromCodePoint(z + d)),
    },
  );
  const space = fc.constantFrom(
    ' ',
    '\t',
    '\n',
    '\r',
    '\r\n',
    '\v',
    '\f',
    '\x1c',
    '\x1f',
    '\x85',
    '\xa0',
    '\u2003',
    '\u3000',
    '\u180e',
    '\ufeff',
    '\u200b',
  );
  const body = fc
    .array(fc.oneof({ weight: 8, arbitrary: digit }, { weight: 1, arbitrary: fc.constant('_') }), { maxLength: 12 })
    .map((a) => a.join(''));
  const text = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.array(space, { maxLength: 3 }), fc.constantFrom('', '', '+', '-', '++'), body, fc.array(space, { maxLength: 3 }))
        .map(([a, s, d, b]) => a.join('') + s + d + b.join('')),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '1e3',
        '3.5',
        '0x10',
        '4_',
        '_4',
        '4__2',
        '4 2',
        '\ufeff42',
        '0042',
        '4242\x00',
        '100000000000000000000000000',
      ),
    },
  );
  const sample = fc.oneof(
    { weight: 9, arbitrary: text.map((s) => new Uint8Array(Buffer.from(s, 'utf8'))) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 8 }) },
  );
  // Python is asked once for the whole draw (one process for 2000 samples); FC_SEED replays a draw.
  const seed = Number(process.env.FC_SEED ?? process.env.AGENTJET_FC_SEED ?? Date.now() % 2 ** 31);
  const draw = fc.sample(fc.tuple(sample, fc.constantFrom<NodeJS.Platform>('linux', 'darwin', 'win32')), {
    seed,
    numRuns: Number(process.env.FC_RUNS ?? 2000),
  });
  const py = pythonReads(draw.map(([b]) => b));
  let pids = 0;
  draw.forEach(([bytes, plat], i) => {
    const c = parseLockContent(bytes, plat);
    const n = py[i] === null ? undefined : BigInt(py[i]!);
    const shown = `${JSON.stringify(Buffer.from(bytes).toString('utf8'))} (FC_SEED=${seed})`;
    if (n !== undefined && n >= 2n && n <= BigInt(maxPid(plat))) {
      pids++;
      assert.deepEqual(c, { pid: Number(n) }, `${shown}: Python reads ${n}`);
    } else {
      assert.ok('invalid' in c, `${shown} read as ${JSON.stringify(c)}, Python: ${String(py[i])}`);
      assert.ok(!/\n/.test(c.invalid), c.invalid);
    }
  });
  // The draw must hold both kinds, or the property proves little.
  assert.ok(pids > draw.length / 10 && pids < draw.length, `${pids} of ${draw.length} samples name a process`);
});

test('the lock texts beast-logger takes as a live process are read as that process', () => {
  for (const t of ['4062\n', ' 4062 ', '\t4062\r\n', '+4062', '40_62', '４０６２', '٤٠٦٢', '0004062', '4062\u3000'])
    assert.deepEqual(parseLockContent(Buffer.from(t)), { pid: 4062 }, JSON.stringify(t));
  for (const t of ['', '\n', '-4062', '4062.0', '4062_', '\ufeff4062', '40 62', '1', '0'])
    assert.ok('invalid' in parseLockContent(Buffer.from(t)), JSON.stringify(t));
  assert.deepEqual(parseLockContent(Buffer.from([0xff, 0x34])), { invalid: 'not UTF-8 text' });
});

test('property: folderSize is the exact byte count of any tree, the same on every call, whatever order calls finish in', async () => {
  const tmp = tempDir('aj-hostile-size-');
  let k = 0;
  try {
    const name = fc.stringMatching(/^[a-z0-9._\- ]{1,12}$/).filter((n) => n !== '.' && n !== '..');
    const tree = fc.array(fc.tuple(fc.array(name, { maxLength: 3 }), name, fc.nat({ max: 5000 })), { minLength: 1, maxLength: 40 });
    await checkProperty(
      fc.asyncProperty(tree, fc.nat(), async (files, seed) => {
        const root = join(tmp.path, `t${k++}`);
        mkdirSync(root);
        for (const [dirs, file, size] of files) {
          const d = join(root, ...dirs.map((x) => `d-${x}`));
          mkdirSync(d, { recursive: true });
          writeFileSync(join(d, `f-${file}`), Buffer.alloc(size));
        }
        const want = duBytes(root);
        const sizes = await Promise.all([0, 1, 2].map((i) => folderSize(jitteryFs(seed + i), root)));
        for (const s of sizes) assert.deepEqual(s, { bytes: want, complete: true });
      }),
      40,
    );
  } finally {
    tmp.dispose();
  }
});

test('property: a name printed in the runs table is one line without control characters', async () => {
  await checkProperty(
    fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
      const p = printable(s);
      assert.doesNotMatch(p, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      if (!/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(s)) assert.equal(p, s);
    }),
    500,
  );
});

// ---- named regression cases ----

test('regression (item 6): a .logger_lock that is a FIFO does not hang the listing; read as no process id', async () => {
  const tmp = tempDir('aj-hostile-fifo-');
  try {
    const exp = writeRun(tmp.path, { name: 'fifo-lock' });
    const host = join(exp, '2026_01_05_10_00', 'gpu-node-0');
    const mk = spawnSync('mkfifo', [join(host, '.logger_lock')]);
    if (mk.status !== 0) return;
    for (const fs of [nodeFs(), syncNodeFs()]) {
      // The guard is a bound on a hang, not a wait for something: it fails only if the read blocks.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hang = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('readHost blocked on the FIFO lock')), 10_000);
      });
      try {
        const r = await Promise.race([readHost(fs, host, { localHost: LOCAL }, false), hang]);
        assert.equal(r.info.lock?.pid, undefined);
        assert.match(r.info.lock?.invalid ?? '', /FIFO/);
      } finally {
        clearTimeout(timer);
      }
      // A direct read of it is refused at once, never blocking either.
      await assert.rejects(fs.readRange(join(host, '.logger_lock'), 0, 64), /not a regular file/);
    }
  } finally {
    tmp.dispose();
  }
});

test('regression (item 7): loose lock contents name no process; PID 1 is not "alive"; huge numbers shown as text', async () => {
  const tmp = tempDir('aj-hostile-lock-');
  try {
    const cases: [string, number | undefined][] = [
      ['1e3', undefined],
      ['3.5', undefined],
      ['+7', 7],
      [' 1 ', undefined],
      ['4242\n', 4242],
      ['\t2_4062\r\n', 24062],
      ['1', undefined],
      ['0', undefined],
      ['100000000000000000000000000', undefined],
      ['4242', 4242],
    ];
    for (const [i, [text, pid]] of cases.entries()) {
      const exp = writeRun(tmp.path, { name: `lock${i}` });
      writeFileSync(join(exp, '2026_01_05_10_00', 'gpu-node-0', '.logger_lock'), text);
      const fs = nodeFs();
      const info = await inspectExperiment(fs, (await readExperimentEntry(fs, tmp.path, `lock${i}`))!, {
        localHost: 'gpu-node-0',
        processProbe: (p) => ({ pid: p, startMs: 0 }),
      });
      const host = info.sessions[0]!.hosts[0]!;
      assert.equal(host.lock?.pid, pid, text);
      const said = info.evidence.map((e) => e.text).join(' | ');
      if (pid === undefined) {
        assert.notEqual(info.status, 'running', `${text}: ${said}`);
        assert.ok(said.includes(JSON.stringify(text)), `${text}: ${said}`);
        assert.doesNotMatch(said, /e\+26|process 1 is alive/);
      } else assert.equal(info.status, 'running', said);
    }
  } finally {
    tmp.dispose();
  }
});

test('regression (item 8): an experiment named `..x_3` is listed; a name with a newline stays one table row', async () => {
  const tmp = tempDir('aj-hostile-names-');
  try {
    const root = join(tmp.path, 'saved_experiments');
    writeRun(root, { name: '..x_3' });
    writeRun(root, { name: 'two\nlines' });
    writeRun(root, { name: 'plain' });
    const { experiments } = await listExperiments(nodeFs(), root);
    assert.deepEqual(experiments.map((e) => e.name).sort(), ['..x_3', 'plain', 'two\nlines']);
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'runs', root], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 4, r.stdout);
    assert.ok(
      lines.some((l) => l.startsWith('two\\nlines ')),
      r.stdout,
    );
    assert.ok(
      lines.some((l) => l.startsWith('..x_3 ')),
      r.stdout,
    );
  } finally {
    tmp.dispose();
  }
});

test('regression (item 9): run sizes are exact and stable; `runs --format json` reports them as sizeBytes', async () => {
  const tmp = tempDir('aj-hostile-sizes-');
  try {
    const root = join(tmp.path, 'saved_experiments');
    for (let i = 0; i < 3; i++) {
      const exp = writeRun(root, { name: `run${i}`, hosts: [{ host: 'a', rollout: [[1, 0.5]] }, { host: 'b' }, { host: 'c' }] });
      for (let j = 0; j < 30; j++) writeFileSync(join(exp, `extra${j}.bin`), Buffer.alloc(100 * (j + i)));
    }
    for (const name of ['run0', 'run1', 'run2']) {
      const want = duBytes(join(root, name));
      // Three calls, each with stats finishing in a different order (the old sum lost updates).
      const got = await Promise.all([1, 2, 3].map((s) => folderSize(jitteryFs(s), join(root, name))));
      for (const g of got) assert.equal(g.bytes, want, name);
    }
    const { rows } = await collectRuns([root], { sizes: true });
    for (const r of rows) assert.equal(r.sizeBytes, duBytes(r.path), r.experiment);
  } finally {
    tmp.dispose();
  }
});

test('regression (item 17): a dashboard restored after a reload keeps only runs the host lists, never a root the page saved', () => {
  const known = ['/ws/saved_experiments/a', '/ws/saved_experiments/b'];
  assert.deepEqual(restoreDashboardRuns({ runs: ['/'] }, known), { runs: [], dropped: ['/'] });
  assert.deepEqual(restoreDashboardRuns({ runs: ['/ws/saved_experiments/a', '/etc', '/ws'] }, known).runs, ['/ws/saved_experiments/a']);
  assert.deepEqual(restoreDashboardRuns({ runs: 'x' }, known).runs, []);
  assert.deepEqual(restoreDashboardRuns(undefined, known).runs, []);
});
