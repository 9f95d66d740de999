// npm run bench:scale:runs — `agentjet runs` (the built CLI, as a user runs it) over generated
// workspaces of 100, 1,000 and 10,000 experiments: wall time of the first listing (text), of the
// JSON listing (which also measures every run's size), and the growth factor between sizes.
// Prints figures beside the baseline; asserts nothing.
// `--snapshot-kb 28` writes each experiment's yaml_backup.yaml the size AgentJet's resolved config
// is (the default is a three-line snapshot, as the baseline was measured with).
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

/** Measured before the scale work (issue 22): 10,000 experiments took 43 s. */
const BASELINE_10K_MS = 43_000;
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

function run(args: string[], cli = CLI): { ms: number; bytes: number; cpu?: number } {
  const c0 = childCpuSeconds();
  const t0 = performance.now();
  const env = { ...process.env, AGENTJET_BENCH: '1', ...(THREADS ? { AGENTJET_RUNS_THREADS: THREADS } : {}) };
  const out = execFileSync(process.execPath, [cli, 'runs', ...args], { maxBuffer: 1 << 30, env });
  const ms = performance.now() - t0;
  const c1 = childCpuSeconds();
  return { ms, bytes: out.length, ...(c0 !== undefined && c1 !== undefined ? { cpu: c1 - c0 } : {}) };
}

function main(): void {
  console.log(`agentjet runs over N experiments (built CLI ${CLI}); baseline before this work: 10,000 in ${BASELINE_10K_MS / 1000} s`);
  console.log(
    `snapshots: ${SNAPSHOT_KB > 0 ? `${SNAPSHOT_KB} KB resolved configs` : 'three-line (as the baseline)'}; threads: ${THREADS || 'default (AGENTJET_RUNS_THREADS unset)'}`,
  );
  const rows: { n: number; text: number; json: number }[] = [];
  for (const n of SIZES) {
    const tmp = tempDir('agentjet-scale-runs-');
    try {
      const root = join(tmp.path, 'saved_experiments');
      const g0 = performance.now();
      generateRuns(root, n, SNAPSHOT_KB);
      const gen = performance.now() - g0;
      const text = run([root]);
      const json = run([root, '--format', 'json']);
      rows.push({ n, text: text.ms, json: json.ms });
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
  const big = rows.find((r) => r.n === 10_000);
  if (big) console.log(`10,000 experiments: ${(big.text / 1000).toFixed(2)} s (baseline ${BASELINE_10K_MS / 1000} s, target under 5 s)`);
  // Wall time on a shared machine says as much about the neighbours as about the listing.
  console.log(`load average during the run: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
}

// Run as a script, not when a test or another bench imports the generator.
if (require.main === module) main();
