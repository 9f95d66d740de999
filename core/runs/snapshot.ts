// The config snapshot (`<exp>/yaml_backup.yaml`) facts run discovery needs, and checkpoints.
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { fsErrorText, tryReaddir, type RunsFs } from './fs';
import type { CheckpointInfo } from './runTypes';

export async function listCheckpoints(fs: RunsFs, dir: string): Promise<CheckpointInfo[]> {
  const { entries } = await tryReaddir(fs, dir);
  return entries
    .map((e) => ({ e, m: /^global_step_(\d+)$/.exec(e.name) }))
    .filter((x) => x.m && x.e.kind === 'dir')
    .map((x) => ({ step: Number(x.m![1]), path: join(dir, x.e.name) }))
    .sort((a, b) => a.step - b.step);
}

export interface SnapshotFacts {
  project?: string;
  experimentName?: string;
  checkpointBase?: string;
  dialect?: 'ajet' | 'astuner' | 'astune';
  /**
   * The last training step the settings call for: `<section>.trainer_common.total_training_steps`
   * or verl's `trainer.total_training_steps` (verl ends at `global_steps >= total_training_steps`).
   */
  totalSteps?: number;
  error?: string;
}

export async function readSnapshotFacts(fs: RunsFs, path: string): Promise<SnapshotFacts> {
  const MAX = 2 * 1024 * 1024;
  let buf: Buffer;
  try {
    buf = await fs.readRange(path, 0, MAX + 1);
  } catch (err) {
    return { error: fsErrorText(err) };
  }
  // A resolved config is tens of KB; a huge one is not worth parsing for two keys.
  if (buf.length > MAX) return { error: 'snapshot larger than 2 MB, not read' };
  return snapshotFacts(buf.toString('utf8'));
}

export function snapshotFacts(text: string): SnapshotFacts {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 1000 });
  } catch (err) {
    return { error: `unreadable YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
  const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  const top = obj(doc);
  if (!top) return { error: 'not a YAML mapping' };
  for (const dialect of ['ajet', 'astuner', 'astune'] as const) {
    const sec = obj(top[dialect]);
    if (!sec) continue;
    const out: SnapshotFacts = { dialect };
    if (typeof sec.project_name === 'string' || typeof sec.project_name === 'number') out.project = String(sec.project_name);
    if (typeof sec.experiment_name === 'string') out.experimentName = sec.experiment_name;
    const base = obj(sec.trainer_common)?.checkpoint_base_dir;
    if (typeof base === 'string' && !base.includes('${')) out.checkpointBase = base;
    const steps = [obj(sec.trainer_common)?.total_training_steps, obj(top.trainer)?.total_training_steps].find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0);
    if (steps !== undefined) out.totalSteps = steps;
    return out;
  }
  return { error: 'no ajet:/astuner: section' };
}