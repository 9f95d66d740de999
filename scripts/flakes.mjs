// Finds flaky tests before CI does: runs one test layer (or some files) N times, one test file per
// process exactly as `npm test` runs that layer, and reports every test that failed in any run with
// how often (runs failed / runs), its file and its first error.
//   node scripts/flakes.mjs --layer ui|protocol|unit|conformance|exthost --repeat N
//                           [--file test/ui/x.test.ts]... [--name <test name pattern>]
//                           [--lock FILE] [--out DIR] [--no-build]
// --lock FILE (or AGENTJET_HEAVY_LOCK=FILE) takes `flock FILE` around each file's run, so that other
// people's heavy runs on a shared machine interleave file by file instead of waiting for all N runs.
// A file that leaves a process behind fails that run (as in `npm test`), and so does a file whose
// runner ends badly without a failing test. Logs of every file's run go to test-output/flakes/.
// Exit code 1 when anything failed in any run.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_RUN_ENV, endLeftovers } from './test-processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LAYER_DIRS = { unit: 'test/unit', protocol: 'test/protocol', conformance: 'test/conformance', ui: 'test/ui' };

function usage(msg) {
  if (msg) console.error(`flakes: ${msg}`);
  console.error(
    'usage: node scripts/flakes.mjs --layer ui|protocol|unit|conformance|exthost --repeat N [--file F]... [--name PATTERN] [--lock FILE] [--out DIR] [--no-build]',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    layer: undefined,
    repeat: 3,
    files: [],
    name: undefined,
    lock: process.env.AGENTJET_HEAVY_LOCK || undefined,
    out: undefined,
    build: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      return v;
    };
    if (a === '--layer') o.layer = val();
    else if (a === '--repeat') o.repeat = Number(val());
    else if (a === '--file') o.files.push(val());
    else if (a === '--name') o.name = val();
    else if (a === '--lock') o.lock = val();
    else if (a === '--out') o.out = val();
    else if (a === '--no-build') o.build = false;
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument ${a}`);
  }
  if (!Number.isInteger(o.repeat) || o.repeat < 1) usage('--repeat takes a whole number >= 1');
  if (!o.layer && o.files.length === 0) usage('give --layer or --file');
  if (o.layer && o.layer !== 'exthost' && !LAYER_DIRS[o.layer]) usage(`unknown layer ${o.layer}`);
  if (!o.layer) {
    // The layer of the given files decides how they are run.
    const dir = relative(root, resolve(o.files[0]));
    o.layer = Object.entries(LAYER_DIRS).find(([, d]) => dir.startsWith(`${d}/`))?.[0] ?? 'unit';
  }
  return o;
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Runs a command to its end; resolves with its exit code. Output goes to `log` (a stream) when given. */
function run(cmd, args, { env = {}, log } = {}) {
  return new Promise((done) => {
    // NODE_TEST_CONTEXT (set when this script itself runs under node:test) would make the runner
    // below talk to a parent runner instead of using its reporters.
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
    const child = spawn(cmd, args, { cwd: root, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    live.add(child);
    const sink = log ?? process.stdout;
    child.stdout.on('data', (b) => sink.write(b));
    child.stderr.on('data', (b) => sink.write(b));
    child.on('error', (err) => {
      sink.write(`${err}\n`);
    });
    child.on('close', (code, signal) => {
      live.delete(child);
      done(code ?? (signal ? 128 : 1));
    });
  });
}

// Children still running when this script is interrupted: their process groups end with it.
const live = new Set();
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    for (const c of live) {
      try {
        process.kill(-c.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
    process.exit(130);
  });

/**
 * The command, under `flock` when a lock is asked for. Under the lock it first notes the time it got
 * it in `stamp` (so the report can tell waiting for the lock from running).
 */
function locked(o, command, stamp) {
  if (!o.lock) return [command[0], command.slice(1)];
  rmSync(stamp, { force: true });
  return ['flock', [o.lock, 'sh', '-c', 'date +%s > "$0" && exec "$@"', stamp, ...command]];
}

function lockTime(stamp) {
  try {
    const s = Number(readFileSync(stamp, 'utf8').trim());
    return Number.isFinite(s) && s > 0 ? s * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON lines flakes-reporter.mjs wrote. */
function readResults(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** One file's run: node's test runner on that file (under the lock when asked); its tests' outcomes. */
async function runFile(o, file, runDir) {
  const base = basename(file).replace(/\.test\.ts$/, '');
  const jsonl = join(runDir, `${base}.jsonl`);
  const logFile = join(runDir, `${base}.log`);
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'flakes-reporter.mjs')}`,
    `--test-reporter-destination=${jsonl}`,
    ...(o.name ? [`--test-name-pattern=${o.name}`] : []),
    file,
  ];
  writeFileSync(jsonl, '');
  const log = createWriteStream(logFile);
  // Each file's processes carry their own mark: what is left alive afterwards is that file's.
  const mark = randomUUID();
  const env = { [TEST_RUN_ENV]: mark };
  const started = Date.now();
  const code = await run(...locked(o, [process.execPath, ...args], join(runDir, `${base}.locked`)), { log, env });
  const lockedAt = lockTime(join(runDir, `${base}.locked`)) ?? started;
  await new Promise((r) => log.end(r));
  const leftovers = await endLeftovers(mark);
  const results = readResults(jsonl).map((r) => ({ ...r, file }));
  const failedTests = results.filter((r) => r.status === 'failed' && r.leaf);
  if (leftovers.length)
    failedTests.push({
      file,
      name: '(processes left behind)',
      status: 'failed',
      leaf: true,
      error: leftovers.map((p) => `pid ${p.pid}: ${p.cmdline}`.slice(0, 160)).join(' | '),
    });
  if (code !== 0 && failedTests.length === 0)
    failedTests.push({
      file,
      name: '(the file’s run)',
      status: 'failed',
      leaf: true,
      error: `test runner exited ${code}; see ${relative(root, logFile)}`,
    });
  return {
    file,
    code,
    seconds: (Date.now() - lockedAt) / 1000,
    waitedSeconds: (lockedAt - started) / 1000,
    passed: results.filter((r) => r.status === 'passed' && r.leaf).length,
    skipped: results.filter((r) => r.status === 'skipped').length,
    failed: failedTests,
    log: relative(root, logFile),
  };
}

/** The extension-host layer runs all its suites in one VS Code: one run of it is one "file". */
async function runExthost(o, runDir) {
  const logFile = join(runDir, 'exthost.log');
  const log = createWriteStream(logFile);
  const mark = randomUUID();
  const args = ['--import', 'tsx', 'test/harness/run-exthost.ts'];
  const started = Date.now();
  const code = await run(...locked(o, [process.execPath, ...args], join(runDir, 'exthost.locked')), { log, env: { [TEST_RUN_ENV]: mark } });
  const lockedAt = lockTime(join(runDir, 'exthost.locked')) ?? started;
  await new Promise((r) => log.end(r));
  const leftovers = await endLeftovers(mark);
  const out = readFileSync(logFile, 'utf8');
  const file = 'test/exthost/suites';
  const m = [...out.matchAll(/^exthost: (\d+) passed, (\d+) failed$/gm)].at(-1);
  const failed = [...out.matchAll(/^✖ (.+)\n(.*)$/gm)].map((f) => ({ file, name: f[1], status: 'failed', leaf: true, error: f[2] }));
  if (leftovers.length)
    failed.push({ file, name: '(processes left behind)', status: 'failed', leaf: true, error: `${leftovers.length} process(es)` });
  if ((code !== 0 || !m) && failed.length === 0)
    failed.push({ file, name: '(the layer’s run)', status: 'failed', leaf: true, error: `exited ${code}; see ${relative(root, logFile)}` });
  return {
    file,
    code,
    seconds: (Date.now() - lockedAt) / 1000,
    waitedSeconds: (lockedAt - started) / 1000,
    passed: m ? Number(m[1]) : 0,
    skipped: 0,
    failed,
    log: relative(root, logFile),
  };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const files = o.files.length
    ? o.files.map((f) => relative(root, resolve(f)))
    : o.layer === 'exthost'
      ? []
      : walk(join(root, LAYER_DIRS[o.layer])).map((p) => relative(root, p));
  if (o.layer !== 'exthost' && files.length === 0) usage(`no test files for layer ${o.layer}`);
  const outDir = resolve(o.out ?? join(root, 'test-output', 'flakes', o.layer));
  mkdirSync(outDir, { recursive: true });

  if (o.build && o.layer !== 'unit') {
    console.log('flakes: build');
    if ((await run(process.execPath, ['scripts/build.mjs'], { log: createWriteStream(join(outDir, 'build.log')) })) !== 0)
      usage(`the build failed (see ${join(outDir, 'build.log')})`);
    if (o.layer === 'ui') {
      console.log('flakes: package (.vsix for the UI tests)');
      if ((await run(process.execPath, ['scripts/package.mjs'], { log: createWriteStream(join(outDir, 'package.log')) })) !== 0)
        usage(`packaging failed (see ${join(outDir, 'package.log')})`);
    }
  }

  // As test-all.mjs runs them: UI and protocol files one at a time, unit and conformance files a few at once.
  const slots =
    o.layer === 'ui' || o.layer === 'protocol' || o.layer === 'exthost'
      ? 1
      : Number(process.env.AGENTJET_TEST_CONCURRENCY) || Math.max(2, availableParallelism() - 1);
  const started = Date.now();
  /** test key -> { file, name, failedRuns: Set, errors: [] } */
  const failures = new Map();
  const runs = [];
  for (let r = 1; r <= o.repeat; r++) {
    const runDir = join(outDir, `run-${r}`);
    mkdirSync(runDir, { recursive: true });
    const runStarted = Date.now();
    let outcomes;
    if (o.layer === 'exthost') outcomes = [await runExthost(o, runDir)];
    else {
      outcomes = new Array(files.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(slots, files.length) }, async () => {
          while (next < files.length) {
            const i = next++;
            const res = await runFile(o, files[i], runDir);
            outcomes[i] = res;
            const mark = res.failed.length ? '✖' : '✔';
            const waited = res.waitedSeconds >= 1 ? `, waited ${res.waitedSeconds.toFixed(0)} s for the lock` : '';
            console.log(
              `${mark} run ${r}/${o.repeat} ${res.file}: ${res.passed} passed, ${res.failed.length} failed${res.skipped ? `, ${res.skipped} skipped` : ''} (${res.seconds.toFixed(0)} s${waited})`,
            );
            for (const f of res.failed) console.log(`    ✖ ${f.name}: ${f.error ?? ''}`);
          }
        }),
      );
    }
    for (const res of outcomes)
      for (const f of res.failed) {
        const key = `${f.file}\0${f.name}`;
        const e = failures.get(key) ?? { file: f.file, name: f.name, failedRuns: new Set(), errors: [] };
        e.failedRuns.add(r);
        if (f.error && e.errors.length < 3) e.errors.push(`run ${r}: ${f.error}`);
        failures.set(key, e);
      }
    const passed = outcomes.reduce((a, x) => a + x.passed, 0);
    const failed = outcomes.reduce((a, x) => a + x.failed.length, 0);
    runs.push({ run: r, passed, failed, seconds: (Date.now() - runStarted) / 1000 });
    console.log(`flakes: run ${r}/${o.repeat}: ${passed} passed, ${failed} failed (${((Date.now() - runStarted) / 1000).toFixed(0)} s)`);
  }

  const list = [...failures.values()]
    .map((e) => ({ file: e.file, name: e.name, failedRuns: [...e.failedRuns], runs: o.repeat, errors: e.errors }))
    .sort((a, b) => b.failedRuns.length - a.failedRuns.length || a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
  writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify({ layer: o.layer, repeat: o.repeat, runs, failures: list }, null, 2)}\n`);
  console.log(`\n## flakes: ${o.layer}, ${o.repeat} run(s), ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const x of runs) console.log(`run ${x.run}: ${x.passed} passed, ${x.failed} failed (${x.seconds.toFixed(0)} s)`);
  if (list.length === 0) console.log('tests that failed in any run: none');
  else {
    console.log(`tests that failed in any run: ${list.length}`);
    for (const x of list) {
      console.log(`  ${x.failedRuns.length}/${x.runs}  ${x.file}  ${x.name}  (runs ${x.failedRuns.join(', ')})`);
      for (const err of x.errors) console.log(`        ${err}`);
    }
  }
  console.log(`logs: ${relative(root, outDir) || outDir}`);
  process.exitCode = list.length ? 1 : 0;
}

await main();
