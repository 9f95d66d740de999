// `agentjet metrics EXP_DIR|EVENTS_DIR|FILE [--key TAG]... [--format table|json|csv]`: a run's
// training metrics (TensorBoard event files, SwanLab run files, verl console lines) for a terminal and for scripts.
import { readRunMetrics } from '../core/metrics/read';
import { nodeFs, tryStat } from '../core/fs/seam';
import { summarize } from '../core/metrics/summary';
import type { MetricSeries } from '../core/protocol/metrics';
import { printable } from '../core/runs/format';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { t } from '../core/l10n';

const help = () =>
  t(`Usage: agentjet metrics EXP_DIR | EVENTS_DIR | SWANLAB_RUN | FILE [--key TAG]... [--format table|json|csv]

Prints the training metrics of a run: every scalar the trainer logged (actor/, critic/, timing_s/,
perf/, val-core/ ...) with its number of points, last step and value, minimum and maximum.

  EXP_DIR     an experiment folder (saved_experiments/<name>): its TensorBoard folder is found from
              the config snapshot (tensorboard_log/<project_name>/<experiment_name> under the launch's
              folder, or $TENSORBOARD_DIR), its SwanLab runs from $SWANLAB_LOG_DIR (default
              saved_experiments/swanlog) when trainer_common.logger has swanlab, and its console
              lines from the launch output VS Code kept
  EVENTS_DIR  a folder of events.out.tfevents.* files, or one such file (its folder is read)
  SWANLAB_RUN a SwanLab run folder (run-<time>-<id>) or its backup.swanlab / run-<id>.swanlab file
  FILE        a launch's output with verl's console lines (step:N - key:value - ...)
  --key TAG   only this tag (repeat for more); with --format csv, its points
  --format    table (default), json (keys with points, last, min, max, trend) or csv
              (tag,step,wall_time,value rows; step,wall_time,value with one --key)

Event files are read as TensorBoard reads them: a damaged record ends the reading of its file
(reported with its offset), a last record still being written is waited for.
`);

function csvCell(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const num = (v: number) => (Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v));
const jsonNum = (v: number): number | string => (Number.isFinite(v) ? v : num(v));

function table(series: MetricSeries[]): string {
  const head = [t('KEY'), t('POINTS'), t('LAST STEP'), t('LAST'), t('MIN'), t('MAX')];
  const fmt = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(6)).toString() : num(v));
  const rows = series.map((s) => {
    const m = summarize(s);
    return [printable(s.tag), String(m.points), String(m.last.step), fmt(m.last.value), fmt(m.min), fmt(m.max)];
  });
  // Widths in terminal cells: CJK characters (the Chinese headers) take two.
  const cells = (s: string) => [...s].reduce((n, ch) => n + (/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/.test(ch) ? 2 : 1), 0);
  const widths = head.map((h, i) => Math.max(cells(h), ...rows.map((r) => cells(r[i]!))));
  return [head, ...rows]
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - cells(c))))).join('  '))
    .join('\n');
}

export const metricsCommand: CliCommand = {
  name: 'metrics',
  summary: 'training metrics of a run (TensorBoard event files, SwanLab runs, console lines): keys, last, min, max',
  async run(args) {
    const parsed = commandArgs(
      'metrics',
      args,
      { key: { type: 'string', multiple: true }, format: { type: 'string', choices: ['table', 'json', 'csv'] } },
      help,
    );
    if (typeof parsed === 'number') return parsed;
    const { values: o, positionals } = parsed;
    if (positionals.length !== 1) {
      process.stderr.write(`agentjet metrics: ${t('give one experiment folder, event folder or file (see --help)')}\n`);
      return 2;
    }
    const path = positionals[0]!;
    // A FIFO or a device would block or never end: refused by name before anything reads it.
    const st = await tryStat(nodeFs(), path);
    if (st && !st.isFile() && !st.isDirectory()) {
      process.stderr.write(`agentjet metrics: ${path}: ${t('not a regular file')}\n`);
      return 1;
    }
    const m = await readRunMetrics(path);
    for (const i of m.issues) process.stderr.write(`agentjet metrics: ${i.file}${i.at !== undefined ? `@${i.at}` : ''}: ${i.message}\n`);
    if (!m.sources.length) {
      process.stderr.write(`agentjet metrics: ${t('no TensorBoard event files, SwanLab runs or console metrics found for {0}', path)}\n`);
      for (const l of m.looked) process.stderr.write(`  ${t('looked in {0}', l)}\n`);
      return 1;
    }
    const keys = o.key ?? [];
    const missing = keys.filter((k) => !m.series.some((s) => s.tag === k));
    if (missing.length) {
      process.stderr.write(`agentjet metrics: ${t('no such key: {0}', missing.join(', '))}\n`);
      return 1;
    }
    const series = keys.length ? m.series.filter((s) => keys.includes(s.tag)) : m.series;
    const format = o.format ?? 'table';
    if (format === 'json') {
      const out = {
        sources: m.sources,
        keys: Object.fromEntries(
          series.map((s) => {
            const x = summarize(s);
            return [
              s.tag,
              {
                points: x.points,
                first: { step: x.first.step, value: jsonNum(x.first.value) },
                last: { step: x.last.step, value: jsonNum(x.last.value) },
                min: jsonNum(x.min),
                max: jsonNum(x.max),
                trend: x.trend,
                ...(x.nonFinite ? { nonFinite: x.nonFinite } : {}),
              },
            ];
          }),
        ),
        issues: m.issues,
      };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else if (format === 'csv') {
      const one = series.length === 1;
      const lines = [one ? 'step,wall_time,value' : 'tag,step,wall_time,value'];
      for (const s of series)
        for (const p of s.points) {
          const row = `${p.step},${Number.isNaN(p.wallTime) ? '' : p.wallTime},${num(p.value)}`;
          lines.push(one ? row : `${csvCell(s.tag)},${row}`);
        }
      process.stdout.write(`${lines.join('\n')}\n`);
    } else process.stdout.write(`${table(series)}\n`);
    return 0;
  },
};
