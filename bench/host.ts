// npm run bench:host: the event loop's longest delay (perf_hooks.monitorEventLoopDelay) while the
// code the extension host runs works on large inputs, one workload at a time in this process (the
// same core calls the host's features make, with the host's settings):
//   lint      the language-model lint tool (core/agents) on a config, with an interpreter that
//             takes 2 s to start (a shim on a slow disk)
//   ray       the Paused workers watcher (core/ray/watcher) over 1,000 worker logs, growing
//   tokens    a 1 GB token log as the viewer reads it: index, summaries, token counts (core/logs),
//             saved to the facts cache; then opened again, from that cache
//   files     20,000 files: the lint tool over their folder, and the Runs view's discovery
//   sweep     the inline debug session's 2-s sweep (core/launch/owner noteGroups), 10 rounds
// and 3 s of nothing first and last, the noise floor of a loaded machine.
// The target is under 50 ms for each. On Linux each longest delay is split, from the thread's
// schedstat, into the time the loop's own work ran on a CPU and the time the thread waited for a
// CPU (a loaded machine's share), and the longest turn the loop's own work held a CPU is printed
// beside it: the part of a delay this code can remove. Prints figures, asserts nothing. Inputs go to bench-output/
// (the 1 GB log is kept for the next run). Works on older trees too (it feature-tests what it
// calls), so `git worktree add` of main plus this file gives the "before" column.
//   node --import tsx bench/host.ts [--only lint,ray,tokens,files,sweep] [--mb 1024]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { callTool, type AgentToolEnv } from '../core/agents/tools';
import { SessionLogWatcher } from '../core/ray/watcher';
import { LogSession } from '../core/logs/session';
import { FactsCache } from '../core/logs/cache';
import * as pool from '../core/logs/pool';
import { nodeFs, mapLimit } from '../core/fs/seam';
import { RunsModel } from '../core/runs/model';
import { LaunchOwner } from '../core/launch/owner';
import { writeRolloutLog } from '../test/gen/rollout';
import { repoRoot } from '../test/util/paths';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const only = new Set((arg('only') ?? 'lint,ray,tokens,files,sweep').split(','));
const MB = Number(arg('mb') ?? 1024);
const PYTHON = process.env.AGENTJET_TEST_PYTHON ?? '/usr/bin/python3';
const out = join(repoRoot, 'bench-output');
const scratch = join(tmpdir(), `aj-bench-host-${process.pid}`);

// The host's thread cap where this tree has one (agentjet.logs.hostThreads, automatic).
const capped = pool as { setThreadCap?: (n: number | undefined) => void; hostThreadsDefault?: () => number };
const hostThreads = capped.hostThreadsDefault?.();
if (hostThreads !== undefined) capped.setThreadCap?.(hostThreads);

interface Row {
  workload: string;
  maxMs: number;
  /** Linux: the longest gap between two ticks of a 2-ms timer, what ran and what waited in it, the most run in any gap. */
  cpu?: { gapMs: number; ranMs: number; waitedMs: number; maxRanMs: number };
  p99Ms: number;
  wallMs: number;
  note: string;
}
const rows: Row[] = [];

// This thread's time on a CPU and waiting for one, in ns (Linux; a tiny procfs read, bench only).
const SCHEDSTAT = '/proc/thread-self/schedstat';
const schedstat = (): [number, number] | undefined => {
  if (process.platform !== 'linux') return undefined;
  try {
    const [ran, waited] = readFileSync(SCHEDSTAT, 'latin1').split(' ').map(Number);
    return ran !== undefined && waited !== undefined ? [ran, waited] : undefined;
  } catch {
    return undefined;
  }
};

/** Splits the loop's gaps into its own CPU time and its wait for a CPU, tick by tick. */
function cpuSplitter(): { stop: () => Row['cpu'] } {
  let last = performance.now();
  let lastS = schedstat();
  let worst: Row['cpu'];
  let maxRanMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const s = schedstat();
    if (s && lastS) {
      const ranMs = (s[0] - lastS[0]) / 1e6,
        waitedMs = (s[1] - lastS[1]) / 1e6;
      maxRanMs = Math.max(maxRanMs, ranMs);
      if (!worst || now - last > worst.gapMs) worst = { gapMs: now - last, ranMs, waitedMs, maxRanMs: 0 };
    }
    last = now;
    lastS = s;
  }, 2);
  return {
    stop: () => {
      clearInterval(timer);
      return worst && { ...worst, maxRanMs };
    },
  };
}

async function measure(workload: string, work: () => Promise<string>): Promise<void> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  // A timer that keeps the loop turning, so a stall shows up as a late tick.
  const tick = setInterval(() => undefined, 5);
  const split = cpuSplitter();
  h.enable();
  const t0 = performance.now();
  let note: string;
  try {
    note = await work();
  } catch (err) {
    note = `failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  const wallMs = performance.now() - t0;
  // The histogram records a stall when its timer next fires: let it fire before reading.
  await new Promise((r) => setTimeout(r, 50));
  h.disable();
  clearInterval(tick);
  const cpu = split.stop();
  rows.push({ workload, maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, wallMs, note, ...(cpu ? { cpu } : {}) });
  console.log(
    `${workload}: longest delay ${(h.max / 1e6).toFixed(1)} ms (p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms)${cpu ? `, ${cpuText(cpu)}` : ''}, ${(wallMs / 1000).toFixed(1)} s: ${note}`,
  );
}

const cpuText = (c: NonNullable<Row['cpu']>): string =>
  `longest gap ${c.gapMs.toFixed(1)} ms = ${c.ranMs.toFixed(1)} ms on a CPU + ${c.waitedMs.toFixed(1)} ms waiting for one; longest turn on a CPU ${c.maxRanMs.toFixed(1)} ms`;

const CONFIG = (workflow: string) => `ajet:
  project_name: bench
  experiment_name: bench
  task_reader:
    type: jsonl_dataset_file
    jsonl_dataset_file:
      training:
        file_path: data/train.jsonl
  task_judge:
    judge_protocol: pkg.judge->Judge
  rollout:
    user_workflow: ${workflow}
`;

function lintWorkspace(dir: string): void {
  mkdirSync(join(dir, 'pkg'), { recursive: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'data', 'train.jsonl'), '{}\n');
  writeFileSync(join(dir, 'pkg', '__init__.py'), '');
  writeFileSync(join(dir, 'pkg', 'judge.py'), 'class Judge:\n    pass\n');
  writeFileSync(join(dir, 'pkg', 'flow.py'), 'from .judge import Judge\n\nclass Flow(Judge):\n    pass\n');
}

const env = (root: string, python?: string): AgentToolEnv => ({
  roots: [root],
  mayRunPython: python !== undefined,
  python: () => Promise.resolve(python),
  runRoots: () => Promise.resolve([root]),
  factsCacheDir: join(scratch, 'facts'),
  logCacheDir: join(scratch, 'tokenlog'),
});

async function lint(): Promise<void> {
  const ws = join(scratch, 'lint');
  lintWorkspace(ws);
  writeFileSync(join(ws, 'a.yaml'), CONFIG('absent_pkg.flow->Flow'));
  const slow = join(scratch, 'slow-python');
  writeFileSync(slow, `#!/bin/sh\nsleep 2\nexec ${PYTHON} "$@"\n`);
  chmodSync(slow, 0o755);
  await measure('lint tool, slow interpreter', async () => {
    const r = await callTool('agentjet_lint', { path: join(ws, 'a.yaml') }, env(ws, slow));
    const j = JSON.parse(r.text) as { configsChecked: number; errors: number };
    return `${j.configsChecked} config checked, ${j.errors} error(s)`;
  });
}

const WAIT = 'Waiting for debugger to attach (see https://docs.ray.io/en/latest/ray-observability/ray-distributed-debugger.html)...';

async function ray(): Promise<void> {
  const session = join(scratch, 'ray', 'session_2026-01-05_10-00-00_000000_1');
  const logs = join(session, 'logs');
  mkdirSync(logs, { recursive: true });
  const filler = 'INFO worker.py:1 -- a line of a busy worker\n'.repeat(2000);
  const name = (i: number, s: string) => `worker-${(0x1000 + i).toString(16)}-01000000-${i === 0 ? process.pid : 2 ** 22 + 1000 + i}.${s}`;
  for (let i = 0; i < 500; i++)
    for (const s of ['out', 'err']) writeFileSync(join(logs, name(i, s)), `:job_id:01000000\n:task_name:t${i}\n${filler}`);
  await measure('Ray watcher, 1,000 worker logs', async () => {
    const w = new SessionLogWatcher(session);
    const paused = new Promise<void>((resolve) => w.on('change', (p: unknown[]) => p.length && resolve()));
    w.start();
    // While it watches: every log grows, 20 rounds 100 ms apart, then a worker pauses.
    for (let round = 0; round < 20; round++) {
      // Written asynchronously: the bench's own writes must not stall the loop it measures.
      await Promise.all(Array.from({ length: 50 }, (_, k) => appendFile(join(logs, name(k * 10, 'out')), filler)));
      await new Promise((r) => setTimeout(r, 100));
    }
    await appendFile(join(logs, name(0, 'err')), `Ray debugger is listening on 127.0.0.1:40123\n${WAIT}\n`);
    await paused;
    await w.scan();
    w.dispose();
    return 'paused worker found';
  });
}

async function tokens(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const log = join(out, `host-${MB}mb.json.log`);
  if (!existsSync(log) || statSync(log).size < MB * 1024 * 1024) {
    const part = `${log}.part`;
    writeRolloutLog(part, { targetBytes: 8 << 20, seed: 42 });
    const chunk = readFileSync(part);
    rmSync(log, { force: true });
    for (let size = 0; size < MB * 1024 * 1024; size += chunk.length) appendFileSync(log, chunk);
    rmSync(part);
  }
  // The viewer's facts cache (the extension's storage folder), fresh for this run.
  const factsCache = new FactsCache(join(scratch, 'tokenlog-cache'));
  const open = async () => {
    const s = new LogSession(log, { siblings: false, cacheSize: 2, factsCache });
    await s.update();
    await s.summarize();
    await s.computeFacts({});
    return s;
  };
  await measure(`token log, ${MB} MB`, async () => {
    const s = await open();
    return `${s.count} records, ${pool.defaultWorkers()} worker thread(s), facts cache ${s.cacheOutcomes.join(', ')}`;
  });
  await measure(`token log, ${MB} MB, opened again`, async () => {
    const s = await open();
    return `${s.count} records, facts cache ${s.cacheOutcomes.join(', ')}`;
  });
}

async function files(): Promise<void> {
  const ws = join(scratch, 'files');
  lintWorkspace(ws);
  const exp = join(ws, 'saved_experiments');
  for (let d = 0; d < 200; d++) {
    const sub = join(exp, `exp_${d}`);
    mkdirSync(join(sub, '2026_01_05_10_00', 'host', 'rollout'), { recursive: true });
    writeFileSync(join(sub, 'yaml_backup.yaml'), CONFIG('pkg.flow->Flow'));
    for (let f = 0; f < 99; f++) writeFileSync(join(sub, '2026_01_05_10_00', 'host', `file${f}.txt`), `${d}/${f}\n`);
  }
  await measure('20,000 files: lint tool over the folder, Runs view discovery', async () => {
    const r = await callTool('agentjet_lint', { path: exp }, env(ws, PYTHON));
    const j = JSON.parse(r.text) as { configsChecked: number };
    const model = new RunsModel(nodeFs(), { localHost: hostname() });
    model.setRoots([{ path: exp, source: 'saved_experiments' }]);
    const entries = await model.experiments();
    await mapLimit(entries, 16, (e) => model.info(e));
    return `${j.configsChecked} configs linted, ${entries.length} experiments listed`;
  });
}

async function sweep(): Promise<void> {
  // A launch with a child and a companion record beside it, swept 10 times as the debug session does.
  const cwd = join(scratch, 'sweep');
  const comp = join(cwd, 'saved_experiments', 'companion_logs', 'companion');
  mkdirSync(comp, { recursive: true });
  writeFileSync(join(comp, `external_vllm_server.abc.${hostname()}.pgid`), `${process.pid}\n`);
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  const owner = new LaunchOwner({});
  owner.configure({ cwd, env: process.env });
  owner.adopt(child.pid!, true);
  await measure('debug session sweep, 10 rounds', async () => {
    for (let i = 0; i < 10; i++) await owner.noteGroups();
    return 'groups noted';
  });
  await owner.end();
  child.kill('SIGKILL');
}

async function main(): Promise<void> {
  mkdirSync(scratch, { recursive: true });
  try {
    console.log(`bench:host on ${process.version}, host worker threads: ${hostThreads ?? 'no cap in this tree'}`);
    const idle = () =>
      measure('idle, 3 s (the noise floor of this machine now)', () => new Promise((r) => setTimeout(() => r('nothing running'), 3000)));
    await idle();
    if (only.has('lint')) await lint();
    if (only.has('ray')) await ray();
    if (only.has('tokens')) await tokens();
    if (only.has('files')) await files();
    if (only.has('sweep')) await sweep();
    await idle();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log('\n| workload | longest event-loop delay | p99 | longest gap: on a CPU + waiting for one | longest turn on a CPU | wall |');
  console.log('|---|---|---|---|---|---|');
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  for (const r of rows)
    console.log(
      `| ${r.workload} | ${ms(r.maxMs)}${r.maxMs < 50 ? '' : ' (over 50 ms)'} | ${ms(r.p99Ms)} | ${r.cpu ? `${ms(r.cpu.gapMs)}: ${ms(r.cpu.ranMs)} + ${ms(r.cpu.waitedMs)}` : 'n/a'} | ${r.cpu ? ms(r.cpu.maxRanMs) : 'n/a'} | ${(r.wallMs / 1000).toFixed(1)} s |`,
    );
}

void main();
