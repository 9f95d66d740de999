// npm run bench:bombs — zlib "decompression bombs" (a few MB on disk, gigabytes inflated) through
// `agentjet log stats`, `agentjet log export` and the viewer's reading (bench/bomb-viewer.ts):
// peak resident memory (from /usr/bin/time -v), time, and what each says about the bomb. The logs
// are generated here (test/gen/bomb.ts), never committed. Prints figures; asserts nothing.
// Baseline, measured in the same run on the same file: the naive reader (bench/naive-log.mjs: whole
// file, zlib.inflateSync without a limit, JSON.parse), stopped by this bench once it is resident above
// --cap-gb (default 4) so that it cannot take the machine down; its row says when it was stopped.
//   node --import tsx bench/bombs.ts [--gb 2,5] [--cap-gb 4] [--keep]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBombLog } from '../test/gen/bomb';
import { printBenchTable, type BenchRow } from './table';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const SIZES = arg('gb', '2,5').split(',').map(Number);
const keep = process.argv.includes('--keep');
const root = join(__dirname, '..');
const TIME = '/usr/bin/time';
const CAP_MB = Number(arg('cap-gb', '4')) * 1024;

/** Resident MB of a process's children (the node under /usr/bin/time), from /proc (Linux). */
function childRssMb(pid: number): number {
  try {
    let kb = 0;
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean))
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${c}/status`, 'utf8'))?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

interface Measured {
  code: number | null;
  peakMb: number;
  seconds: number;
  said: string;
  stopped: boolean;
}

/** Runs node with args under /usr/bin/time -v; stops it (SIGKILL) once it is resident above CAP_MB. */
function measured(args: string[]): Promise<Measured> {
  const child = spawn(TIME, ['-v', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-1 << 20)));
  child.stderr.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-1 << 20)));
  let stopped = false;
  const watch = setInterval(() => {
    if (childRssMb(child.pid!) > CAP_MB) {
      stopped = true;
      const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').split(' ').filter(Boolean);
      for (const k of kids) process.kill(Number(k), 'SIGKILL');
    }
  }, 100);
  return new Promise((res) => {
    child.on('close', (code) => {
      clearInterval(watch);
      const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(out);
      const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(out);
      const seconds = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
      const said = out
        .split('\n')
        .filter((l) => /too large|exported|records open|corrupt records:|Error|Cannot/.test(l))
        .map((l) => l.trim().slice(0, 160))
        .slice(0, 3)
        .join('; ');
      res({ code, peakMb: peak ? Number(peak[1]) / 1024 : NaN, seconds, said, stopped });
    });
  });
}

const show = (m: Measured) =>
  `${m.stopped ? `stopped by the bench above ${(CAP_MB / 1024).toFixed(0)} GB` : `exit ${m.code}`}, peak ${m.peakMb.toFixed(0)} MB, ${m.seconds.toFixed(2)} s`;

async function main(): Promise<void> {
  if (!existsSync(TIME)) {
    console.log(`${TIME} is needed (Debian: apt-get install time)`);
    return;
  }
  const cli = join(root, 'dist', 'cli.js');
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-bombs-'));
  const table: BenchRow[] = [];
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
      const naive = await measured([join(root, 'bench', 'naive-log.mjs'), bomb.path]);
      console.log(`  ${'naive'.padEnd(10)} ${show(naive)}\n      ${naive.said}`);
      for (const [name, args] of runs) {
        const m = await measured(args);
        console.log(`  ${name.padEnd(10)} ${show(m)}\n      ${m.said}`);
        table.push({
          what: `${gb} GB bomb: ${name}`,
          ours: show(m),
          baseline: show(naive),
          how: 'bench/naive-log.mjs on the same file (whole file, zlib.inflateSync without a limit, JSON.parse)',
        });
      }
      if (!keep) rmSync(bomb.path);
    }
    console.log('');
    printBenchTable(table);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept in ${dir}`);
  }
}

void main();
