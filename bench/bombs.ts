// npm run bench:bombs — zlib "decompression bombs" (a few MB on disk, gigabytes inflated) through
// `agentjet log stats`, `agentjet log export` and the viewer's reading (bench/bomb-viewer.ts):
// peak resident memory (from /usr/bin/time -v), time, and what each says about the bomb. The logs
// are generated here (test/gen/bomb.ts), never committed. Prints figures; asserts nothing.
//   node --import tsx bench/bombs.ts [--gb 2,5] [--keep]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBombLog } from '../test/gen/bomb';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const SIZES = arg('gb', '2,5').split(',').map(Number);
const keep = process.argv.includes('--keep');
const root = join(__dirname, '..');
const TIME = '/usr/bin/time';
/** Before this work: a 2 GB bomb killed `log export` (V8 fatal error, 15.8 GB resident); 5 GB cost 4.4 GB. */
const BASELINE =
  'baseline: 2 GB bomb -> export killed at 15.8 GB resident; 5 GB bomb -> 4.4 GB and "Cannot create a Buffer larger than 4 GB"';

function measured(args: string[]): { code: number | null; peakMb: number; seconds: number; said: string } {
  const r = spawnSync(TIME, ['-v', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const seconds = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
  const said = (r.stdout + r.stderr)
    .split('\n')
    .filter((l) => /too large|exported|records open|corrupt records:/.test(l))
    .map((l) => l.trim())
    .join('\n      ');
  return { code: r.status, peakMb: peak ? Number(peak[1]) / 1024 : NaN, seconds, said };
}

async function main(): Promise<void> {
  if (!existsSync(TIME)) {
    console.log(`${TIME} is needed (Debian: apt-get install time)`);
    return;
  }
  const cli = join(root, 'dist', 'cli.js');
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-bombs-'));
  console.log(BASELINE);
  try {
    for (const gb of SIZES) {
      const t0 = Date.now();
      const bomb = await writeBombLog(join(dir, `bomb${gb}g.json.log`), Math.round(gb * 1024 ** 3));
      const mb = statSync(bomb.path).size / 2 ** 20;
      console.log(
        `\n${gb} GB bomb: ${mb.toFixed(1)} MB on disk, ${bomb.records} records, bomb = #${bomb.bombIndex} at byte ${bomb.bombOffset} (made in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
      );
      const runs: [string, string[]][] = [
        ['log stats', [cli, 'log', 'stats', bomb.path, '--no-cache']],
        ['log export', [cli, 'log', 'export', bomb.path, '--jsonl', '--out', join(dir, 'out.jsonl')]],
        ['viewer', ['--import', 'tsx', join(root, 'bench', 'bomb-viewer.ts'), bomb.path]],
      ];
      for (const [name, args] of runs) {
        const m = measured(args);
        console.log(`  ${name.padEnd(10)} exit ${m.code}, peak ${m.peakMb.toFixed(0)} MB, ${m.seconds.toFixed(2)} s\n      ${m.said}`);
      }
      if (!keep) rmSync(bomb.path);
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept in ${dir}`);
  }
}

void main();
