// npm run bench:ray — how long from a Ray worker announcing its debugger listener to our adapter
// showing the paused frame. The REAL Ray (test Python venv) runs the Ray fixture's stand-in launcher
// with --debug ROLLOUT and AJ_RAY_ROLLOUTS=5: five rollout tasks, each in a fresh worker, each
// pausing at bp("ROLLOUT"). For each: t0 = the worker's .err log write that holds the
// "Waiting for debugger" line (file mtime), t1 = our session-log watcher lists it, t2 = the adapter
// (DebugClient over DAP, attach path) has the stopped event and the stack with the bp line. Then
// it detaches and the next one is taken. Runs in a loopback-only network namespace. Prints figures.
import { statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ensureTestPython } from '../test/harness/python';
import { adapterJs } from '../test/util/debugWorkspace';
import { loopbackOnly, NETNS_ENV, netnsUnavailable, startFixtureRun } from '../test/util/rayLocal';
import { SessionLogWatcher } from '../core/ray/watcher';
import type { PausedWorker } from '../core/ray/types';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import {
  DEFAULT_WORKER_PATTERNS,
  ensureHookDir,
  hookSource,
  rayBreakpointsEnv,
  selectWorkers,
  type ListeningWorker,
} from '../core/ray/breakpoints';
import { lineIn, rayFixture } from '../test/util/rayLocal';

const N = 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function main(): Promise<void> {
  if (!loopbackOnly() && process.env[NETNS_ENV] !== '1') {
    const why = netnsUnavailable();
    if (why) {
      console.log(`bench:ray skipped: ${why}`);
      return;
    }
    ensureTestPython();
    const env = { ...process.env, [NETNS_ENV]: '1' };
    const child = spawn('unshare', ['--net', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" --import tsx "${__filename}"`], {
      env,
      stdio: 'inherit',
    });
    process.exitCode = await new Promise<number>((res) => child.on('close', (c) => res(c ?? 1)));
    return;
  }
  const py = ensureTestPython();
  const run = startFixtureRun(py.python, { tags: 'ROLLOUT', env: { AJ_RAY_ROLLOUTS: String(N) } });
  const rows: { detect: number; attach: number; total: number }[] = [];
  let watcher: SessionLogWatcher | undefined;
  try {
    const dir = (await run.waitOutput(/ray session: (\S+)/))[1]!;
    watcher = new SessionLogWatcher(dir, { intervalMs: 50 }).start();
    const done = new Set<string>();
    while (rows.length < N) {
      const w = await new Promise<PausedWorker>((res) => {
        const pick = (list: readonly PausedWorker[]): boolean => {
          const x = list.find((p) => !done.has(p.id));
          if (x) {
            res(x);
            return true;
          }
          return false;
        };
        if (pick(watcher!.paused)) return;
        const on = (list: PausedWorker[]): void => {
          if (pick(list)) watcher!.off('change', on);
        };
        watcher!.on('change', on);
      });
      const t1 = Date.now();
      done.add(w.id);
      const errLog = readdirSync(join(dir, 'logs')).find((f) => f.startsWith(`worker-${w.workerId}-`) && f.endsWith('.err'));
      const t0 = errLog ? statSync(join(dir, 'logs', errLog)).mtimeMs : t1;
      const dc = new DebugClient('node', adapterJs, 'agentjet');
      await dc.start();
      await dc.initializeRequest({ adapterID: 'agentjet', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      const initialized = dc.waitForEvent('initialized');
      const stoppedP = dc.waitForEvent('stopped', 60_000);
      const attached = dc.attachRequest({ connect: { host: w.host, port: w.port } } as DebugProtocol.AttachRequestArguments);
      await initialized;
      await dc.configurationDoneRequest();
      await attached;
      const stopped = (await stoppedP) as DebugProtocol.StoppedEvent;
      const st = await dc.stackTraceRequest({ threadId: stopped.body.threadId!, startFrame: 0, levels: 20 });
      const frame = st.body.stackFrames.find((f) => f.source?.presentationHint !== 'deemphasize');
      const t2 = Date.now();
      if (frame?.name !== 'rollout') throw new Error(`unexpected frame ${frame?.name}`);
      rows.push({ detect: t1 - t0, attach: t2 - t1, total: t2 - t0 });
      console.log(
        `#${rows.length} ${w.name} pid ${w.pid}: listed ${(t1 - t0).toFixed(0)} ms after the log write, paused frame ${(t2 - t1).toFixed(0)} ms later, total ${(t2 - t0).toFixed(0)} ms`,
      );
      await dc.disconnectRequest({});
      await dc.stop();
    }
    console.log(`bench:ray (real Ray, ${N} workers paused at bp("ROLLOUT"), adapter over DAP):`);
    console.log(`  listener announced -> listed in Paused workers: median ${median(rows.map((r) => r.detect)).toFixed(0)} ms`);
    console.log(
      `  listed -> paused frame with the bp line (attach, initialize, stackTrace): median ${median(rows.map((r) => r.attach)).toFixed(0)} ms`,
    );
    console.log(
      `  listener announced -> paused frame: median ${median(rows.map((r) => r.total)).toFixed(0)} ms (min ${Math.min(...rows.map((r) => r.total)).toFixed(0)}, max ${Math.max(...rows.map((r) => r.total)).toFixed(0)})`,
    );
    await run.waitOutput(/training step done/);
  } finally {
    watcher?.dispose();
    await run.dispose();
  }
  await breakpointsMode(py.python);
}

/** Median step time (ms) the loop program prints: wall clock, and the actors' own CPU time per step. */
interface Step {
  wall: number;
  cpu: number;
}
const stepMs = (out: string): Step => ({
  wall: Number(/step ms: median ([\d.]+)/.exec(out)![1]),
  cpu: Number(/step cpu ms: median ([\d.]+)/.exec(out)![1]),
});
/** Runs repeated `n` times, alternately: median wall and median CPU over the runs. */
const summary = (xs: Step[]): Step => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });

/**
 * Editor-breakpoints mode (rayBreakpoints) on a small CPU loop with 4 rollout actors: the step time
 * with the mode off, with listeners on and nothing attached, and with the 4 workers attached and a
 * breakpoint (never hit during the steps) in the loop's own file; then the time from the worker
 * reaching the breakpoint line (the time it stamps just before) to the paused frame over DAP.
 */
async function breakpointsMode(python: string): Promise<void> {
  const loopPy = join(rayFixture, 'train', 'loop.py');
  const hitLine = lineIn(readFileSync(loopPy, 'utf8'), '# bench: hit');
  const hookEnv = rayBreakpointsEnv(ensureHookDir(await hookSource()), { PYTHONPATH: rayFixture });
  const base = { AJ_RAY_PROGRAM: 'loop', AJ_LOOP_STEPS: '8' };
  const once = async (env: Record<string, string>): Promise<Step> => {
    const r = startFixtureRun(python, { env: { ...base, ...env } });
    try {
      await r.waitOutput(/training step done/, 300_000);
      return stepMs(r.output());
    } finally {
      await r.dispose();
    }
  };
  // Alternate off/on runs (the machine's load changes over minutes), then take medians.
  const reps = Number(process.env.AJ_BENCH_REPEAT ?? '3');
  const offRuns: Step[] = [];
  const onRuns: Step[] = [];
  for (let i = 0; i < reps; i++) {
    offRuns.push(await once({}));
    onRuns.push(await once(hookEnv));
  }
  const off = summary(offRuns);
  const listening = summary(onRuns);
  // Attached: the 4 workers as child sessions with a breakpoint in loop.py, then one hit.
  const goDir = mkdtempSync('/tmp/ajr-go-');
  const go = join(goDir, 'go');
  const r = startFixtureRun(python, { env: { ...base, ...hookEnv, AJ_RAY_GO: go, AJ_RAY_HIT: '1' } });
  const clients: DebugClient[] = [];
  let attachedMs: Step = { wall: NaN, cpu: NaN };
  let hitToFrame = NaN;
  let w: SessionLogWatcher | undefined;
  try {
    const dir = (await r.waitOutput(/ray session: (\S+)/))[1]!;
    w = new SessionLogWatcher(dir, { intervalMs: 50 }).start();
    const chosen = await new Promise<ListeningWorker[]>((res) => {
      const check = (): boolean => {
        const sel = selectWorkers(w!.hookListeners, DEFAULT_WORKER_PATTERNS, 8, 0, new Set()).attach;
        if (sel.length >= 4) res(sel);
        return sel.length >= 4;
      };
      if (!check()) w!.on('listeners', check);
    });
    for (const x of chosen) {
      const dc = new DebugClient('node', adapterJs, 'agentjet');
      dc.defaultTimeout = 60_000;
      await dc.start();
      await dc.initializeRequest({ adapterID: 'agentjet', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      const initialized = dc.waitForEvent('initialized');
      // The announced port is the worker's doorbell: the adapter rings it, then attaches to debugpy.
      const attached = dc.attachRequest({
        connect: { host: x.host, port: x.port },
        rayDoorbell: true,
      } as DebugProtocol.AttachRequestArguments);
      await initialized;
      await dc.setBreakpointsRequest({ source: { path: loopPy }, breakpoints: [{ line: hitLine }] });
      await dc.configurationDoneRequest();
      await attached;
      clients.push(dc);
    }
    const stops = clients.map((dc) => dc.waitForEvent('stopped', 300_000) as Promise<DebugProtocol.StoppedEvent>);
    writeFileSync(go, 'go');
    const first = await Promise.race(stops.map((p, i) => p.then((ev) => ({ ev, i }))));
    const dc = clients[first.i]!;
    const st = await dc.stackTraceRequest({ threadId: first.ev.body.threadId!, startFrame: 0, levels: 20 });
    const t2 = Date.now();
    const frame = st.body.stackFrames[0]!;
    if (frame.line !== hitLine) throw new Error(`stopped at ${frame.source?.path}:${frame.line}`);
    const stamp = Number((await dc.evaluateRequest({ expression: 'stamp', frameId: frame.id, context: 'watch' })).body.result);
    hitToFrame = t2 - stamp * 1000;
    attachedMs = stepMs(r.output());
    await dc.continueRequest({ threadId: first.ev.body.threadId! });
    await r.waitOutput(/training step done/, 120_000);
  } finally {
    for (const dc of clients) await dc.stop().catch(() => undefined);
    w?.dispose();
    await r.dispose();
    rmSync(goDir, { recursive: true, force: true });
  }
  const row = (label: string, x: Step): string =>
    `  ${label.padEnd(44)}wall ${x.wall.toFixed(0)} ms/step (${(x.wall / off.wall).toFixed(2)}x), CPU ${x.cpu.toFixed(0)} ms/step (${(x.cpu / off.cpu).toFixed(2)}x)`;
  console.log(
    `bench:ray editor breakpoints (rayBreakpoints), real Ray, 4 rollout actors, CPU loop, median of 8 steps; off/on: median of ${reps} alternated runs each:`,
  );
  console.log(
    `    off runs: ${offRuns.map((x) => `${x.wall}/${x.cpu}`).join(', ')} (wall/CPU ms); on runs: ${onRuns.map((x) => `${x.wall}/${x.cpu}`).join(', ')}`,
  );
  console.log(row('mode off:', off));
  console.log(`${row('doorbells on, nothing attached:', listening)}; target <= 1.3x`);
  console.log(row('4 sessions attached, breakpoint not hit:', attachedMs));
  console.log(`  breakpoint hit -> paused frame over DAP:    ${hitToFrame.toFixed(0)} ms`);
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
