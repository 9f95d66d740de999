// agentjet_wait: holds the call until a run reaches a state (a status, a step, a metric above or
// below a value), ends, stalls (core/runs/health.ts) or the bound passes, and says which and what
// changed. No polling loop in the agent: the run's folder and the levels below it where AgentJet
// writes are watched (fs.watch, bounded: core/agents/waitWatch.ts), and read again, as
// the Runs view reads it (core/runs/discover + list), on a change, when a stall could next be judged,
// and on a slow heartbeat for what writes no file (a process killed outright).
import { basename, dirname } from 'node:path';
import { t } from '../l10n';
import { syncNodeFs, nodeFs } from '../fs/seam';
import { resolveInside } from '../fs/inside';
import { inspectExperiment, readExperimentEntry } from '../runs/discover';
import { toRow, type RunRow } from '../runs/list';
import { findMetricSources } from '../metrics/find';
import { RunMetricsReader, type MetricsReading } from '../metrics/read';
import { FolderWatch, watchFolders } from './waitWatch';
import { ToolError, str, num, obj, pathArg, json, shown, insideRoots, type AgentTool, type AgentToolEnv } from './toolkit';
import type { ToolArgs } from './schema';

/** The longest a call waits (10 minutes). */
export const MAX_WAIT_S = 600;
/** Read again at least this often: a run killed outright writes nothing. */
const HEARTBEAT_MS = 5000;
/** Changes closer than this are read once. */
const SETTLE_MS = 200;
/** Metric keys that mean the mean reward of the latest step, as the rollout records give it. */
const REWARD_KEYS = ['reward', 'meanReward', 'mean_reward'];

interface Seen {
  status: string;
  latestStep?: number;
  latestReward?: number;
  metric?: number;
  health?: string;
}

interface Until {
  status?: string;
  step?: number;
  metric?: { key: string; above?: number; below?: number };
}

function untilOf(args: ToolArgs): Until {
  const u = obj(args, 'until') ?? {};
  const out: Until = {};
  const status = str(u, 'status');
  if (status !== undefined) out.status = status;
  const step = num(u, 'step');
  if (step !== undefined) out.step = step;
  const m = obj(u, 'metric');
  if (m) {
    const key = str(m, 'key')!;
    const above = num(m, 'above');
    const below = num(m, 'below');
    if (above === undefined && below === undefined) throw new ToolError(t('until.metric needs above or below'));
    out.metric = { key, ...(above !== undefined ? { above } : {}), ...(below !== undefined ? { below } : {}) };
  }
  return out;
}

/** Reads the run as the Runs view does, and the metric the condition names. */
class RunReader {
  private metrics: MetricsReading | undefined;
  /** The metric folders and files outside the run folder (TensorBoard's), watched too once found. */
  readonly metricPaths: string[] = [];
  constructor(
    private readonly dir: string,
    private readonly env: AgentToolEnv,
    private readonly metricKey: string | undefined,
  ) {}

  /** Forgets the metrics reader's state (a worker's). */
  close(): void {
    this.metrics?.close?.();
  }

  async read(): Promise<{ row: RunRow; seen: Seen }> {
    const fs = syncNodeFs({ within: this.env.roots });
    const entry = await readExperimentEntry(fs, dirname(this.dir), basename(this.dir));
    if (!entry) throw new ToolError(t('{0} is not an experiment folder', shown(this.env, this.dir)));
    const row = toRow(
      await inspectExperiment(fs, entry),
      this.env.stallMinutes !== undefined ? { stallMinutes: this.env.stallMinutes } : {},
    );
    const seen: Seen = { status: row.status };
    if (row.latestStep !== undefined) seen.latestStep = row.latestStep;
    if (row.latestReward !== undefined) seen.latestReward = row.latestReward;
    if (row.health) seen.health = row.health.state;
    const key = this.metricKey;
    if (key !== undefined) {
      if (REWARD_KEYS.includes(key)) {
        if (row.latestReward !== undefined) seen.metric = row.latestReward;
      } else {
        const v = await this.metricValue(key);
        if (v !== undefined) seen.metric = v;
      }
    }
    return { row, seen };
  }

  private async metricValue(key: string): Promise<number | undefined> {
    if (!this.metrics) {
      const found = await findMetricSources(nodeFs(), this.dir);
      const inside = async (list: string[]) => {
        const out: string[] = [];
        for (const p of list) if ((await resolveInside(p, this.env.roots)).ok) out.push(p);
        return out;
      };
      const sources = { ...found, tensorboard: await inside(found.tensorboard), console: await inside(found.console) };
      // No source yet: looked for again at the next read (the trainer may not have written one).
      if (!sources.tensorboard.length && !sources.console.length) return undefined;
      this.metrics = this.env.metricsReader?.(sources) ?? new RunMetricsReader(sources, nodeFs());
      this.metricPaths.push(...sources.tensorboard, ...sources.console);
    }
    await this.metrics.update();
    const v = this.metrics
      .result()
      .series.find((s) => s.tag === key)
      ?.points.at(-1)?.value;
    // TensorBoard keeps float32: 0.4 is 0.4000000059604645 there.
    return v === undefined || !Number.isFinite(v) ? v : Number(v.toPrecision(6));
  }
}

function reached(u: Until, s: Seen): boolean {
  if (u.status !== undefined && s.status !== u.status) return false;
  if (u.step !== undefined && (s.latestStep === undefined || s.latestStep < u.step)) return false;
  if (u.metric) {
    if (s.metric === undefined) return false;
    if (u.metric.above !== undefined && !(s.metric > u.metric.above)) return false;
    if (u.metric.below !== undefined && !(s.metric < u.metric.below)) return false;
  }
  return true;
}

function changes(a: Seen, b: Seen): string[] {
  const out: string[] = [];
  for (const k of ['status', 'health', 'latestStep', 'latestReward', 'metric'] as const)
    if (a[k] !== b[k]) out.push(`${k}: ${a[k] ?? '-'} -> ${b[k] ?? '-'}`);
  return out;
}

/** The run folder: a path inside the roots, or a launch of this client that has named its folder. */
async function runFolder(env: AgentToolEnv, path: string, deadline: number, signal: AbortSignal | undefined): Promise<string> {
  const launch = env.launches?.find(path);
  if (!launch) return insideRoots(env, path);
  while (!launch.runDir && !launch.end && Date.now() < deadline && !signal?.aborted)
    await env.launches!.changedWithin(Math.min(HEARTBEAT_MS, deadline - Date.now()), signal);
  if (!launch.runDir)
    throw new ToolError(
      launch.refused ??
        (launch.end
          ? t('{0} ended (exit code {1}) before it named its run folder', launch.id, launch.end.exitCode)
          : t('{0} has not named its run folder yet; wait again', launch.id)),
    );
  return insideRoots(env, launch.runDir);
}

export const waitTool: AgentTool = {
  name: 'agentjet_wait',
  title: 'Wait for an AgentJet run',
  description:
    'Waits, without polling, until a run reaches a state (until.status, e.g. "finished"; until.step, a training step; until.metric, a key above or below a value: "reward" is the mean reward of the latest step, any other key a TensorBoard/console metric such as critic/rewards/mean), or ends, or stalls (no progress for several of its step times and the stall setting), or timeoutS passes (at most 600). The answer says which (outcome: reached, ended, stalled, timeout), what changed while it waited, and the run now. path: an experiment folder, or the id agentjet_train returned. Reads only.',
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('The experiment folder (saved_experiments/<experiment>), or a launch id from agentjet_train.'),
      until: {
        type: 'object',
        description: 'What to wait for; every condition given must hold. Nothing given: wait for the run to end or stall.',
        properties: {
          status: { type: 'string', minLength: 1, maxLength: 20, description: 'A status: running, finished, failed, stopped, …' },
          step: { type: 'integer', minimum: 0, maximum: 1e9, description: 'The latest training step reaches at least this.' },
          metric: {
            type: 'object',
            description: 'A metric crosses a value: key, and above or below.',
            properties: {
              key: { type: 'string', minLength: 1, maxLength: 500, description: '"reward", or a metric key (critic/rewards/mean).' },
              above: { type: 'number', description: 'Reached when the latest value is above this.' },
              below: { type: 'number', description: 'Reached when the latest value is below this.' },
            },
            required: ['key'],
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
      timeoutS: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_WAIT_S,
        description: 'Give up after this many seconds (default 300, at most 600).',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  acts: 'waits',
  async run(args, env, signal) {
    const started = Date.now();
    const timeoutS = num(args, 'timeoutS') ?? 300;
    const deadline = started + Math.min(timeoutS, MAX_WAIT_S) * 1000;
    const until = untilOf(args);
    const dir = await runFolder(env, str(args, 'path')!, deadline, signal);
    const reader = new RunReader(dir, env, until.metric?.key);
    const first = await reader.read();
    let now = first;
    const told = (x: Seen) =>
      env.progress?.(
        t(
          '{0}: {1}',
          shown(env, dir),
          Object.entries(x)
            .map(([k, v]) => `${k} ${String(v)}`)
            .join(', '),
        ),
      );
    told(first.seen);
    const answer = (outcome: 'reached' | 'ended' | 'stalled' | 'timeout' | 'cancelled') =>
      json({
        outcome,
        path: shown(env, dir),
        waitedS: Math.round((Date.now() - started) / 100) / 10,
        until,
        changed: changes(first.seen, now.seen),
        before: first.seen,
        now: {
          ...now.seen,
          ...(now.row.health ? { healthText: now.row.health.text } : {}),
          ...(now.row.reason ? { reason: now.row.reason } : {}),
          evidence: now.row.evidence.slice(0, 3).map((e) => (e.file ? `${e.text} (${shown(env, e.file)})` : e.text)),
        },
      });
    const verdict = (): 'reached' | 'ended' | 'stalled' | undefined => {
      const s = now.seen;
      const hasCondition = until.status !== undefined || until.step !== undefined || until.metric !== undefined;
      if (hasCondition && reached(until, s)) return 'reached';
      if (s.status !== 'running' && s.status !== 'empty') return 'ended';
      if (s.health === 'stalled') return 'stalled';
      return undefined;
    };
    // The run folder and the levels AgentJet writes in, each on its own and bounded (core/agents/waitWatch.ts).
    const watcher = new FolderWatch(() => poke());
    const rewatch = async () => watcher.set([...(await watchFolders(dir)), ...reader.metricPaths]);
    let wake: (() => void) | undefined;
    let dirty = false;
    const poke = () => {
      dirty = true;
      wake?.();
    };
    try {
      for (;;) {
        // New sessions, hosts and modules are watched as they appear; a metric read from outside the
        // run folder (tensorboard_log/…) wakes the wait too.
        await rewatch();
        const v = verdict();
        if (v) return answer(v);
        if (signal?.aborted) return answer('cancelled');
        const left = deadline - Date.now();
        if (left <= 0) return answer('timeout');
        // Sleep until a change (settled), the moment a stall could be judged, the heartbeat or the deadline.
        const h = now.row.health;
        const stallIn =
          h?.thresholdS !== undefined && h.idleS !== undefined ? Math.max(0, (h.thresholdS - h.idleS) * 1000) + 100 : HEARTBEAT_MS;
        const sleep = Math.max(50, Math.min(left, HEARTBEAT_MS, stallIn));
        await new Promise<void>((done) => {
          const finish = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', finish);
            wake = undefined;
            done();
          };
          const timer = setTimeout(finish, sleep);
          signal?.addEventListener('abort', finish, { once: true });
          if (dirty) setTimeout(finish, SETTLE_MS);
          else
            wake = () => {
              wake = undefined;
              setTimeout(finish, SETTLE_MS);
            };
        });
        dirty = false;
        now = await reader.read();
        told(now.seen);
      }
    } finally {
      watcher.close();
      reader.close();
    }
  },
};
