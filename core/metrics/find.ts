// Where a run's metrics are, found from the run itself: its config snapshot (`yaml_backup.yaml`:
// project_name, experiment_name, trainer_common.logger), the launch's working folder (from the
// launch records VS Code keeps, else the experiment root's parent) and environment
// (TENSORBOARD_DIR: the launcher's, with the `.env` of the launch's folder under it as the
// launcher's load_dotenv(override=False) reads it), verl's default `tensorboard_log/<project>/<experiment>/`
// (verl/utils/tracking.py, _TensorboardAdapter), and the launch output files for console lines.
import { basename, dirname, join } from 'node:path';
import { tryReaddir, tryStat, type RunsFs } from '../fs/seam';
import { readSnapshotFacts } from '../runs/snapshot';
import { trackingCandidates } from '../runs/tracking';
import { readLaunchRecords } from '../agentjet/launchRecord';
import { isEventFileName } from './tensorboard';
import { parseDotenv } from '../launch/dotenv';
import { findSwanLabRuns, isSwanLabFileName, isSwanLabRunDirName, swanlabRunFile } from './swanlab';

export interface MetricSources {
  tensorboard: string[];
  console: string[];
  /** SwanLab run folders (`run-*` under SWANLAB_LOG_DIR) of this experiment, oldest first, or one `.swanlab` file. */
  swanlab: string[];
  /** What was looked for and not found, for the user. */
  looked: string[];
  /** Folders the run points to that `readable` refused (not looked into). */
  notRead?: string[];
}

/** `.env` files larger than this are not read for the tracking variables. */
const DOTENV_MAX = 256 * 1024;

/**
 * The environment a launch in `cwd` logged with, as far as it can be known afterwards: `env` (the
 * environment the launcher inherited), and under it the variables of `cwd/.env` it does not set
 * (the launcher loads `.env` with override=False).
 */
async function launchEnv(
  fs: RunsFs,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Readonly<Record<string, string | undefined>>> {
  const file = join(cwd, '.env');
  const st = await tryStat(fs, file);
  if (!st?.isFile() || st.size > DOTENV_MAX) return env;
  let vars: Record<string, string>;
  try {
    vars = parseDotenv((await fs.readFile(file)).toString('utf8'), { ...env });
  } catch {
    return env;
  }
  const out: Record<string, string | undefined> = { ...vars };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

async function hasEventFiles(fs: RunsFs, dir: string): Promise<boolean> {
  const { entries } = await tryReaddir(fs, dir);
  return entries.some((e) => e.kind === 'file' && isEventFileName(e.name));
}

/**
 * The sources of `path`: an event file or a folder holding event files (read as that one run),
 * a text file (console lines), or an experiment folder (saved_experiments/<experiment>).
 */
export async function findMetricSources(
  fs: RunsFs,
  path: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  /** Whether a folder the run points to may be read (an agent's roots); every folder by default. */
  readable: (path: string) => Promise<boolean> = async () => true,
): Promise<MetricSources> {
  const out: MetricSources = { tensorboard: [], console: [], swanlab: [], looked: [] };
  const st = await tryStat(fs, path);
  if (!st) return out;
  if (st.isFile()) {
    if (isEventFileName(basename(path))) out.tensorboard.push(dirname(path));
    else if (isSwanLabFileName(basename(path))) out.swanlab.push(path);
    else out.console.push(path);
    return out;
  }
  if (!st.isDirectory()) return out;
  if (await hasEventFiles(fs, path)) {
    out.tensorboard.push(path);
    return out;
  }
  if (isSwanLabRunDirName(basename(path)) && (await swanlabRunFile(fs, path))) {
    out.swanlab.push(path);
    return out;
  }
  const snapshot = join(path, 'yaml_backup.yaml');
  const facts = (await tryStat(fs, snapshot))?.isFile() ? await readSnapshotFacts(fs, snapshot) : undefined;
  const records = await readLaunchRecords(fs, path);
  for (const r of records) if (r.output) out.console.push(r.output);
  // The launch ran in the experiment root's parent unless a record says where.
  const cwds = [...new Set([...records.map((r) => r.record.cwd).reverse(), dirname(dirname(path))])];
  const names = [...new Set([basename(path), ...(facts?.experimentName ? [facts.experimentName] : [])])];
  const loggers = facts?.loggers?.length ? facts.loggers : ['tensorboard'];
  for (const cwd of cwds) {
    const cwdEnv = await launchEnv(fs, cwd, env);
    for (const experiment of names)
      for (const c of trackingCandidates({
        loggers: [...loggers, 'tensorboard'],
        projectDir: cwd,
        ...(facts?.project ? { project: facts.project } : {}),
        experiment,
        env: cwdEnv,
      })) {
        if (c.logger === 'tensorboard') {
          if (out.tensorboard.includes(c.path)) continue;
          if (await hasEventFiles(fs, c.path)) out.tensorboard.push(c.path);
          else if (!out.looked.includes(c.path)) out.looked.push(c.path);
        } else if (c.logger === 'swanlab') {
          // SWANLAB_LOG_DIR holds every run of the project: this experiment's are those whose run file names it.
          if (!(await readable(c.path))) {
            out.notRead ??= [];
            if (!out.notRead.includes(c.path)) out.notRead.push(c.path);
            continue;
          }
          const found = (await tryStat(fs, c.path))?.isDirectory()
            ? await findSwanLabRuns(fs, c.path, { experiment, ...(facts?.project ? { project: facts.project } : {}) })
            : { runs: [] };
          for (const r of found.runs) if (!out.swanlab.includes(r)) out.swanlab.push(r);
          if (!found.runs.length && !out.looked.includes(c.path)) out.looked.push(c.path);
        }
      }
  }
  // A log folder where another of the run's names found its runs was not looked at in vain.
  out.looked = out.looked.filter((l) => !out.swanlab.some((r) => dirname(r) === l));
  // One TensorBoard folder is the run; the first found (the latest launch's) wins.
  out.tensorboard = out.tensorboard.slice(0, 1);
  return out;
}
