// The config snapshot (`<exp>/yaml_backup.yaml`) facts run discovery needs, and checkpoints.
import { readConfigFacts, type Dialect } from '../agentjet/dialect';
import { layoutOfRun } from '../agentjet/layout';
import { isNode, parseDocument } from 'yaml';
import { loggerNames } from './tracking';
import { scanSnapshot } from './snapshotScan';
import { fsErrorText, numberedDirs, type RunsFs } from '../fs/seam';
import type { CheckpointInfo } from './runTypes';
import { t } from '../l10n';

export async function listCheckpoints(fs: RunsFs, dir: string): Promise<CheckpointInfo[]> {
  return numberedDirs(fs, dir, 'global_step_');
}

export interface SnapshotFacts {
  project?: string;
  experimentName?: string;
  checkpointBase?: string;
  dialect?: Dialect;
  /**
   * The last training step the settings call for: verl's `trainer.total_training_steps` (verl ends
   * at `global_steps >= total_training_steps`).
   */
  totalSteps?: number;
  /** `<section>.trainer_common.logger` as logger names (`swanlab`, `tensorboard`, `console`, ...). */
  loggers?: string[];
  /** For an `ajet:` snapshot: the AgentJet generation whose defaults it was resolved with. */
  ajetLayout?: 'agentjet' | 'agentjet-0.0.4';
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
  if (buf.length > MAX) return { error: t('snapshot larger than 2 MB, not read') };
  return snapshotFacts(buf.toString('utf8'));
}

export function snapshotFacts(text: string): SnapshotFacts {
  // The line scan answers for what PyYAML writes; anything else is parsed in full.
  const s = scanSnapshot(text);
  if (!s?.dialect) return parsedSnapshotFacts(text);
  const out: SnapshotFacts = { dialect: s.dialect };
  if (s.project !== undefined) out.project = s.project;
  if (s.experimentName !== undefined) out.experimentName = s.experimentName;
  if (s.checkpointBase !== undefined) out.checkpointBase = s.checkpointBase;
  if (s.totalSteps !== undefined) out.totalSteps = s.totalSteps;
  if (s.dialect === 'ajet') out.ajetLayout = layoutOfRun('', text);
  if (LOGGER_LINE.test(text)) {
    const loggers = loggerNames(s.logger);
    if (loggers.length) out.loggers = loggers;
  }
  return out;
}

const LOGGER_LINE = /^[ \t]+logger[ \t]*:/m;

/** The same facts from a full YAML parse (any YAML; some 20 ms for a resolved config). */
export function parsedSnapshotFacts(text: string): SnapshotFacts {
  const f = readConfigFacts(text);
  if (!f.dialect) return { error: f.error ?? 'no ajet:/astuner: section' };
  if (f.error) return { error: f.error };
  const out: SnapshotFacts = { dialect: f.dialect };
  if (f.project !== undefined) out.project = f.project;
  if (f.experimentName !== undefined) out.experimentName = f.experimentName;
  if (f.checkpointBase !== undefined) out.checkpointBase = f.checkpointBase;
  if (f.totalSteps !== undefined) out.totalSteps = f.totalSteps;
  if (f.dialect === 'ajet') out.ajetLayout = layoutOfRun('', text);
  if (LOGGER_LINE.test(text)) {
    try {
      const v = parseDocument(text, { uniqueKeys: false }).getIn([f.dialect, 'trainer_common', 'logger']);
      const loggers = loggerNames(isNode(v) ? v.toJSON() : v);
      if (loggers.length) out.loggers = loggers;
    } catch {
      /* the facts above stand */
    }
  }
  return out;
}
