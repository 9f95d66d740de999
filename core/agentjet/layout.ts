// Run-folder layout per AgentJet generation, as the real code writes it (one table, no guessing
// elsewhere). Sources: `ajet/backbone/warm_up.py`, `ajet/utils/config_utils.py`,
// `ajet/utils/smart_daemon.py` (AgentJet d20cce0 of January 2026, and 0.0.4 = c68c154 of May 2026);
// `astuner/backbone/warm_up.py` (ASTuner f9fab4f, Dec 2025); `astuner/backbone/common_warm_up.py`
// (ASTuner 61e9359, Nov 2025); ASTune ba24412p.

/**
 * The generations whose files differ. Detection of the dialect/version of a config lives in
 * dialect.ts; `agentjet-0.0.4` is told apart from January's `agentjet` by the code that writes
 * (layoutOfPackageCode) or by the run it left (layoutOfRun).
 */
export type LayoutVersion = 'agentjet' | 'agentjet-0.0.4' | 'astuner-2025-12' | 'astuner-2025-11' | 'astune';

export interface RunLayout {
  version: LayoutVersion;
  /** The YAML section the config and its snapshot use. */
  section: 'ajet' | 'astuner' | 'astune';
  /**
   * Folder, relative to the launcher's working directory, that holds the logs
   * (`<logRoot>/<exp>/<YYYY_MM_DD_HH_MM>[/<host>]`) and the companions
   * (`<logRoot>/companion_logs/companion`). Hard-coded upstream: `--exp-dir` does not move it.
   */
  logRoot: 'saved_experiments' | 'launcher_record';
  /** `--exp-dir` default: where `<exp>/yaml_backup.yaml` and `<exp>/backup/` go. */
  defaultExpDir: 'saved_experiments' | 'launcher_record';
  /** Whether sessions hold one folder per host (`os.uname().nodename`). */
  hostFolder: boolean;
  /**
   * What `experiment_name: read_yaml_name` (or none) appends to the config's stem: `minute`
   * `_<YYYYmmdd_HHMM>`, `millisecond` `_<YYYYmmdd_HHMMSS_mmm>` (0.0.4, ajet/utils/config_utils.py:367),
   * or nothing.
   */
  nameStamp: 'none' | 'minute' | 'millisecond';
  /**
   * Whether the logs (`<exp>/<session>/<host>`) go under `--exp-dir` with the snapshot: 0.0.4's
   * `init_parallel_rollout_logger(experiment_dir)` (ajet/backbone/warm_up.py:18,104). Before, they
   * went to `<logRoot>/<exp>` under the working directory whatever `--exp-dir` said.
   */
  logsFollowExpDir: boolean;
  /**
   * Whether `ISOLATED_AGENTJET_BASE_DIR` makes the launcher run its child there (0.0.4,
   * ajet/utils/launch_utils.py:342,430): the child's relative paths (logs, companions) resolve
   * against that folder.
   */
  isolatedBaseDir: boolean;
}

export const LAYOUTS: Readonly<Record<LayoutVersion, RunLayout>> = {
  agentjet: {
    version: 'agentjet',
    section: 'ajet',
    logRoot: 'saved_experiments',
    defaultExpDir: 'saved_experiments',
    hostFolder: true,
    nameStamp: 'minute',
    logsFollowExpDir: false,
    isolatedBaseDir: false,
  },
  'agentjet-0.0.4': {
    version: 'agentjet-0.0.4',
    section: 'ajet',
    logRoot: 'saved_experiments',
    defaultExpDir: 'saved_experiments',
    hostFolder: true,
    nameStamp: 'millisecond',
    logsFollowExpDir: true,
    isolatedBaseDir: true,
  },
  'astuner-2025-12': {
    version: 'astuner-2025-12',
    section: 'astuner',
    logRoot: 'saved_experiments',
    defaultExpDir: 'saved_experiments',
    hostFolder: true,
    nameStamp: 'minute',
    logsFollowExpDir: false,
    isolatedBaseDir: false,
  },
  'astuner-2025-11': {
    version: 'astuner-2025-11',
    section: 'astuner',
    logRoot: 'launcher_record',
    defaultExpDir: 'launcher_record',
    hostFolder: false,
    nameStamp: 'none',
    logsFollowExpDir: false,
    isolatedBaseDir: false,
  },
  astune: {
    version: 'astune',
    section: 'astune',
    logRoot: 'launcher_record',
    defaultExpDir: 'launcher_record',
    hostFolder: false,
    nameStamp: 'none',
    logsFollowExpDir: false,
    isolatedBaseDir: false,
  },
};

export function layoutOf(version: LayoutVersion): RunLayout {
  return LAYOUTS[version];
}

/** The generations that may have written under a log root (`launcher_record` is ASTuner Nov 2025 or ASTune). */
export function versionsForLogRoot(root: 'saved_experiments' | 'launcher_record'): LayoutVersion[] {
  return (Object.values(LAYOUTS) as RunLayout[]).filter((l) => l.logRoot === root).map((l) => l.version);
}

/**
 * Folders under a log root that are not experiments: the companions' records (with 0.0.4's
 * persistent `<id>.lock` files, ajet/utils/smart_daemon.py:246), Hydra's run folders
 * (`hydra.run.dir`, ajet/default_config/ajet_default.yaml:395) and SwanLab's default log folder
 * (`SWANLAB_LOG_DIR`, ajet/utils/core_env_vars.py:45).
 */
export const NOT_EXPERIMENTS: ReadonlySet<string> = new Set(['companion_logs', 'hydra_outputs', 'swanlog']);

/**
 * The layout of the AgentJet whose code this is, read from its own source (never assumed from a
 * version number): `readFile(rel)` gives a file of the package folder (`.../ajet`), or undefined.
 * 0.0.4 passes the experiment folder to `init_parallel_rollout_logger` (ajet/backbone/warm_up.py:18);
 * January's took the experiment name. Undefined when the code says neither.
 */
export function layoutOfPackageCode(readFile: (rel: string) => string | undefined): LayoutVersion | undefined {
  const warmUp = readFile('backbone/warm_up.py');
  if (warmUp === undefined) return undefined;
  const m = /def\s+init_parallel_rollout_logger\s*\(\s*(\w+)/.exec(warmUp);
  if (!m) return undefined;
  return m[1] === 'experiment_dir' ? 'agentjet-0.0.4' : 'agentjet';
}

/** `<stem>_<YYYYmmdd_HHMMSS_mmm>`: a name only 0.0.4's read_yaml_name gives. */
export const MILLISECOND_NAME = /_\d{8}_\d{6}_\d{3}$/;

/**
 * Which AgentJet generation wrote a run whose snapshot is `ajet:`: 0.0.4 when its name carries the
 * millisecond stamp or its resolved snapshot has a key only 0.0.4's defaults define
 * (`enable_interchange_server`, `enable_swarm_mode`: ajet/default_config/ajet_default.yaml:348,350;
 * January had `enable_experimental_interchange_server`).
 */
export function layoutOfRun(name: string, snapshotText: string | undefined): 'agentjet' | 'agentjet-0.0.4' {
  if (MILLISECOND_NAME.test(name)) return 'agentjet-0.0.4';
  if (snapshotText && /^[ \t]+(enable_interchange_server|enable_swarm_mode)[ \t]*:/m.test(snapshotText)) return 'agentjet-0.0.4';
  return 'agentjet';
}

/** Modules beast-logger registers in every generation (a host-less session holds these directly). */
export const LOGGER_MODULES: ReadonlySet<string> = new Set([
  'regular',
  'rollout',
  'evaluation',
  'exception',
  'benchmark',
  'token_clip',
  'bad_case',
  'env_clip',
  'trajectory',
]);

/**
 * Whether a session folder's subfolders are logger modules (a host-less layout: ASTuner Nov 2025,
 * ASTune) rather than host folders. Decided from the folder itself, so mixed trees read right.
 */
export function isHostlessSession(subfolders: readonly string[], files: readonly string[]): boolean {
  return files.includes('.logger_lock') || subfolders.some((n) => HOSTLESS_MARKERS.has(n));
}

/** Module folders that beast-logger always creates (regular) or AgentJet always registers. */
const HOSTLESS_MARKERS: ReadonlySet<string> = new Set(['regular', 'rollout', 'evaluation', 'exception']);
