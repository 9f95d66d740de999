// The experiment-tracking folders of a run: `trainer_common.logger` picks the loggers (converted to
// verl's `trainer.logger` and trinity's `monitor.monitor_type`: ajet/default_config/verl/
// config_auto_convertion_verl.jsonc:8, .../trinity/config_auto_convertion_trinity.jsonc:9).
// - SwanLab writes under `SWANLAB_LOG_DIR`, which AgentJet 0.0.4 sets for its workers with the
//   default `saved_experiments/swanlog` (ajet/utils/core_env_vars.py:45), relative to the launch's
//   folder; one folder for every run of the project.
// - TensorBoard (verl's tracking) writes `tensorboard_log/<project>/<experiment>` under the launch's
//   folder unless `TENSORBOARD_DIR` is set: this run's own folder.
import { isAbsolute, join, resolve } from 'node:path';
import { tryStat, type RunsFs } from '../fs/seam';
import type { TrackingLog } from './runTypes';

export const DEFAULT_SWANLAB_LOG_DIR = 'saved_experiments/swanlog';

/** `logger: swanlab`, `logger: [console, tensorboard]`, `"['console','swanlab']"`: the names it holds. */
export function loggerNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(loggerNames);
  if (typeof value !== 'string') return [];
  return value
    .split(/[\s,[\]'"]+/)
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** The candidate folders for these loggers (existence not checked). */
export function trackingCandidates(p: {
  loggers: readonly string[];
  /** The folder the launch ran in (the experiment root's parent). */
  projectDir: string;
  project?: string;
  experiment: string;
  env?: Readonly<Record<string, string | undefined>>;
}): TrackingLog[] {
  const env = p.env ?? {};
  const abs = (v: string) => (isAbsolute(v) ? v : resolve(p.projectDir, v));
  const out: TrackingLog[] = [];
  if (p.loggers.includes('swanlab'))
    out.push({ logger: 'swanlab', path: abs(env.SWANLAB_LOG_DIR || DEFAULT_SWANLAB_LOG_DIR), shared: true });
  if (p.loggers.includes('tensorboard')) {
    const dir = env.TENSORBOARD_DIR;
    if (dir) out.push({ logger: 'tensorboard', path: abs(dir), shared: true });
    else if (p.project)
      out.push({ logger: 'tensorboard', path: join(p.projectDir, 'tensorboard_log', p.project, p.experiment), shared: false });
  }
  return out;
}

/** The candidates that exist as folders. */
export async function existingTracking(fs: RunsFs, list: readonly TrackingLog[]): Promise<TrackingLog[]> {
  const out: TrackingLog[] = [];
  for (const t of list) if ((await tryStat(fs, t.path))?.isDirectory()) out.push(t);
  return out;
}

/** The command that shows a tracking folder: SwanLab's offline dashboard or TensorBoard. */
export function trackingOpenCommand(logger: string, path: string): string {
  const q = /^[A-Za-z0-9_@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
  return logger === 'swanlab' ? `swanlab watch ${q}` : `tensorboard --logdir ${q}`;
}
