// agentjet_compare_runs: two or more runs side by side for an agent: how their configs differ, and
// for the keys that matter each run's final and best value, the value at the last step they all
// reached, and the curve summarised. Over core/metrics/compare, as `agentjet compare` is.
import { t } from '../l10n';
import { resolveInside } from '../fs/inside';
import { nodeFs } from '../fs/seam';
import { compareKey, configDifferences, distinctNames, keysToCompare, readCompareRun, type CompareRun } from '../metrics/compare';
import { findMetricSources } from '../metrics/find';
import { ToolError, PAGE, json, shown, insideRoots, fileOrFolder, page, type AgentTool } from './toolkit';

const round = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(6)) : String(v));
const leaf = (v: unknown) => (v === undefined ? t('(absent)') : typeof v === 'number' ? round(v) : v);

export const compareRunsTool: AgentTool = {
  name: 'agentjet_compare_runs',
  title: 'Compare AgentJet runs',
  description:
    "Two or more runs side by side: the config keys whose values differ (from each run's config snapshot, yaml_backup.yaml), and for the keys that matter (critic/rewards/mean, critic/score/mean, the success rates, every val-core/* key, plus `keys`) each run's final and best value with their steps, the value at the last step every run reached, which run is ahead, and the curve summarised (trend and a few bucket means). Metrics are read as agentjet_metrics reads them (TensorBoard, SwanLab, console lines). Use it to see what changed between a run that learns and one that does not.",
  inputSchema: {
    type: 'object',
    properties: {
      paths: {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: 4096 },
        minItems: 2,
        maxItems: 8,
        description: 'The runs: experiment folders (saved_experiments/<experiment>), relative to the workspace or absolute.',
      },
      keys: {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: 500 },
        maxItems: 20,
        description: 'Optional: more metric keys to compare (actor/entropy, response_length/mean, timing_s/gen ...).',
      },
      ...PAGE,
    },
    required: ['paths'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  async run(args, env) {
    const paths = Array.isArray(args.paths) ? args.paths : [];
    const asked = Array.isArray(args.keys) ? args.keys : [];
    const fs = nodeFs();
    const mayRead = async (p: string) => (await resolveInside(p, env.roots)).ok;
    const notRead: string[] = [];
    const runs: CompareRun[] = [];
    for (const p of paths) {
      const dir = await insideRoots(env, p);
      await fileOrFolder(dir, p);
      const found = await findMetricSources(fs, dir, process.env, mayRead);
      const keep = async (list: string[]) => {
        const out: string[] = [];
        for (const x of list)
          if (await mayRead(x)) out.push(x);
          else notRead.push(x);
        return out;
      };
      notRead.push(...(found.notRead ?? []));
      const sources = {
        ...found,
        tensorboard: await keep(found.tensorboard),
        swanlab: await keep(found.swanlab),
        console: await keep(found.console),
      };
      runs.push(await readCompareRun(fs, dir, { sources, ...(env.metricsReader ? { reader: env.metricsReader } : {}) }));
    }
    distinctNames(runs);
    const missing = asked.filter((k) => !runs.some((r) => r.series.some((s) => s.tag === k)));
    if (missing.length) throw new ToolError(t('no run has the key: {0}', missing.join(', ')));
    const keys = keysToCompare(runs, asked);
    const diffs = configDifferences(runs);
    const pg = page(diffs, args, 100);
    return json({
      runs: runs.map((r) => ({
        name: r.name,
        path: shown(env, r.path),
        sources: [
          ...r.sources.tensorboard.map(() => 'tensorboard'),
          ...r.sources.swanlab.map(() => 'swanlab'),
          ...r.sources.console.map(() => 'console'),
        ],
        keys: r.series.length,
        lastStep: r.series.reduce((m, s) => Math.max(m, s.points[s.points.length - 1]?.step ?? -Infinity), -Infinity),
        ...(r.issues ? { issues: r.issues } : {}),
        ...(r.configError ? { config: r.configError } : {}),
      })),
      config: {
        differing: pg.total,
        ...(pg.note ? { note: pg.note } : {}),
        differences: Object.fromEntries(pg.items.map((d) => [d.key, d.values.map(leaf)])),
      },
      metrics: Object.fromEntries(
        keys.map((k) => {
          const c = compareKey(runs, k);
          return [
            k,
            {
              better: c.better,
              ...(c.ahead ? { ahead: c.ahead } : {}),
              ...(c.atCommonStep
                ? { atStep: c.atCommonStep.step, valuesAtStep: c.atCommonStep.values.map((v) => (v === null ? null : round(v))) }
                : {}),
              runs: c.runs.map((r) =>
                r
                  ? {
                      final: [r.final.step, round(r.final.value)],
                      best: [r.best.step, round(r.best.value)],
                      points: r.points,
                      trend: r.trend,
                      curve: r.curve,
                    }
                  : null,
              ),
            },
          ];
        }),
      ),
      ...(keys.length ? {} : { note: t('none of the runs has a reward, score or val-core key; name keys to compare with `keys`') }),
      ...(notRead.length ? { notRead: notRead.map((p) => t('{0} is outside the folders this server may read', p)) } : {}),
    });
  },
};
