// `agentjet runs [ROOT...] [--format json]`: the runs tree for a terminal (over SSH, in scripts).
import { resolve, sep } from 'node:path';
import { candidateRoots, type Evidence, type ExperimentInfo } from '../core/runs/discover';
import { formatLocalTime, formatReward } from '../core/runs/format';
import { nodeFs, mapLimit } from '../core/runs/fs';
import { RunsModel } from '../core/runs/model';
import type { CliCommand } from './commands';

const HELP = `Usage: agentjet runs [ROOT...] [--format text|json] [--status S]

Lists AgentJet / ASTuner experiments with their status, sessions, hosts, latest training step,
latest mean reward and checkpoints.

  ROOT        an experiment root (a saved_experiments or launcher_record folder) or a project folder
              holding one; default: the current folder
  --format    text (default) or json
  --status    only runs with this status (running, finished, failed, interrupted, ended, empty)

Statuses claim no more than the files show: "ended" means the process exited (no lock) and
nothing shows whether it completed; "finished" needs proof (the launcher's exit code 0 recorded
by VS Code, or the last step the config snapshot calls for). JSON rows list the evidence.
`;

export interface RunRow {
  experiment: string;
  path: string;
  status: string;
  reason?: string;
  started: string;
  sessions: string[];
  hosts: string[];
  latestStep?: number;
  latestReward?: number;
  checkpoints: number[];
  exceptions: number;
  /** Harmless notes in exception.json.log (never a failure). */
  notes: number;
  /** What decided the status, first. */
  evidence: Evidence[];
  /** The latest session's hosts, each with its own status and evidence. */
  latestSession?: { name: string; hosts: { name: string; status: string; evidence: Evidence[] }[] };
  layout?: string;
  totalSteps?: number;
}

export function toRow(i: ExperimentInfo): RunRow {
  const row: RunRow = {
    experiment: i.entry.name,
    path: i.entry.path,
    status: i.status,
    started: formatLocalTime(i.entry.timeMs),
    sessions: i.entry.sessions,
    hosts: i.hosts,
    checkpoints: i.checkpoints.map((c) => c.step),
    exceptions: i.exceptionCount,
    notes: i.noteCount,
    evidence: i.evidence,
  };
  const last = i.sessions.at(-1);
  if (last) row.latestSession = { name: last.name, hosts: last.hosts.map((h) => ({ name: h.name, status: h.status, evidence: h.evidence })) };
  if (i.layout) row.layout = i.layout;
  if (i.totalSteps !== undefined) row.totalSteps = i.totalSteps;
  if (i.reason) row.reason = i.reason;
  if (i.latestStep !== undefined) row.latestStep = i.latestStep;
  if (i.latestReward !== undefined) row.latestReward = Number(formatReward(i.latestReward));
  return row;
}

export async function collectRuns(args: readonly string[]): Promise<{ rows: RunRow[]; infos: ExperimentInfo[]; rootsFound: string[]; errors: string[] }> {
  const fs = nodeFs();
  const folders = args.length ? args.map((a) => resolve(a)) : [process.cwd()];
  // A folder may be a project (holding saved_experiments/launcher_record) or a root itself.
  const roots = [...candidateRoots(folders), ...folders.map((p) => ({ path: p, source: 'configured' as const }))];
  const model = new RunsModel(fs);
  model.setRoots(roots);
  const found = await model.roots();
  // A project folder given as a root would list saved_experiments itself as an experiment.
  const projectDirs = new Set(folders.filter((f) => found.some((r) => r.path.startsWith(f + sep))));
  model.setRoots(found.filter((r) => !projectDirs.has(r.path)));
  const rootsFound = (await model.roots()).map((r) => r.path);
  const entries = await model.experiments();
  const infos = await mapLimit(entries, 16, (e) => model.info(e));
  return { rows: infos.map(toRow), infos, rootsFound, errors: model.rootErrors().map((e) => `${e.root}: ${e.error}`) };
}

function table(rows: RunRow[], infos: ExperimentInfo[]): string {
  const head = ['EXPERIMENT', 'STATUS', 'STARTED', 'SESSIONS', 'HOSTS', 'STEP', 'REWARD', 'CKPTS'];
  const body = rows.map((r) => [
    r.experiment, r.status, r.started, String(r.sessions.length), r.hosts.join(',') || '-',
    r.latestStep === undefined ? '-' : String(r.latestStep),
    r.latestReward === undefined ? '-' : formatReward(r.latestReward),
    r.checkpoints.length ? `${r.checkpoints.length} (last ${r.checkpoints.at(-1)})` : '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const lines = [fmt(head), ...body.map(fmt)];
  for (const i of infos) if (i.status === 'failed' || i.status === 'interrupted' || i.status === 'running') lines.push(`  ${i.entry.name}: ${i.reason ?? i.status}`);
  return lines.join('\n');
}

export const runsCommand: CliCommand = {
  name: 'runs',
  summary: 'list experiments: status, sessions, hosts, latest step and reward, checkpoints',
  async run(args) {
    if (args.includes('-h') || args.includes('--help')) { process.stdout.write(HELP); return 0; }
    let format = 'text';
    let status: string | undefined;
    const roots: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--format' || a === '--status') {
        const v = args[++i];
        if (!v) { process.stderr.write(`agentjet runs: ${a} needs a value\n`); return 2; }
        if (a === '--format') format = v; else status = v;
      } else if (a.startsWith('--format=')) format = a.slice(9);
      else if (a.startsWith('--status=')) status = a.slice(9);
      else if (a.startsWith('-')) { process.stderr.write(`agentjet runs: unknown option ${a}\n${HELP}`); return 2; }
      else roots.push(a);
    }
    if (format !== 'text' && format !== 'json') { process.stderr.write(`agentjet runs: --format must be text or json\n`); return 2; }
    const { rows, infos, rootsFound, errors } = await collectRuns(roots);
    const keep = rows.map((r, i) => [r, infos[i]!] as const).filter(([r]) => !status || r.status === status);
    if (format === 'json') {
      process.stdout.write(`${JSON.stringify({ roots: rootsFound, runs: keep.map(([r]) => r), errors }, null, 2)}\n`);
      return 0;
    }
    for (const e of errors) process.stderr.write(`agentjet runs: ${e}\n`);
    if (!rootsFound.length) {
      process.stderr.write(`agentjet runs: no saved_experiments or launcher_record folder under ${roots.length ? roots.join(', ') : process.cwd()}\n`);
      return 1;
    }
    if (!keep.length) { process.stdout.write(`no runs${status ? ` with status ${status}` : ''} in ${rootsFound.join(', ')}\n`); return 0; }
    process.stdout.write(`${table(keep.map(([r]) => r), keep.map(([, i]) => i))}\n`);
    return 0;
  },
};
