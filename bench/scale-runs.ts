// npm run bench:scale:runs — `agentjet runs` (the built CLI, as a user runs it) over generated
// workspaces of 100, 1,000 and 10,000 experiments: wall time of the first listing (text), of the
// JSON listing (which also measures every run's size), and the growth factor between sizes.
// Prints figures beside the baseline; asserts nothing.
//   node --import tsx bench/scale-runs.ts [--sizes 100,1000,10000] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { rolloutRecord, tempDir, recordText, richTable } from '../test/util/runtree';

/** Measured before the scale work (issue 22): 10,000 experiments took 43 s. */
const BASELINE_10K_MS = 43_000;
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const SIZES = arg('sizes', '100,1000,10000').split(',').map(Number);
const keep = process.argv.includes('--keep');
const CLI = join(__dirname, '..', 'dist', 'cli.js');

/** One session per experiment, one host, the six modules a real run writes, a snapshot. */
export function generateRuns(root: string, experiments: number): void {
  const rollout = Array.from({ length: 8 }, (_, i) => rolloutRecord(Math.floor(i / 4), i % 3 === 0 ? 1 : 0.5)).join('');
  const evaluation = recordText({ header: 'gsm8k_test', content: richTable({ 'TGC@1': '0.5', mean_reward: '0.5' }) });
  const p = (n: number) => String(n).padStart(2, '0');
  for (let e = 0; e < experiments; e++) {
    const name = `exp_${String(e).padStart(5, '0')}`;
    const exp = join(root, name);
    mkdirSync(exp, { recursive: true });
    writeFileSync(join(exp, 'yaml_backup.yaml'), `ajet:\n  project_name: bench\n  experiment_name: ${name}\n`);
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

function run(args: string[]): { ms: number; bytes: number } {
  const t0 = performance.now();
  const out = execFileSync(process.execPath, [CLI, 'runs', ...args], { maxBuffer: 1 << 30, env: { ...process.env, AGENTJET_BENCH: '1' } });
  return { ms: performance.now() - t0, bytes: out.length };
}

function main(): void {
  console.log(`agentjet runs over N experiments (built CLI ${CLI}); baseline before this work: 10,000 in ${BASELINE_10K_MS / 1000} s`);
  const rows: { n: number; text: number; json: number }[] = [];
  for (const n of SIZES) {
    const tmp = tempDir('agentjet-scale-runs-');
    try {
      const root = join(tmp.path, 'saved_experiments');
      const g0 = performance.now();
      generateRuns(root, n);
      const gen = performance.now() - g0;
      const text = run([root]);
      const json = run([root, '--format', 'json']);
      rows.push({ n, text: text.ms, json: json.ms });
      console.log(
        `${String(n).padStart(6)} experiments: first listing ${(text.ms / 1000).toFixed(2)} s, --format json (with sizes) ${(json.ms / 1000).toFixed(2)} s  (generated in ${(gen / 1000).toFixed(1)} s${keep ? `, kept at ${tmp.path}` : ''})`,
      );
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
}

// Run as a script, not when a test or another bench imports the generator.
if (require.main === module) main();
