// `agentjet debug-task --config C --task-id ID`: the shell side of "Debug this task". Writes the
// derived config restricted to that task beside the run (core/debugTask/prepare.ts), then starts
// AgentJet's launcher on it with the debug backbone (the same plan and preflight as F5, under the
// launch's owner: SIGINT, SIGTERM and SIGHUP end the whole launch), or only prints what it would
// run with --prepare-only.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { debugTaskDir, prepareDebugTask, readerInfo } from '../core/debugTask/prepare';
import { fileProblem } from '../core/debugTask/dataset';
import { resolveAttributes } from '../core/launch/attributes';
import { commandLine, planLaunch, preflightLaunch } from '../core/launch/lifecycle';
import { LauncherRun, signalExitCode } from '../core/launch/launcherRun';
import { resolveInterpreter } from '../core/process/resolveInterpreter';
import { t } from '../core/l10n';
import { readFileSync } from 'node:fs';

function help(): string {
  return t(
    "Usage: agentjet debug-task --config CONFIG --task-id ID [options]\n\nRuns AgentJet's debug backbone on one task: CONFIG (a run's yaml_backup.yaml or your config) is copied\ninto a derived config whose task reader holds only that task (JSONL and Hugging Face readers), next\nto the run; your files are not changed.\n\nOptions:\n  --run DIR          the run the task came from (default: the folder of CONFIG when it is a yaml_backup.yaml)\n  --cwd DIR          the launcher's working directory (default: the folder holding saved_experiments, else .)\n  --num-repeat N     rollouts of the task (default 1)\n  --python PATH      interpreter (default: .venv/venv in the folder, else python3)\n  --prepare-only     write the derived config and print the command, start nothing\n  --json             print the result as JSON\n",
  );
}

export async function runDebugTask(
  args: string[],
  write: (s: string) => void = (s) => process.stdout.write(s),
  writeErr: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  const parsed = commandArgs(
    'debug-task',
    args,
    {
      config: { type: 'string' },
      'task-id': { type: 'string' },
      run: { type: 'string' },
      cwd: { type: 'string' },
      'num-repeat': { type: 'string' },
      python: { type: 'string' },
      'prepare-only': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    help,
    write,
    writeErr,
  );
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length) {
    writeErr(t("agentjet debug-task: unknown option '{0}'", parsed.positionals[0]!) + '\n');
    return 2;
  }
  // Option values by their flag ('--config'), flags set by name ('--json').
  const o: Record<string, string> = {};
  const flags = new Set<string>();
  for (const [k, v] of Object.entries(parsed.values)) {
    if (typeof v === 'string') o[`--${k}`] = v;
    else if (v === true) flags.add(`--${k}`);
  }
  if (!o['--config'] || o['--task-id'] === undefined) {
    writeErr(t('agentjet debug-task: --config and --task-id are required') + '\n');
    return 2;
  }
  const config = resolve(o['--config']);
  const numRepeat = o['--num-repeat'] === undefined ? 1 : Number(o['--num-repeat']);
  if (!Number.isInteger(numRepeat) || numRepeat < 1) {
    writeErr(t('agentjet debug-task: --num-repeat must be a whole number of at least 1') + '\n');
    return 2;
  }
  const run = o['--run'] ? resolve(o['--run']) : /[\\/]yaml_backup\.ya?ml$/.test(config) ? dirname(config) : undefined;
  // A run lives in <cwd>/saved_experiments/<name>: the launcher ran from <cwd>.
  const cwd = o['--cwd']
    ? resolve(o['--cwd'])
    : run && /[\\/](saved_experiments|launcher_record)$/.test(dirname(run))
      ? dirname(dirname(run))
      : process.cwd();
  if (!existsSync(config)) {
    writeErr(t('agentjet debug-task: {0} does not exist', config) + '\n');
    return 2;
  }
  // A FIFO or a device as the config would block the read or never end.
  const bad = fileProblem(config);
  if (bad) {
    writeErr(`agentjet debug-task: ${bad}\n`);
    return 2;
  }
  const python = o['--python'] ?? resolveInterpreter({ folder: cwd }, existsSync).path;
  const info = readerInfo(readFileSync(config, 'utf8'));
  if (!info.selectable) {
    writeErr(`agentjet debug-task: ${info.why}\n`);
    return 1;
  }
  const prepared = await prepareDebugTask({
    sourceConfig: config,
    cwd,
    taskId: o['--task-id'],
    numRepeat,
    outDir: debugTaskDir(run, cwd),
    python,
    sourceRun: run,
  });
  if (!prepared.ok) {
    writeErr(`agentjet debug-task: ${prepared.message}\n`);
    return 1;
  }
  const r = resolveAttributes({ config: prepared.config, cwd, python, backbone: 'debug', noDebug: true });
  const planned = await planLaunch(r, { lint: false });
  if (!planned.ok) {
    writeErr(`agentjet debug-task: ${planned.refusal.message}\n`);
    return 1;
  }
  const pre = flags.has('--prepare-only') ? undefined : await preflightLaunch(planned.plan, false);
  if (pre && !pre.ok) {
    writeErr(`agentjet debug-task: ${pre.refusal.message}\n`);
    return 1;
  }
  const cmd = pre?.ok
    ? commandLine(planned.plan, pre.target)
    : { command: python, args: ['-m', 'ajet.launcher', '--backbone', 'debug', '--conf', prepared.config] };
  if (flags.has('--json'))
    write(
      `${JSON.stringify({ config: prepared.config, taskFile: prepared.taskFile, link: prepared.link, cwd, command: [cmd.command, ...cmd.args] })}\n`,
    );
  else
    write(
      t('Derived config: {0}\nTask file: {1}\nCommand: {2}\n', prepared.config, prepared.taskFile, [cmd.command, ...cmd.args].join(' ')),
    );
  if (flags.has('--prepare-only') || !pre?.ok) return 0;
  return runLaunch(
    new LauncherRun(
      { launch: r, via: 'debug-task', lint: false, prepared: { plan: planned.plan, pre } },
      {
        output: (text, stream) => (stream === 'stderr' ? writeErr : write)(text),
        refused: (m) => writeErr(`agentjet debug-task: ${m}\n`),
        spawnError: (e, c) => writeErr(`agentjet debug-task: ${c}: ${e.message}\n`),
        recordError: (m) => writeErr(`agentjet debug-task: ${m}\n`),
      },
    ),
  );
}

/**
 * Runs the launch under its owner (core/launch/owner.ts) and ends it, whole, when this process is
 * asked to end (Ctrl+C, `kill`, the terminal closing: SIGINT, SIGTERM, SIGHUP); its watchdog ends
 * it when this process is killed outright. Resolves with the launcher's exit code, or, when a signal
 * ended it, the shell's code for that signal (128 + its number: SIGINT 130, SIGTERM 143, SIGHUP 129).
 */
export async function runLaunch(run: LauncherRun, signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']): Promise<number> {
  let received: NodeJS.Signals | undefined;
  const onSignal = (s: NodeJS.Signals): void => {
    received ??= s;
    void run.stop();
  };
  for (const s of signals) process.on(s, onSignal);
  try {
    const end = await run.start();
    return received ? signalExitCode(received) : end.exitCode;
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}

export const debugTaskCommand: CliCommand = {
  name: 'debug-task',
  summary: 'run the debug backbone on one task of a run (agentjet debug-task --help)',
  run: (args) => runDebugTask(args),
};
