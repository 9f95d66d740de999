// `agentjet compare RUN RUN... [--key TAG]... [--format text|json]`: two or more runs side by side,
// over core/metrics/compare (as the agents' tool agentjet_compare_runs).
import {
  compareKey,
  configDifferences,
  distinctNames,
  keysToCompare,
  readCompareRun,
  type CompareRun,
  type Leaf,
} from '../core/metrics/compare';
import { nodeFs, tryStat } from '../core/fs/seam';
import { printable } from '../core/runs/format';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { t } from '../core/l10n';

const help = () =>
  t(`Usage: agentjet compare RUN RUN... [--key TAG]... [--format text|json]

Compares two or more runs (experiment folders, saved_experiments/<name>): the config keys whose
values differ (from each run's config snapshot, yaml_backup.yaml), and for the keys that matter
(critic/rewards/mean, critic/score/mean, the success rates, every val-core/* key, plus --key) each
run's final and best value, the value at the last step every run reached, which run is ahead, and
the curve's trend. Metrics are found as agentjet metrics finds them (TensorBoard, SwanLab, console).

  --key TAG   also compare this key (repeat for more)
  --format    text (default) or json
`);

const fmt = (v: number | null | undefined) =>
  v === null || v === undefined ? '-' : Number.isFinite(v) ? String(Number(v.toPrecision(6))) : String(v);
const jsonNum = (v: number): number | string => (Number.isFinite(v) ? v : String(v));
const leafText = (v: Leaf | undefined) => (v === undefined ? t('(absent)') : printable(typeof v === 'string' ? v : JSON.stringify(v)));

function text(runs: CompareRun[], keys: string[]): string {
  const out: string[] = [t('RUNS')];
  for (const r of runs) {
    const last = r.series.reduce((m, s) => Math.max(m, s.points[s.points.length - 1]?.step ?? -Infinity), -Infinity);
    out.push(
      `  ${printable(r.name)}  ${printable(r.path)}  ${r.series.length ? t('{0} keys, last step {1}', r.series.length, last) : t('no metrics found')}${r.configError ? `  (${r.configError})` : ''}`,
    );
  }
  const diffs = configDifferences(runs);
  out.push('', t('CONFIG: {0} keys differ', diffs.length));
  for (const d of diffs) out.push(`  ${printable(d.key)}: ${d.values.map(leafText).join(' | ')}`);
  out.push('', t('METRICS'));
  if (!keys.length) out.push(`  ${t('none of the runs has a reward, score or val-core key; name keys to compare with --key')}`);
  for (const k of keys) {
    const c = compareKey(runs, k);
    const head = [t('{0} is better', c.better === 'higher' ? t('higher') : t('lower'))];
    if (c.atCommonStep) head.push(t('at step {0}: {1}', c.atCommonStep.step, c.atCommonStep.values.map(fmt).join(' | ')));
    if (c.ahead) head.push(t('ahead: {0}', c.ahead.final));
    out.push(`  ${printable(k)}  (${head.join('; ')})`);
    c.runs.forEach((x, i) =>
      out.push(
        `    ${printable(runs[i]!.name)}  ${
          x
            ? t(
                'final {0} @{1}  best {2} @{3}  {4}, {5} points',
                fmt(x.final.value),
                x.final.step,
                fmt(x.best.value),
                x.best.step,
                x.trend,
                x.points,
              )
            : t('not logged')
        }`,
      ),
    );
  }
  return out.join('\n');
}

export const compareCommand: CliCommand = {
  name: 'compare',
  summary: 'two or more runs side by side: config differences, final and best values of the keys that matter',
  async run(args) {
    const parsed = commandArgs(
      'compare',
      args,
      { key: { type: 'string', multiple: true }, format: { type: 'string', choices: ['text', 'json'] } },
      help,
    );
    if (typeof parsed === 'number') return parsed;
    const { values: o, positionals } = parsed;
    if (positionals.length < 2) {
      process.stderr.write(`agentjet compare: ${t('give two or more run folders (see --help)')}\n`);
      return 2;
    }
    const fs = nodeFs();
    const runs: CompareRun[] = [];
    for (const p of positionals) {
      const st = await tryStat(fs, p);
      if (!st?.isDirectory() && !st?.isFile()) {
        process.stderr.write(`agentjet compare: ${st ? t('{0} is not a file or folder', p) : t('no such file or folder: {0}', p)}\n`);
        return 1;
      }
      runs.push(await readCompareRun(fs, p));
    }
    distinctNames(runs);
    const asked = o.key ?? [];
    const missing = asked.filter((k) => !runs.some((r) => r.series.some((s) => s.tag === k)));
    if (missing.length) {
      process.stderr.write(`agentjet compare: ${t('no run has the key: {0}', missing.join(', '))}\n`);
      return 1;
    }
    const keys = keysToCompare(runs, asked);
    if ((o.format ?? 'text') === 'text') {
      process.stdout.write(`${text(runs, keys)}\n`);
      return 0;
    }
    const out = {
      runs: runs.map((r) => ({
        name: r.name,
        path: r.path,
        sources: [
          ...r.sources.tensorboard.map((path) => ({ kind: 'tensorboard', path })),
          ...r.sources.swanlab.map((path) => ({ kind: 'swanlab', path })),
          ...r.sources.console.map((path) => ({ kind: 'console', path })),
        ],
        keys: r.series.length,
        ...(r.configError ? { configError: r.configError } : {}),
      })),
      config: configDifferences(runs).map((d) => ({ key: d.key, values: d.values.map((v) => (v === undefined ? null : v)) })),
      metrics: Object.fromEntries(
        keys.map((k) => {
          const c = compareKey(runs, k);
          return [
            k,
            {
              better: c.better,
              ...(c.ahead ? { ahead: c.ahead } : {}),
              ...(c.atCommonStep
                ? { atStep: c.atCommonStep.step, valuesAtStep: c.atCommonStep.values.map((v) => (v === null ? null : jsonNum(v))) }
                : {}),
              runs: c.runs.map((x) =>
                x
                  ? {
                      final: { step: x.final.step, value: jsonNum(x.final.value) },
                      best: { step: x.best.step, value: jsonNum(x.best.value) },
                      points: x.points,
                      trend: x.trend,
                      curve: x.curve,
                    }
                  : null,
              ),
            },
          ];
        }),
      ),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  },
};
