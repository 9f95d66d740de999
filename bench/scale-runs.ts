// npm run bench:scale:runs — `agentjet runs` (the built CLI, as a user runs it) over generated
// workspaces of 100, 1,000 and 10,000 experiments: wall time of the first listing (text), of the
// JSON listing (which also measures every run's size), and the growth factor between sizes.
// Prints figures beside a baseline measured in the same run on the same trees: the naive listing
// (bench/naive-runs.mjs, one thread, reads everything); asserts nothing.
// `--snapshot-kb 28` writes each experiment's yaml_backup.yaml the size AgentJet's resolved config
// is (the default is a three-line snapshot).
// `--threads 1` measures the listing on one thread (AGENTJET_RUNS_THREADS) instead of the default;
// `--baseline-cli OLD/dist/cli.js` runs another build on the same trees, side by side. CPU seconds
// (user + system, from /proc on Linux) are printed beside wall time: on a shared machine they are
// the figure that does not depend on the neighbours.
//   node --import tsx bench/scale-runs.ts [--sizes 100,1000,10000] [--snapshot-kb 28] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { rolloutRecord, tempDir, recordText, richTable } from '../test/util/runtree';
import { resolvedSnapshot } from '../test/gen/snapshot';
import { printBenchTable, type BenchRow } from './table';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const SIZES = arg('sizes', '100,1000,10000').split(',').map(Number);
const keep = process.argv.includes('--keep');
const SNAPSHOT_KB = Number(arg('snapshot-kb', '0'));
const THREADS = arg('threads', '');
/** Another build of the CLI (e.g. the one before a change), run on the same trees in the same run. */
const BASELINE_CLI = arg('baseline-cli', '');
const CLI = join(__dirname, '..', 'dist', 'cli.js');

/** One session per experiment, one host, the six modules a real run writes, a snapshot. */
export function generateRuns(root: string, experiments: number, snapshotKb = 0): void {
  const rollout = Array.from({ length: 8 }, (_, i) => rolloutRecord(Math.floor(i / 4), i % 3 === 0 ? 1 : 0.5)).join('');
  const evaluation = recordText({ header: 'gsm8k_test', content: richTable({ 'TGC@1': '0.5', mean_reward: '0.5' }) });
  const p = (n: number) => String(n).padStart(2, '0');
  for (let e = 0; e < experiments; e++) {
    const name = `exp_${String(e).padStart(5, '0')}`;
    const exp = join(root, name);
    mkdirSync(exp, { recursive: true });
    writeFileSync(
      join(exp, 'yaml_backup.yaml'),
      snapshotKb > 0
        ? resolvedSnapshot({ project: 'bench', experiment: name, kb: snapshotKb })
        : `ajet:\n  project_name: bench\n  experiment_name: ${name}\n`,
    );
    const t = new Date(2026, 0, 1 + (e % 28), e % 24, e % 60);
    const host = join(
      exp,
      `${t.getFullYear()}_${p(t.getMonth() + 1)}_${p(t.getDate())}_${p(t.getHours())}_${p(t.getMinutes())}`,
      'gpu-node-0',
    );
    for (const m of ['rollout', 'evaluation', 'exception', 'regular', 'token_clip', 'bad_case'])
      mkdirSync(join(host, m), { recursive: true });
    writeFileSync(join(host, 'rollout', 'rollout.json.log'), rollout);
    writeFileSync(join(host, 'rollout', 'rollout.log'), '');
    writeFileSync(join(host, 'evaluation', 'evaluation.json.log'), evaluation);
    writeFileSync(join(host, 'exception', 'exception.json.log'), '');
    writeFileSync(join(host, 'regular', 'regular.log'), '2026-01-01 00:00:00.000 | INFO     | ajet:fit:1 - step 1 done\n');
    for (const m of ['token_clip', 'bad_case']) writeFileSync(join(host, m, `${m}.json.log`), '');
  }
}

/**
 * CPU seconds (user + system) of this process's waited-for children, from /proc (Linux): what a
 * listing costs whatever else the machine runs, where wall time on a shared machine is not.
 */
function childCpuSeconds(): number | undefined {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime are fields 16 and 17 of stat(5); the slice starts at field 3.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

const NAIVE = join(__dirname, 'naive-runs.mjs');

function run(args: string[], cli = CLI): { ms: number; bytes: number; cpu?: number } {
  const c0 = childCpuSeconds();
  const t0 = performance.now();
  const env = { ...process.env, AGENTJET_BENCH: '1', ...(THREADS ? { AGENTJET_RUNS_THREADS: THREADS } : {}) };
  const argv = cli === NAIVE ? [cli, ...args] : [cli, 'runs', ...args];
  const out = execFileSync(process.execPath, argv, { maxBuffer: 1 << 30, env });
  const ms = performance.now() - t0;
  const c1 = childCpuSeconds();
  return { ms, bytes: out.length, ...(c0 !== undefined && c1 !== undefined ? { cpu: c1 - c0 } : {}) };
}

function main(): void {
  console.log(`agentjet runs over N experiments (built CLI ${CLI}); baseline: ${NAIVE} on the same trees, in this run`);
  console.log(
    `snapshots: ${SNAPSHOT_KB > 0 ? `${SNAPSHOT_KB} KB resolved configs` : 'three-line'}; threads: ${THREADS || 'default (AGENTJET_RUNS_THREADS unset)'}`,
  );
  const rows: { n: number; text: number; json: number }[] = [];
  const table: BenchRow[] = [];
  const s = (r: { ms: number; cpu?: number }) =>
    `${(r.ms / 1000).toFixed(2)} s${r.cpu === undefined ? '' : ` (${r.cpu.toFixed(2)} s CPU)`}`;
  for (const n of SIZES) {
    const tmp = tempDir('agentjet-scale-runs-');
    try {
      const root = join(tmp.path, 'saved_experiments');
      const g0 = performance.now();
      generateRuns(root, n, SNAPSHOT_KB);
      const gen = performance.now() - g0;
      const text = run([root]);
      const json = run([root, '--format', 'json']);
      const naive = run([root], NAIVE);
      rows.push({ n, text: text.ms, json: json.ms });
      table.push({
        what: `${n} experiments: first listing`,
        ours: s(text),
        baseline: s(naive),
        how: 'naive listing (bench/naive-runs.mjs: one thread, parses each snapshot, stats every file, reads every log whole)',
      });
      table.push({
        what: `${n} experiments: --format json (with sizes)`,
        ours: s(json),
        baseline: s(naive),
        how: 'the same naive listing (it reads every size too)',
      });
      const cpu = (r: { cpu?: number }) => (r.cpu === undefined ? '' : ` (${r.cpu.toFixed(2)} s CPU)`);
      console.log(
        `${String(n).padStart(6)} experiments: first listing ${(text.ms / 1000).toFixed(2)} s${cpu(text)}, --format json (with sizes) ${(json.ms / 1000).toFixed(2)} s${cpu(json)}  (generated in ${(gen / 1000).toFixed(1)} s${keep ? `, kept at ${tmp.path}` : ''})`,
      );
      if (BASELINE_CLI) {
        const base = run([root], BASELINE_CLI);
        console.log(
          `${' '.repeat(6)}  baseline CLI ${BASELINE_CLI}: first listing ${(base.ms / 1000).toFixed(2)} s${cpu(base)}${base.bytes === text.bytes ? ', same output size' : `, output ${base.bytes} bytes vs ${text.bytes}`}`,
        );
      }
    } finally {
      if (!keep) tmp.dispose();
    }
  }
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1]!,
      b = rows[i]!;
    console.log(`growth ${a.n} -> ${b.n} (x${b.n / a.n}): text x${(b.text / a.text).toFixed(1)}, json x${(b.json / a.json).toFixed(1)}`);
  }
  console.log('');
  printBenchTable(table, { ours: 'ours: agentjet runs (wall, CPU)', baseline: 'baseline (wall, CPU)' });
  // Wall time on a shared machine says as much about the neighbours as about the listing.
  console.log(`load average during the run: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
}

// Run as a script, not when a test or another bench imports the generator.
if (require.main === module) main();
