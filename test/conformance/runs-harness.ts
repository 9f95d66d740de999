// Shared by the runs conformance tests: runs test/conformance/drivers/runs_driver.py (the real
// experiment preparation + beast-logger registration) in a temp workspace, and reads what core/runs
// and the bundled CLI (`dist/cli.js runs --format json`) report about the result.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPython } from '../harness/python';
import { repoRoot } from '../util/paths';
import { upstream } from '../util/upstream';
import { collectRuns, type RunRow } from '../../cli/runs';
import type { LayoutVersion } from '../../core/agentjet';

export const TREE: Record<'agentjet' | 'agentjet-0.0.4' | 'astuner-2025-12' | 'astuner-2025-11', Parameters<typeof upstream>[0]> = {
  agentjet: 'agentjet-d20cce0',
  'agentjet-0.0.4': 'agentjet-c68c154',
  'astuner-2025-12': 'astuner-f9fab4f',
  'astuner-2025-11': 'astuner-61e9359',
};

export interface DriverArgs {
  version: Exclude<LayoutVersion, 'astune'>;
  config?: string;
  expDir?: string;
  experiment?: string;
  steps?: number;
  note?: boolean;
  end: 'clean' | 'crash' | 'sigkill' | 'hold';
  sessionTime?: string;
  /** Seconds between steps. */
  stepDelay?: number;
  /** With end 'hold': go on logging a step every stepDelay until stdin closes. */
  keepStepping?: boolean;
}

export interface DriverRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  pid: number;
  startMs: number;
  endMs: number;
  argv: string[];
}

let debSite: string | undefined;
/** Debian's omegaconf (+ antlr4), which pip cannot install here, when the venv lacks it. */
function extraPythonPath(python: string): string[] {
  if (spawnSync(python, ['-c', 'import omegaconf'], { stdio: 'ignore' }).status === 0) return [];
  if (!debSite) {
    const dir = mkdtempSync(join(tmpdir(), 'aj-debsite-'));
    debSite = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    for (const m of ['omegaconf', 'antlr4']) {
      const src = join('/usr/lib/python3/dist-packages', m);
      if (existsSync(src)) symlinkSync(src, join(dir, m));
    }
  }
  return [debSite];
}

export const driverPath = join(repoRoot, 'test', 'conformance', 'drivers', 'runs_driver.py');

function driverArgv(args: DriverArgs): { python: string; argv: string[]; env: NodeJS.ProcessEnv } {
  const { python } = ensureTestPython();
  const json = JSON.stringify({ ...args, tree: upstream(TREE[args.version]), beast: upstream('beast-logger-6ba1ca5') });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOGURU_COLORIZE: 'NO',
    PYTHONUNBUFFERED: '1',
    PYTHONPATH: extraPythonPath(python).join(':'),
  };
  delete env.PROCESS_LEVEL_WARMUP_INIT_LOGGER;
  delete env.PROCESS_LEVEL_WARMUP_INIT;
  return { python, argv: [driverPath, json], env };
}

/** Runs the driver to its end in `cwd`. */
export function runDriver(cwd: string, args: DriverArgs): Promise<DriverRun> {
  const child = startDriver(cwd, args);
  return child.done;
}

export interface HeldDriver {
  child: ChildProcess;
  done: Promise<DriverRun>;
  ready: Promise<void>;
  output(): string;
}

/** Starts the driver; `ready` resolves when it has registered its logger (and holds, for end 'hold'). */
export function startDriver(cwd: string, args: DriverArgs): HeldDriver {
  const { python, argv, env } = driverArgv(args);
  const startMs = Date.now();
  const child = spawn(python, argv, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => {
    readyResolve = r;
  });
  const on = (b: Buffer) => {
    output += b.toString('utf8');
    if (output.includes('DRIVER pid=')) readyResolve();
  };
  child.stdout!.on('data', on);
  child.stderr!.on('data', on);
  const done = new Promise<DriverRun>((resolve) =>
    child.on('close', (code, signal) => {
      readyResolve();
      resolve({ code, signal, output, pid: child.pid!, startMs, endMs: Date.now(), argv: [python, ...argv] });
    }),
  );
  if (args.end !== 'hold') child.stdin!.end();
  return { child, done, ready, output: () => output };
}

export function workspace(): { path: string; dispose(): void } {
  const path = mkdtempSync(join(tmpdir(), 'aj-conf-runs-'));
  mkdirSync(join(path, 'configs'));
  return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
}

let cliJs: string | undefined;
/** dist/cli.js when built (npm test builds first), else a bundle of cli/main.ts made here once. */
export function cliPath(): string {
  if (cliJs) return cliJs;
  const dist = join(repoRoot, 'dist', 'cli.js');
  if (existsSync(dist) && !process.env.AGENTJET_CONFORMANCE_REBUNDLE) return (cliJs = dist);
  const out = join(mkdtempSync(join(tmpdir(), 'aj-cli-')), 'cli.js');
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      `require('esbuild').buildSync({entryPoints:[${JSON.stringify(join(repoRoot, 'cli', 'main.ts'))}],bundle:true,platform:'node',format:'cjs',loader:{'.py':'text'},outfile:${JSON.stringify(out)},logLevel:'error'})`,
    ],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`bundling the CLI failed: ${r.stderr}`);
  return (cliJs = out);
}

/** `agentjet runs <ws> --format json`, from the bundled CLI. */
export function cliRuns(ws: string): RunRow[] {
  const r = spawnSync(process.execPath, [cliPath(), 'runs', ws, '--format', 'json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`agentjet runs exited ${r.status}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { runs: RunRow[] }).runs;
}

/** The same through core (in-process). */
export async function coreRuns(ws: string): Promise<RunRow[]> {
  return (await collectRuns([ws])).rows;
}

/** Status and deciding evidence kinds of each run, the same from core and the CLI (asserted by the caller). */
export function summary(rows: readonly RunRow[]): Record<string, { status: string; evidence: string[] }> {
  return Object.fromEntries(rows.map((r) => [r.experiment, { status: r.status, evidence: r.evidence.map((e) => e.kind) }]));
}
