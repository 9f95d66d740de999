// A launch that holds, for the stop tests (test/protocol/launch-stop*.test.ts): a config whose
// workflow, in the launcher's child process with the stand-in backbone's AJET_STANDIN_CHILD_PROCESS=1,
// writes the time it started and then holds; what of a launch is still alive; what `agentjet runs`
// says of it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { DemoCopy } from './debugWorkspace';
import { repoRoot } from './paths';
import { waitFor } from './poll';
import { descendants, listProcesses, type ProcInfo } from '../../core/launch/processes';

const cliJs = join(repoRoot, 'dist', 'cli.js');

/**
 * Python lines (at 8 spaces) that leave the launch's trees and groups the way workflows do: a
 * daemon (fork, setsid, fork, then exec; its stdio on /dev/null) and a `setsid` child; each writes
 * its pid to `<prefix>.daemon` / `<prefix>.setsid` (written whole, then renamed) and names `marker`
 * on its command line.
 */
export function daemonLines(prefix: string, marker: string): string[] {
  const p = JSON.stringify(prefix);
  return [
    '        import subprocess, sys',
    `        _c = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600) # ${marker}-setsid"], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
    `        open(${p} + ".setsid.tmp", "w").write(str(_c.pid)); os.replace(${p} + ".setsid.tmp", ${p} + ".setsid")`,
    '        _f = os.fork()',
    '        if _f == 0:',
    '            os.setsid()',
    '            if os.fork() == 0:',
    '                _n = os.open(os.devnull, os.O_RDWR)',
    '                for _i in (0, 1, 2): os.dup2(_n, _i)',
    `                open(${p} + ".daemon.tmp", "w").write(str(os.getpid())); os.replace(${p} + ".daemon.tmp", ${p} + ".daemon")`,
    `                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600) # ${marker}-daemon"])`,
    '            os._exit(0)',
    '        os.waitpid(_f, 0)',
  ];
}

/**
 * A config whose workflow (in the launcher's child process) appends its start time to `<marker>.started`, then holds;
 * with `daemons`, it first leaves a daemon and a setsid child behind (daemonLines, pids in `<marker>.daemon`, `<marker>.setsid`).
 */
export function holdConfig(
  w: DemoCopy,
  marker: string,
  holdSeconds = 60,
  opts: { daemons?: boolean } = {},
): { config: string; workflow: string; started: string } {
  const workflow = join(w.dir, `${marker}.py`);
  const started = join(w.dir, `${marker}.started`);
  writeFileSync(
    workflow,
    [
      'import os, time',
      'from ajet import Workflow',
      'from ajet._standin.api import WorkflowOutput',
      'class Hold(Workflow):',
      '    async def execute(self, workflow_task, tuner):',
      ...(opts.daemons ? daemonLines(join(w.dir, marker), marker) : []),
      `        with open(${JSON.stringify(started)}, "a") as f:`,
      '            f.write("%f %d\\n" % (time.time(), os.getpid()))',
      '        print("hold workflow running", flush=True)',
      `        time.sleep(${holdSeconds})  # HOLD`,
      '        return WorkflowOutput(reward=1.0, is_success=True)',
      '',
    ].join('\n'),
  );
  const config = join(w.dir, `${marker}.yaml`);
  writeFileSync(
    config,
    `ajet:\n  experiment_name: ${marker}\n  task_reader:\n    type: jsonl_dataset_file\n    jsonl_dataset_file:\n      training:\n        file_path: data/train.jsonl\n  rollout:\n    user_workflow: ${marker}.py->Hold\n  debug:\n    debug_first_n_tasks: 1\n    debug_vllm_port: ${w.port}\n`,
  );
  return { config, workflow, started };
}

/** Start times (ms) the workflow wrote, truncated as Date.now() is (rounding could put a start before a Stop 1 ms after it). */
export function startsOf(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => Math.floor(Number(l.split(' ')[0]) * 1000));
}

/**
 * Workflow starts that break "a Stop starts nothing after it". A signal takes a moment to land, so
 * a workflow process that already ran when the Stop was sent may still reach its first line before
 * it dies; that is not a start after the Stop. Late are: a start after the Stop was answered (its
 * signals had gone out), and a start after the Stop was sent by a process that did not exist then
 * (`atStop`, a process list taken as it was sent).
 */
export function lateStarts(file: string, stopMs: number, answeredMs: number, atStop: readonly ProcInfo[]): string[] {
  const existing = new Set(atStop.map((p) => p.pid));
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ ms: Math.floor(Number(l.split(' ')[0]) * 1000), pid: Number(l.split(' ')[1]) }))
    .filter((s) => s.ms > answeredMs || (s.ms > stopMs && !existing.has(s.pid)))
    .map(
      (s) =>
        `pid ${s.pid} at stop${s.ms >= stopMs ? '+' : ''}${s.ms - stopMs} ms (answered at +${answeredMs - stopMs} ms, ${existing.has(s.pid) ? 'running' : 'not running'} at the Stop)`,
    );
}

/** `agentjet runs <dir> --format json`: the row of experiment `name` (or the first whose name `name` accepts), if any. */
export function runRow(
  dir: string,
  name: string | ((experiment: string) => boolean),
): { status: string; evidence: { text: string }[] } | undefined {
  const out = execFileSync(process.execPath, [cliJs, 'runs', dir, '--format', 'json', '--lang', 'en'], { encoding: 'utf8' });
  const rows = (JSON.parse(out) as { runs: { experiment: string; status: string; evidence: { text: string }[] }[] }).runs;
  const accept = typeof name === 'string' ? (e: string) => e === name : name;
  return rows.find((r) => accept(r.experiment));
}

/**
 * What of a launch lives: descendants of `root` (where the launch's owner runs) and anything whose
 * command line names the workspace or `marker`, minus the spared groups (companions) and the
 * processes in `baseline` (this test's own helpers, such as tsx's esbuild service).
 */
export async function launchAlive(
  w: DemoCopy,
  marker: string,
  spare: ReadonlySet<number>,
  baseline: ReadonlySet<number>,
  root = process.pid,
): Promise<ProcInfo[]> {
  const procs = await listProcesses();
  const tree = descendants(root, procs).filter((p) => p.pid !== root && p.pid !== process.pid);
  const named = procs.filter((p) => (p.args.includes(w.dir) || p.args.includes(marker)) && p.pid !== process.pid);
  return [...new Map([...tree, ...named].map((p) => [p.pid, p])).values()].filter(
    (p) => !spare.has(p.pgid) && !baseline.has(p.pid) && !/\bps -eo\b/.test(p.args),
  );
}

/** Waits until nothing of the launch is alive on three polls in a row (a launcher that starts late shows up between them). */
export async function waitQuiet(alive: () => Promise<ProcInfo[]>, ms = 10_000): Promise<void> {
  let calm = 0;
  let last: ProcInfo[] = [];
  await waitFor(
    async () => {
      last = await alive();
      calm = last.length ? 0 : calm + 1;
      return calm >= 3;
    },
    () => `nothing of the launch to be alive; left: ${JSON.stringify(last.map((p) => `${p.pid} ${p.args.slice(0, 120)}`))}`,
    ms,
    100,
  );
}

/** SIGKILLs what a test's cleanup found; one that ended between the listing and the kill is not an error. */
export function killLeft(procs: readonly { pid: number }[]): void {
  for (const p of procs)
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
}
