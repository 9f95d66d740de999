// npx tsx bench/validate-cost.ts - CPU cost of our in-process validation of the generated 5,000-line
// config (the document bench/lsp.ts measures), as it ships (bundled with the product's Node aliases).
// Prints wall time, process CPU time (what a shared machine's load does not inflate) and µs a line,
// the parse and the checks apart. BENCH_N runs after BENCH_WARM warm-ups; BENCH_LINES sets the size.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { build } from 'esbuild';
import { repoRoot } from '../test/util/paths';

type Validation = typeof import('./validate-entry');

/** The generated config of bench/lsp.ts: demo/math_agent.yaml grown with nested verl blocks. */
export function generatedConfig(lines: number): string {
  const out = readFileSync(join(repoRoot, 'demo', 'math_agent.yaml'), 'utf8').split('\n');
  out.push('actor_rollout_ref:');
  for (let i = 0; out.length < lines; i++)
    out.push(
      `  block_${i}:`,
      `    lr_${i}: 0.001`,
      `    enable_${i}: true`,
      `    name_${i}: "value ${i}"`,
      `    list_${i}:`,
      `      - a`,
      `      - b`,
    );
  return out.slice(0, lines).join('\n') + '\n';
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-vcost-'));
  try {
    const { nodeBundleAlias } = (await import(join(repoRoot, 'scripts', 'bundleAlias.mjs'))) as { nodeBundleAlias: Record<string, string> };
    const outfile = join(dir, 'validate.js');
    await build({
      entryPoints: [join(__dirname, 'validate-entry.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile,
      alias: nodeBundleAlias,
      loader: { '.py': 'text' },
      logLevel: 'warning',
    });
    const { validateText, validateParsed, parseConfig, ClassResolver, CachedFs } = (await import(outfile)) as Validation;
    const lines = Number(process.env.BENCH_LINES ?? 5000);
    const n = Number(process.env.BENCH_N ?? 30);
    const warm = Number(process.env.BENCH_WARM ?? 5);
    const text = generatedConfig(lines);
    const resolver = new ClassResolver(new CachedFs(60_000));
    const wall: number[] = [];
    const cpu: number[] = [];
    const parseCpu: number[] = [];
    const checkCpu: number[] = [];
    let found = 0;
    for (let i = 0; i < n + warm; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      found = validateText(text, { root: dir, resolver }).length;
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      // The two halves apart: the YAML parse (the library plus our duplicate-key pass) and the checks.
      const c1 = process.cpuUsage();
      const parsed = parseConfig(text);
      const c2 = process.cpuUsage();
      validateParsed(parsed, { root: dir, resolver });
      const c3 = process.cpuUsage();
      if (i >= warm) {
        wall.push(ms);
        cpu.push((c.user + c.system) / 1000);
        parseCpu.push((c2.user + c2.system - c1.user - c1.system) / 1000);
        checkCpu.push((c3.user + c3.system - c2.user - c2.system) / 1000);
      }
    }
    const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    const min = (xs: number[]): number => Math.min(...xs);
    console.log(`generated config: ${lines} lines, ${found} diagnostics, ${n} runs after ${warm} warm-up runs`);
    console.log(`wall ms: median ${med(wall).toFixed(1)}, min ${min(wall).toFixed(1)}`);
    console.log(`CPU ms:  median ${med(cpu).toFixed(1)}, min ${min(cpu).toFixed(1)} (${((med(cpu) * 1000) / lines).toFixed(1)} µs a line)`);
    console.log(`  of which parseConfig CPU ms: median ${med(parseCpu).toFixed(1)}, min ${min(parseCpu).toFixed(1)}`);
    console.log(`  of which checks CPU ms:      median ${med(checkCpu).toFixed(1)}, min ${min(checkCpu).toFixed(1)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) void main();
