// Runs every test layer, prints each layer's counts and, as the last line, the total:
// "N passed, N failed". Exits non-zero when anything failed or a layer could not run.
//   node scripts/test-all.mjs [--layer static|unit|protocol|conformance|exthost|ui]...
// A test that needs a part of the environment CI provides (the upstream AgentJet trees, the Python
// venv, a network namespace...) skips when it is missing, through test/util/envSkip.ts: its reason
// starts with "env:". With AGENTJET_REQUIRE_COMPLETE=1 (CI; AGENTJET_REQUIRE_UPSTREAM=1 is the old
// name) such a skip fails the run.
// AGENTJET_TEST_CONCURRENCY=N runs N test files at once in the unit and conformance layers.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { TEST_RUN_ENV, endLeftovers } from './test-processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const only = argv.flatMap((a, i) => (a === '--layer' ? [argv[i + 1]] : []));
const want = (layer) => only.length === 0 || only.includes(layer);
// Every process of this run carries the mark (inherited), so leftovers can be found at the end.
const runId = randomUUID();
process.env[TEST_RUN_ENV] = runId;

function walk(dir, pred, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, pred, out);
    else if (pred(p)) out.push(p);
  }
  return out;
}

/** Runs a command, echoing its output (unless `quiet`), and returns { code, output }. */
function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (stream) => (buf) => {
      output += buf.toString();
      if (!opts.quiet) stream.write(buf);
    };
    child.stdout.on('data', onData(process.stdout));
    child.stderr.on('data', onData(process.stderr));
    child.on('error', (err) => resolve({ code: 127, output: String(err) }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * The failures a layer printed (`✖ title` lines, each with the line after it when that is the error),
 * repeated just before the summary: a log cut to its tail still names what failed.
 */
const failureLines = [];
function noteFailures(layer, output) {
  const lines = output.split('\n');
  const seen = new Set();
  for (const [i, line] of lines.entries()) {
    const m = /^\s*✖ (.+)$/.exec(line);
    if (!m || /^failing tests:?$/.test(m[1]) || seen.has(m[1])) continue;
    seen.add(m[1]);
    const next = (lines[i + 1] ?? '').trim();
    const why = next && !next.startsWith('✖') && !next.startsWith('✔') ? ` — ${next}` : '';
    failureLines.push(`${layer}: ${m[1]}${why}`.slice(0, 400));
  }
}

/** Counts from node:test's spec reporter summary ("ℹ pass 3" / "ℹ fail 0"). */
function nodeTestCounts(output) {
  const pass = [...output.matchAll(/^\S*\s*pass (\d+)$/gm)].map((m) => Number(m[1]));
  const fail = [...output.matchAll(/^\S*\s*fail (\d+)$/gm)].map((m) => Number(m[1]));
  const skip = [...output.matchAll(/^\S*\s*skipped (\d+)$/gm)].map((m) => Number(m[1]));
  // The spec reporter prints a skip as `﹣ name (0.1ms) # <reason>`; TAP as `# SKIP <reason>`.
  const envSkips = [...output.matchAll(/ # (?:SKIP )?(env: .*)$/gm)].map((m) => m[1].trim());
  return { passed: pass.at(-1), failed: fail.at(-1), skipped: skip.at(-1) ?? 0, envSkips };
}

async function nodeTestLayer(name, dir, extraEnv = {}, split = undefined) {
  const files = walk(join(root, dir), (p) => p.endsWith('.test.ts')).map((p) => relative(root, p));
  if (files.length === 0) return { name, passed: 0, failed: 0, note: 'no test files' };
  // node:test runs availableParallelism() - 1 files at once: one on CI's 2 cores, although unit and
  // conformance files mostly wait on child processes: two at once there (unit 292 -> 235 s,
  // conformance 430 -> 278 s measured on 2 cores). Protocol and UI files one at a time: they run real
  // debuggers, Ray clusters, swarm servers and VS Code windows with timeouts, and two protocol files
  // at once made launch and swarm tests time out in a full run. The UI layer runs in two lanes
  // (`split`, uiLanes below) that never put two launches side by side.
  const n =
    name === 'ui' || name === 'protocol' ? 1 : Number(process.env.AGENTJET_TEST_CONCURRENCY) || Math.max(2, availableParallelism() - 1);
  const concurrency = [`--test-concurrency=${n}`];
  // Lanes run side by side, each one file at a time; the first is shown as it goes, the others when they end.
  const lanes = (split ? split(files) : [files]).filter((l) => l.length > 0);
  const runs = lanes.map((laneFiles, i) =>
    run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...concurrency, ...laneFiles], {
      env: extraEnv,
      quiet: i > 0,
    }),
  );
  const total = { passed: 0, failed: 0, skipped: 0, envSkips: [] };
  let vscode;
  for (const [i, r] of runs.entries()) {
    const { code, output } = await r;
    if (i > 0) process.stdout.write(`\n## ${name}, lane ${i + 1} of ${lanes.length}\n${output}`);
    const { passed, failed, skipped, envSkips } = nodeTestCounts(output);
    noteFailures(name, output);
    if (passed === undefined || failed === undefined) {
      total.failed++;
      failureLines.push(`${name}: lane ${i + 1}: runner exited ${code} without a summary`);
      continue;
    }
    total.passed += passed;
    total.failed += failed + (code !== 0 && failed === 0 ? 1 : 0);
    total.skipped += skipped;
    total.envSkips.push(...envSkips);
    // The real-VS-Code layers print which VS Code they run ("[harness] VS Code 1.139.1 (code-server …").
    vscode ??= /\[harness\] (VS Code \S+)/.exec(output)?.[1];
  }
  return { name, ...total, vscode };
}

/**
 * The UI files in two lanes (AGENTJET_UI_LANES=1: one): what launches AgentJet, Ray or a swarm
 * server (debuggers, clusters, ports) in one, the views, dashboards and editors in the other. Each
 * lane is about half of the layer's time.
 */
function uiLanes(files) {
  if (process.env.AGENTJET_UI_LANES === '1') return [files];
  const launches = (f) => /\/(launch-|ray|swarm|port-companion|task-table|debug|newproject)[^/]*\.test\.ts$/.test(f);
  return [files.filter(launches), files.filter((f) => !launches(f))];
}

const layers = [];
const started = Date.now();
// Each layer's wall time, for the summary (CI has a budget; this shows where it goes).
let layerStart = Date.now();
const pushLayer = layers.push.bind(layers);
layers.push = (...ls) => {
  for (const l of ls) l.seconds ??= (Date.now() - layerStart) / 1000;
  layerStart = Date.now();
  return pushLayer(...ls);
};

if (want('static')) {
  let passed = 0,
    failed = 0;
  const checks = [
    // The two longest first.
    ['typecheck', 'npx', ['tsc', '-p', '.']],
    ['lint', 'npx', ['eslint', '.', '--max-warnings=0']],
    ['typecheck media', 'npx', ['tsc', '-p', 'media']],
    ['typecheck ui tests', 'npx', ['tsc', '-p', 'test/ui']],
    ['format', 'npx', ['prettier', '--check', '.']],
  ];
  // Each check is one single-threaded process: two at once (static 65 s in CI on 2 cores), each
  // one's output shown whole when it ends, in this order.
  let slots = 2;
  const waiting = [];
  const limited = async (fn) => {
    if (slots === 0) await new Promise((r) => waiting.push(r));
    else slots--;
    try {
      return await fn();
    } finally {
      const wake = waiting.shift();
      if (wake) wake();
      else slots++;
    }
  };
  const results = checks.map(([, cmd, args]) => limited(() => run(cmd, args, { quiet: true })));
  for (const [i, [label]] of checks.entries()) {
    const { code, output } = await results[i];
    console.log(`\n## static: ${label}`);
    process.stdout.write(output);
    if (code === 0) passed++;
    else {
      failed++;
      console.log(`✖ ${label} failed`);
      failureLines.push(`static: ${label} failed`);
    }
  }
  layers.push({ name: 'static', passed, failed });
}

const needBuild = want('exthost') || want('ui') || want('protocol') || want('conformance');
if (needBuild) {
  console.log('\n## build');
  const { code } = await run(process.execPath, ['scripts/build.mjs']);
  if (code !== 0) layers.push({ name: 'build', passed: 0, failed: 1 });
}

if (want('unit')) {
  console.log('\n## unit');
  layers.push(await nodeTestLayer('unit', 'test/unit'));
}
if (want('protocol')) {
  console.log('\n## protocol');
  layers.push(await nodeTestLayer('protocol', 'test/protocol'));
}
if (want('conformance')) {
  console.log('\n## conformance (the real AgentJet / ASTuner / beast-logger code)');
  const layer = await nodeTestLayer('conformance', 'test/conformance');
  const { execFileSync } = await import('node:child_process');
  try {
    layer.note = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        "const u=require('./test/util/upstream.ts');console.log(Object.keys(u.pins).map(n=>n.replace(/-[^-]+$/,'')+'@'+u.upstreamCommit(n)).join(' '))",
      ],
      { cwd: root, encoding: 'utf8' },
    ).trim();
  } catch {
    /* the summary line is only informative */
  }
  layers.push(layer);
}

if (want('exthost')) {
  // On the newest VS Code server (what users run) and again on the oldest one `engines.vscode`
  // declares; AGENTJET_CODE_SERVER_VERSION=newest|oldest|<version> runs that one only.
  const chosen = process.env.AGENTJET_CODE_SERVER_VERSION;
  // The last run opens a folder without AgentJet (unrelated YAML and Python): what must not load there.
  const servers = chosen
    ? [
        [chosen, 'exthost'],
        [chosen, 'exthost-unrelated', 'unrelated'],
      ]
    : [
        ['newest', 'exthost'],
        ['oldest', 'exthost-old'],
        ['newest', 'exthost-unrelated', 'unrelated'],
      ];
  for (const [server, name, workspace] of servers) {
    console.log(`\n## extension host (real VS Code, ${server}${workspace ? `, ${workspace} workspace` : ''})`);
    const { code, output } = await run(process.execPath, ['--import', 'tsx', 'test/harness/run-exthost.ts'], {
      env: { AGENTJET_CODE_SERVER_VERSION: server, ...(workspace ? { AGENTJET_EXTHOST_WORKSPACE: workspace } : {}) },
    });
    noteFailures(name, output);
    if (code !== 0 && !/^\s*✖ /m.test(output)) failureLines.push(`${name}: the harness exited ${code} (see its output)`);
    const m = [...output.matchAll(/^exthost: (\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].at(-1);
    const vscode = /\[harness\] (VS Code \S+)/.exec(output)?.[1];
    if (m)
      layers.push({
        name,
        passed: Number(m[1]),
        failed: Number(m[2]) + (code !== 0 && m[2] === '0' ? 1 : 0),
        skipped: Number(m[3] ?? 0),
        ...(vscode ? { note: vscode } : {}),
      });
    else layers.push({ name, passed: 0, failed: 1, note: `${vscode ?? server}: harness exited ${code} without a result` });
  }
}

if (want('ui')) {
  console.log('\n## package (.vsix for the UI tests)');
  const { code } = await run(process.execPath, ['scripts/package.mjs']);
  if (code !== 0) layers.push({ name: 'package', passed: 0, failed: 1 });
  else {
    console.log('\n## ui (real VS Code, Playwright)');
    const layer = await nodeTestLayer('ui', 'test/ui', {}, uiLanes);
    layer.note ??= layer.vscode;
    layers.push(layer);
  }
}

const envSkips = layers.flatMap((l) => l.envSkips ?? []);
if (envSkips.length > 0) {
  console.log(`\n${envSkips.length} test(s) skipped for a missing part of the environment:`);
  const byReason = new Map();
  for (const why of envSkips) byReason.set(why, (byReason.get(why) ?? 0) + 1);
  for (const [why, n] of byReason) console.log(`  ${n} x ${why}`);
  if (process.env.AGENTJET_REQUIRE_COMPLETE === '1' || process.env.AGENTJET_REQUIRE_UPSTREAM === '1')
    layers.push({
      name: 'environment',
      passed: 0,
      failed: envSkips.length,
      note: 'AGENTJET_REQUIRE_COMPLETE=1 but tests skipped for a missing part',
    });
}

// A complete environment (CI) runs every test: any skip, in any layer and for any reason, fails.
const requireComplete = process.env.AGENTJET_REQUIRE_COMPLETE === '1' || process.env.AGENTJET_REQUIRE_UPSTREAM === '1';
const allSkipped = layers.reduce((a, l) => a + (l.skipped ?? 0), 0);
if (requireComplete && allSkipped > envSkips.length)
  layers.push({
    name: 'skips',
    passed: 0,
    failed: allSkipped - envSkips.length,
    note: 'AGENTJET_REQUIRE_COMPLETE=1 but tests were skipped (see each layer)',
  });

// A test that does not end what it started fails the run: its processes are listed and ended.
const leftovers = await endLeftovers(runId);
if (leftovers.length) {
  console.log(`\n## leftovers\n${leftovers.length} process(es) started by the tests were still running (now killed):`);
  for (const p of leftovers) console.log(`  pid ${p.pid} in ${p.cwd}: ${p.cmdline}`);
  layers.push({ name: 'leftovers', passed: 0, failed: leftovers.length, note: 'processes the tests did not end' });
}

if (failureLines.length) {
  console.log(`\n## failures (${failureLines.length}; each in its layer's output above)`);
  for (const f of failureLines.slice(0, 40)) console.log(`✖ ${f}`);
  if (failureLines.length > 40) console.log(`… and ${failureLines.length - 40} more`);
}

console.log('\n## summary');
for (const l of layers)
  console.log(
    `${l.name.padEnd(12)} ${l.passed} passed, ${l.failed} failed${l.skipped ? `, ${l.skipped} skipped` : ''}${l.note ? ` (${l.note})` : ''} [${l.seconds.toFixed(0)} s]`,
  );
const passed = layers.reduce((a, l) => a + l.passed, 0);
const failed = layers.reduce((a, l) => a + l.failed, 0);
const skipped = layers.reduce((a, l) => a + (l.skipped ?? 0), 0);
console.log(`time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 ? 1 : 0;
