// agentjet_metrics: the training metrics of a run (TensorBoard event files, SwanLab runs, verl console lines) for
// an agent: every key with its count, last, min, max and trend, or one key's points thinned to a
// bounded number that keeps the extremes. Over core/metrics, as `agentjet metrics` is.
import { t } from '../l10n';
import { resolveInside } from '../fs/inside';
import { nodeFs } from '../fs/seam';
import { findMetricSources } from '../metrics/find';
import { RunMetricsReader, type MetricsReading } from '../metrics/read';
import { downsample, summarize } from '../metrics/summary';
import { ToolError, str, int, PAGE, pathArg, json, shown, insideRoots, fileOrFolder, page, type AgentTool } from './toolkit';

const round = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(6)) : String(v));

export const metricsTool: AgentTool = {
  name: 'agentjet_metrics',
  title: 'Training metrics of an AgentJet run',
  description:
    "The training metrics of a run, as the trainer logged them to TensorBoard or SwanLab (and verl's console lines): every key (actor/pg_loss, critic/score/mean, response_length/mean, timing_s/gen, perf/throughput, val-core/...) with its number of points, first and last step and value, min, max and trend; or, with key, that key's points (step, value) thinned to at most `points` while keeping the extremes. Use it to see why a reward is flat, whether KL or entropy drifts, or which phase of a step (timing_s/*) takes the time.",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg(
        'An experiment folder (saved_experiments/<experiment>), a folder of events.out.tfevents.* files, a SwanLab run folder (run-<time>-<id>), or a launch output file.',
      ),
      key: { type: 'string', minLength: 1, maxLength: 500, description: "Optional: one key's points instead of the summary of every key." },
      points: { type: 'integer', minimum: 4, maximum: 2000, description: 'With key: at most this many points (default 200).' },
      ...PAGE,
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  async run(args, env) {
    const dir = await insideRoots(env, str(args, 'path'));
    await fileOrFolder(dir, str(args, 'path')!);
    const fs = nodeFs();
    const mayRead = async (p: string) => (await resolveInside(p, env.roots)).ok;
    const found = await findMetricSources(fs, dir, process.env, mayRead);
    // A source the run points to outside the allowed folders is not read.
    const outside: string[] = [...(found.notRead ?? [])];
    const keep = async (list: string[]) => {
      const out: string[] = [];
      for (const p of list)
        if (await mayRead(p)) out.push(p);
        else outside.push(p);
      return out;
    };
    const sources = {
      ...found,
      tensorboard: await keep(found.tensorboard),
      swanlab: await keep(found.swanlab),
      console: await keep(found.console),
    };
    const reader: MetricsReading = env.metricsReader?.(sources) ?? new RunMetricsReader(sources, fs);
    let m;
    try {
      await reader.update();
      m = reader.result();
    } finally {
      reader.close?.();
    }
    const base = {
      path: shown(env, dir),
      sources: m.sources.map((s) => ({ kind: s.kind, path: shown(env, s.path) })),
      ...(m.issues.length ? { issues: m.issues.slice(0, 20).map((i) => ({ ...i, file: shown(env, i.file) })) } : {}),
      ...(outside.length ? { notRead: outside.map((p) => t('{0} is outside the folders this server may read', p)) } : {}),
    };
    if (!m.series.length) {
      // Nothing logged (yet): an answer, not a failure; it says where it looked.
      if (!m.sources.length)
        return json({
          ...base,
          keys: {},
          note: t('no TensorBoard event files, SwanLab runs or console metrics found for {0}', shown(env, dir)),
          looked: found.looked.map((l) => shown(env, l)),
        });
      return json({ ...base, keys: {} });
    }
    const key = str(args, 'key');
    if (key !== undefined) {
      const s = m.series.find((x) => x.tag === key);
      if (!s) throw new ToolError(t('no such key: {0}', key));
      const pts = downsample(s.points, int(args, 'points', 200));
      return json({
        ...base,
        key,
        summary: summarize(s),
        ...(pts.length < s.points.length
          ? { shown: t('{0} of {1} points (each stretch keeps its lowest and highest)', pts.length, s.points.length) }
          : {}),
        points: pts.map((p) => [p.step, round(p.value)]),
      });
    }
    const pg = page(m.series, args, 200);
    return json({
      ...base,
      total: pg.total,
      ...(pg.note ? { note: pg.note } : {}),
      keys: Object.fromEntries(
        pg.items.map((s) => {
          const x = summarize(s);
          return [
            s.tag,
            {
              points: x.points,
              first: [x.first.step, round(x.first.value)],
              last: [x.last.step, round(x.last.value)],
              min: round(x.min),
              max: round(x.max),
              trend: x.trend,
            },
          ];
        }),
      ),
    });
  },
};
