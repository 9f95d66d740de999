// `agentjet runs [ROOT...] [--format json]`: the runs tree for a terminal (over SSH, in scripts).
import type { ExperimentInfo } from '../core/runs/discover';
import { formatReward, printable, statusLabel } from '../core/runs/format';
import { collectRuns, type RunRow } from '../core/runs/list';
import { causePlace } from '../core/diagnose/format';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { t } from '../core/l10n';

export { collectRuns, toRow, type RunRow } from '../core/runs/list';

const help = () =>
  t(`Usage: agentjet runs [ROOT...] [--format text|json] [--status S] [--stall-minutes M]

Lists AgentJet / ASTuner experiments with their status, sessions, hosts, latest training step,
latest mean reward and checkpoints.

  ROOT        an experiment root (a saved_experiments or launcher_record folder) or a project folder
              holding one; default: the current folder
  --format    text (default) or json
  --status    only runs with this status (running, finished, failed, stopped, interrupted, ended, empty)
  --stall-minutes
              a running run that wrote nothing for this many minutes and for several of its own
              step times reads "stalled" (default 10; the status stays "running")

Statuses claim no more than the files show: "ended" means the process exited (no lock) and
nothing shows whether it completed; "finished" needs proof (the launcher's exit code 0 recorded
by VS Code, or the last step the config snapshot calls for). JSON rows list the evidence, and
each running run whose lock this machine can check has "health" (state "stalled", "progressing",
"starting", "validating", "saving-checkpoint" or "loading-model"; since; usualStepS). Failed,
interrupted and stalled runs have "causes" (code, line, message, fix, evidence; see agentjet diagnose).
`);

function table(rows: RunRow[], infos: ExperimentInfo[]): string {
  const head = [t('EXPERIMENT'), t('STATUS'), t('STARTED'), t('SESSIONS'), t('HOSTS'), t('STEP'), t('REWARD'), t('CKPTS')];
  const body = rows.map((r) => [
    printable(r.experiment),
    statusLabel(r.status),
    r.started,
    String(r.sessions.length),
    printable(r.hosts.join(',')) || '-',
    r.latestStep === undefined ? '-' : String(r.latestStep),
    r.latestReward === undefined ? '-' : formatReward(r.latestReward),
    r.checkpoints.length ? t('{0} (last {1})', r.checkpoints.length, r.checkpoints.at(-1) ?? '') : '-',
  ]);
  // Column widths in terminal cells: CJK characters (the Chinese headers) take two.
  const cells = (s: string) => [...s].reduce((n, ch) => n + (/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/.test(ch) ? 2 : 1), 0);
  const widths = head.map((h, i) => Math.max(cells(h), ...body.map((b) => cells(b[i]!))));
  const fmt = (row: string[]) =>
    row.map((c, i) => (i === row.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - cells(c))))).join('  ');
  const lines = [fmt(head), ...body.map(fmt)];
  infos.forEach((i, k) => {
    if (i.status === 'failed' || i.status === 'interrupted' || i.status === 'running') {
      // The words the Runs view shows first (`paused in the debugger since 14:02`), then why.
      const what = [rows[k]!.launch?.text, i.reason ?? statusLabel(i.status), rows[k]!.health?.text]
        .filter(Boolean)
        .map((x) => printable(x!));
      lines.push(`  ${printable(i.entry.name)}: ${what.join('; ')}`);
    }
    for (const c of rows[k]!.causes ?? []) {
      lines.push(`    ${t('cause {0}: {1}', c.code, printable(c.message))} (${printable(causePlace(c))})`);
      lines.push(`    ${t('fix: {0}', printable(c.fix))}`);
    }
  });
  for (const r of rows)
    for (const l of r.trackingLogs ?? [])
      lines.push(
        `  ${t('{0}: {1} logs in {2} (open: {3})', r.experiment, l.logger === 'swanlab' ? 'SwanLab' : 'TensorBoard', l.path, l.open)}`,
      );
  return lines.join('\n');
}

export const runsCommand: CliCommand = {
  name: 'runs',
  summary: 'list experiments: status, sessions, hosts, latest step and reward, checkpoints',
  async run(args) {
    const parsed = commandArgs(
      'runs',
      args,
      { format: { type: 'string', choices: ['text', 'json'] }, status: { type: 'string' }, 'stall-minutes': { type: 'string' } },
      help,
    );
    if (typeof parsed === 'number') return parsed;
    const { values: o, positionals: roots } = parsed;
    const format = o.format ?? 'text';
    const status = o.status;
    let stallMinutes: number | undefined;
    if (o['stall-minutes'] !== undefined) {
      stallMinutes = Number(o['stall-minutes']);
      if (!(o['stall-minutes'].trim() !== '' && Number.isFinite(stallMinutes) && stallMinutes > 0)) {
        process.stderr.write(
          `agentjet runs: ${t('--stall-minutes must be a positive number of minutes, not {0}', JSON.stringify(o['stall-minutes']))}\n`,
        );
        return 2;
      }
    }
    const { rows, infos, rootsFound, errors } = await collectRuns(roots, {
      sizes: format === 'json',
      ...(stallMinutes !== undefined ? { stallMinutes } : {}),
    });
    const keep = rows.map((r, i) => [r, infos[i]!] as const).filter(([r]) => !status || r.status === status);
    if (format === 'json') {
      process.stdout.write(`${JSON.stringify({ roots: rootsFound, runs: keep.map(([r]) => r), errors }, null, 2)}\n`);
      return 0;
    }
    for (const e of errors) process.stderr.write(`agentjet runs: ${e}\n`);
    if (!rootsFound.length) {
      process.stderr.write(
        `agentjet runs: ${t('no saved_experiments or launcher_record folder under {0}', roots.length ? roots.join(', ') : process.cwd())}\n`,
      );
      return 1;
    }
    if (!keep.length) {
      process.stdout.write(
        `${status ? t('no runs with status {0} in {1}', status, rootsFound.join(', ')) : t('no runs in {0}', rootsFound.join(', '))}\n`,
      );
      return 0;
    }
    process.stdout.write(
      `${table(
        keep.map(([r]) => r),
        keep.map(([, i]) => i),
      )}\n`,
    );
    return 0;
  },
};
