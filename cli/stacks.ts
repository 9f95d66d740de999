// `agentjet stacks EXP_DIR|--pid PID [--format json]`: where a run waits, for a terminal.
import { collectStacks, DEFAULT_DEADLINE_MS, DEFAULT_MAX_PROCESSES } from '../core/stacks/collect';
import { formatStackReport } from '../core/stacks/format';
import { runOfFolder } from '../core/stacks/target';
import { interpretersOf } from '../core/stacks/pyspy';
import { formatLocalTime, statusLabel } from '../core/runs/format';
import { latestStackReport, saveStackReport } from '../core/stacks/saved';
import { latestStackDumps } from '../core/launch/stackDumps';
import type { StackReport } from '../core/stacks/types';
import { syncNodeFs } from '../core/fs/seam';
import { resolve } from 'node:path';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { t } from '../core/l10n';

const help = () =>
  t(
    `Usage: agentjet stacks EXP_DIR | --pid PID [options]

Prints the Python stacks of every thread of every process of a running run: the process its lock
names and its descendants, and the Ray workers on this node of the run's Ray session (found from
its processes: the logs its driver keeps open, the raylet it started), identical stacks grouped
("8 processes wait in all_gather"), each frame as file:line. A run's report is kept beside it
(EXP_DIR/.agentjet-vscode/stacks/), where --last reads it again.

  EXP_DIR           an experiment folder (saved_experiments/<name>)
  --pid PID         a process (and its descendants) instead; may be repeated
  --ray-session D   a Ray session folder (/tmp/ray/session_...) whose workers on this node belong to the run too
  --last            print the newest report kept beside EXP_DIR instead of reading the processes
  --method M        auto (default: py-spy when found, else faulthandler), py-spy or faulthandler
  --py-spy PATH     the py-spy to run (default: on PATH, else beside the run's interpreter)
  --max-processes N read at most N processes (default {0})
  --timeout S       seconds each process has to answer (default {1})
  --format          text (default) or json

py-spy reads any Python process it may trace (see the message on a permission error); launches
started from VS Code or \`agentjet debug-task\` also answer without py-spy (faulthandler on SIGUSR1).
Linux: everything; macOS: py-spy needs sudo; Windows: --pid with py-spy only.
`,
    DEFAULT_MAX_PROCESSES,
    DEFAULT_DEADLINE_MS / 1000,
  );

export const stacksCommand: CliCommand = {
  name: 'stacks',
  summary: 'where a running run waits: the Python stacks of its processes, grouped',
  async run(args) {
    const parsed = commandArgs(
      'stacks',
      args,
      {
        format: { type: 'string', choices: ['text', 'json'] },
        pid: { type: 'string', multiple: true },
        'ray-session': { type: 'string', multiple: true },
        last: { type: 'boolean' },
        method: { type: 'string', choices: ['auto', 'py-spy', 'faulthandler'] },
        'py-spy': { type: 'string' },
        'max-processes': { type: 'string' },
        timeout: { type: 'string' },
      },
      help,
    );
    if (typeof parsed === 'number') return parsed;
    const { values: o, positionals } = parsed;
    const bad = (m: string) => {
      process.stderr.write(`agentjet stacks: ${m}\n`);
      return 2;
    };
    const num = (v: string | undefined, min: number): number | undefined | null => {
      if (v === undefined) return undefined;
      const n = Number(v);
      return Number.isFinite(n) && n >= min ? n : null;
    };
    const max = num(o['max-processes'], 1);
    const timeout = num(o.timeout, 0.1);
    if (max === null) return bad(t('--{0} must be a number of at least {1}', 'max-processes', 1));
    if (timeout === null) return bad(t('--{0} must be a number of at least {1}', 'timeout', 0.1));
    const pids: number[] = [];
    for (const p of o.pid ?? []) {
      if (!/^\d+$/.test(p) || Number(p) < 1) return bad(t('not a process id: {0}', p));
      pids.push(Number(p));
    }
    if (!pids.length && positionals.length !== 1) return bad(t('give one experiment folder or --pid PID (see --help)'));
    const interpreters: string[] = [];
    let experiment: string | undefined;
    const print = (report: StackReport) => {
      if (o.format === 'json') process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else process.stdout.write(formatStackReport(report));
    };
    if (o.last) {
      if (pids.length || positionals.length !== 1) return bad(t('--last needs one experiment folder'));
      const kept = await latestStackReport(syncNodeFs(), resolve(positionals[0]!));
      // The raw faulthandler dumps of the last launch from the editor, when it kept any.
      const dumps = await latestStackDumps(resolve(positionals[0]!));
      const dumpsNote = () => dumps && process.stderr.write(`${t('The faulthandler dumps of its last launch are in {0}', dumps)}\n`);
      if (!kept) {
        process.stderr.write(`agentjet stacks: ${t('no stacks were kept beside {0}', positionals[0]!)}\n`);
        dumpsNote();
        return 1;
      }
      process.stderr.write(`${t('Stacks kept in {0}', kept.file)}\n`);
      dumpsNote();
      print(kept.report);
      return 0;
    }
    if (!pids.length) {
      const run = await runOfFolder(positionals[0]!);
      if ('error' in run) return bad(t('{0} is not an experiment folder', positionals[0]!));
      if (!run.pids.length) {
        const kept = await latestStackReport(syncNodeFs(), run.info.entry.path);
        process.stderr.write(
          `agentjet stacks: ${t('{0} has no live process on this machine (status: {1}); nothing to read.', run.info.entry.name, statusLabel(run.info.status))}\n`,
        );
        if (kept)
          process.stderr.write(
            `${t('The last stacks kept beside it were taken {0}: agentjet stacks {1} --last', formatLocalTime(kept.report.takenAt), positionals[0]!)}\n`,
          );
        return 1;
      }
      pids.push(...run.pids);
      experiment = run.info.entry.path;
    }
    // The run's interpreter may hold py-spy (pip install py-spy in the run's environment); a
    // person typed this command, so looking beside it is theirs to allow.
    for (const pid of pids) interpreters.push(...(await interpretersOf(pid)));
    const report = await collectStacks({
      roots: pids,
      raySessions: o['ray-session'] ?? [],
      method: (o.method ?? 'auto') as 'auto' | 'py-spy' | 'faulthandler',
      ...(o['py-spy'] ? { pySpy: o['py-spy'] } : {}),
      interpreters,
      ...(max !== undefined ? { maxProcesses: max } : {}),
      ...(timeout !== undefined ? { deadlineMs: timeout * 1000 } : {}),
    });
    print(report);
    if (experiment) {
      const kept = await saveStackReport(experiment, report, formatStackReport(report)).catch(() => undefined);
      if (kept) process.stderr.write(`${t('Stacks kept in {0}', kept)}\n`);
    }
    return report.processes.some((p) => !p.error) ? 0 : 1;
  },
};
