// Experiment naming, `--exp-dir`, `${workspaceFolder}` and the paths a launch writes, per the real
// code: `prepare_experiment_config` (ajet/utils/config_utils.py) names the experiment and puts
// `yaml_backup.yaml` and `backup/` under `--exp-dir`; `init_parallel_rollout_logger`
// (ajet/backbone/warm_up.py) and `LaunchWhenAbsent` (ajet/utils/smart_daemon.py) write logs and
// companions under a folder relative to the working directory that `--exp-dir` does not move
// (before 0.0.4), or the logs under `--exp-dir` too (0.0.4: see RunLayout.logsFollowExpDir).
import { basename, isAbsolute, join, resolve } from 'node:path';
import { layoutOf, type LayoutVersion } from './layout';

const pad = (n: number) => String(n).padStart(2, '0');

/** `time.strftime("%Y%m%d_%H%M", time.localtime())`. */
export function nameStamp(d: Date): string {
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}_${pad(d.getHours())}${pad(d.getMinutes())}`;
}

/** `datetime.now().strftime("%Y%m%d_%H%M%S_%f")[:-3]`: 0.0.4's name stamp (ajet/utils/config_utils.py:367). */
export function nameStampMs(d: Date): string {
  const ms = String(d.getMilliseconds()).padStart(3, '0');
  return `${nameStamp(d)}${pad(d.getSeconds())}_${ms}`;
}

/** `datetime.now().strftime("%Y_%m_%d_%H_%M")`: the session folder. */
export function sessionStamp(d: Date): string {
  return `${d.getFullYear()}_${pad(d.getMonth() + 1)}_${pad(d.getDate())}_${pad(d.getHours())}_${pad(d.getMinutes())}`;
}

/** `read_yaml_name` (or no name) means "derive it from the config file". */
export function isDerivedName(declared: unknown): boolean {
  return declared === undefined || declared === null || declared === 'read_yaml_name';
}

/**
 * The experiment name the launcher will use. `configPath` is the YAML given to the launcher;
 * `declared` is `<section>.experiment_name` as written. With `now` the timestamped name is exact
 * to the minute; callers that do not know the start minute use {@link derivedNamePattern}.
 */
export function experimentName(configPath: string, declared: unknown, version: LayoutVersion, now: Date = new Date()): string {
  if (!isDerivedName(declared)) return String(declared).replace(/\|/g, '-');
  // Python's str.replace(".yaml", "") replaces every occurrence.
  const stem = basename(configPath).replaceAll('.yaml', '');
  const stamp = layoutOf(version).nameStamp;
  return stamp === 'minute' ? `${stem}_${nameStamp(now)}` : stamp === 'millisecond' ? `${stem}_${nameStampMs(now)}` : stem;
}

/** Matches the folder names a derived name can take for this config (any start minute). */
export function derivedNamePattern(configPath: string, version: LayoutVersion): RegExp {
  const stem = basename(configPath)
    .replaceAll('.yaml', '')
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const stamp = layoutOf(version).nameStamp;
  const tail = stamp === 'minute' ? '_\\d{8}_\\d{4}' : stamp === 'millisecond' ? '_\\d{8}_\\d{6}_\\d{3}' : '';
  return new RegExp(`^${stem}${tail}$`);
}

/** The value of `--exp-dir` in launcher arguments (`--exp-dir D` or `--exp-dir=D`; the last one wins, as argparse does). */
export function parseExpDir(args: readonly string[] | undefined): string | undefined {
  let out: string | undefined;
  const a = args ?? [];
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (v === '--exp-dir' && i + 1 < a.length) {
      out = a[i + 1]!;
      i++;
    } else if (v.startsWith('--exp-dir=')) out = v.slice('--exp-dir='.length);
  }
  return out;
}

/**
 * `${workspaceFolder}` (and `${workspaceFolder:name}` when `folders` names it) expanded; `~` is the
 * home folder. Unknown variables are left as written so the caller can report them.
 */
export function expandWorkspaceFolder(
  value: string,
  folder: string | undefined,
  folders: Readonly<Record<string, string>> = {},
  home?: string,
): string {
  let out = value.replace(/\$\{workspaceFolder(?::([^}]+))?\}/g, (whole, name: string | undefined) => {
    if (name === undefined) return folder ?? whole;
    return folders[name] ?? whole;
  });
  if (home && (out === '~' || out.startsWith('~/'))) out = join(home, out.slice(1));
  return out;
}

/** Whether a value still holds a `${...}` variable after expansion. */
export function hasUnresolvedVariable(value: string): boolean {
  return /\$\{[^}]*\}/.test(value);
}

export interface LaunchPaths {
  /**
   * The folder holding the experiments' logs: `<cwd>/<logRoot>` whatever `--exp-dir` says, or (0.0.4)
   * the `--exp-dir` folder as the child process resolves it.
   */
  logRoot: string;
  /** `<logRoot>/<exp>`: the sessions of this experiment. */
  logExperiment: string;
  /** `<expDir>/<exp>`: where `yaml_backup.yaml` and `backup/` go (follows `--exp-dir`). */
  backupExperiment: string;
  yamlBackup: string;
  backupDir: string;
  /** `<logRoot>/companion_logs/companion` */
  companions: string;
  /** The session folder for a start time, and its host folder when the version has one. */
  session?: string;
  hostDir?: string;
}

/**
 * The working directory of the launcher's child process (the backbone, which writes the logs and
 * starts the debug companions): the launcher's, or with 0.0.4 `ISOLATED_AGENTJET_BASE_DIR` (from the
 * launch's environment, as ajet/utils/launch_utils.py:342 reads it; relative to the launcher's folder).
 */
export function childWorkingDir(cwd: string, version: LayoutVersion, env: Readonly<Record<string, string | undefined>> = {}): string {
  const isolated = env.ISOLATED_AGENTJET_BASE_DIR;
  return layoutOf(version).isolatedBaseDir && isolated ? resolve(cwd, isolated) : cwd;
}

/** Where a launch started in `cwd` with these arguments writes, for experiment `exp`. */
export function launchPaths(p: {
  cwd: string;
  version: LayoutVersion;
  experiment: string;
  args?: readonly string[];
  expDir?: string;
  start?: Date;
  host?: string;
  /** The launch's environment (`ISOLATED_AGENTJET_BASE_DIR`). */
  env?: Readonly<Record<string, string | undefined>>;
}): LaunchPaths {
  const layout = layoutOf(p.version);
  const expDir = p.expDir ?? parseExpDir(p.args) ?? layout.defaultExpDir;
  const child = childWorkingDir(p.cwd, p.version, p.env);
  // The launcher makes the snapshot path absolute against its own folder; the child resolves the
  // relative experiment_dir (0.0.4) against its own.
  const backupRoot = isAbsolute(expDir) ? expDir : resolve(p.cwd, expDir);
  const logRoot = layout.logsFollowExpDir ? (isAbsolute(expDir) ? expDir : resolve(child, expDir)) : resolve(child, layout.logRoot);
  const out: LaunchPaths = {
    logRoot,
    logExperiment: join(logRoot, p.experiment),
    backupExperiment: join(backupRoot, p.experiment),
    yamlBackup: join(backupRoot, p.experiment, 'yaml_backup.yaml'),
    backupDir: join(backupRoot, p.experiment, 'backup'),
    companions: companionFolder(child, p.version),
  };
  if (p.start) {
    out.session = join(out.logExperiment, sessionStamp(p.start));
    if (layout.hostFolder && p.host) out.hostDir = join(out.session, p.host);
  }
  return out;
}

/** `<cwd>/<logRoot>/companion_logs/companion`: fixed relative to the working directory upstream. */
export function companionFolder(cwd: string, version: LayoutVersion): string {
  return resolve(cwd, layoutOf(version).logRoot, 'companion_logs', 'companion');
}

/** The companion folder under a log root folder (`…/saved_experiments`). */
export function companionFolderOfRoot(logRoot: string): string {
  return join(logRoot, 'companion_logs', 'companion');
}

export interface LauncherAnnouncement {
  kind: 'name' | 'backup' | 'yaml';
  value: string;
}

/**
 * The launcher's own lines (`prepare_experiment_config`): "Experiment Name: X",
 * "Experiment Backup Dir: D", "Experiment Yaml Dir: F". Loguru's prefix is allowed before them.
 */
export function parseLauncherLine(line: string): LauncherAnnouncement | undefined {
  const clean = line.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r$/, '');
  const m = /Experiment (Name|Backup Dir|Yaml Dir): (.+?)\s*$/.exec(clean);
  if (!m) return undefined;
  const kind = m[1] === 'Name' ? 'name' : m[1] === 'Backup Dir' ? 'backup' : 'yaml';
  return { kind, value: m[2]! };
}
