// Run-folder layout per AgentJet generation, as the real code writes it (one table, no guessing
// elsewhere). Sources: `ajet/backbone/warm_up.py`, `ajet/utils/config_utils.py`,
// `ajet/utils/smart_daemon.py` (AgentJet d20cce0); `astuner/backbone/warm_up.py` (ASTuner f9fab4f,
// Dec 2025); `astuner/backbone/common_warm_up.py` (ASTuner 61e9359, Nov 2025); ASTune ba24412p.

/** The generations whose files differ. Detection of the dialect/version lives in dialect.ts. */
export type LayoutVersion = 'agentjet' | 'astuner-2025-12' | 'astuner-2025-11' | 'astune';

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
  /** `experiment_name: read_yaml_name` (or none) gives `<stem>_<YYYYmmdd_HHMM>` (true) or `<stem>` (false). */
  timestampedName: boolean;
}

export const LAYOUTS: Readonly<Record<LayoutVersion, RunLayout>> = {
  agentjet: {
    version: 'agentjet',
    section: 'ajet',
    logRoot: 'saved_experiments',
    defaultExpDir: 'saved_experiments',
    hostFolder: true,
    timestampedName: true,
  },
  'astuner-2025-12': {
    version: 'astuner-2025-12',
    section: 'astuner',
    logRoot: 'saved_experiments',
    defaultExpDir: 'saved_experiments',
    hostFolder: true,
    timestampedName: true,
  },
  'astuner-2025-11': {
    version: 'astuner-2025-11',
    section: 'astuner',
    logRoot: 'launcher_record',
    defaultExpDir: 'launcher_record',
    hostFolder: false,
    timestampedName: false,
  },
  astune: {
    version: 'astune',
    section: 'astune',
    logRoot: 'launcher_record',
    defaultExpDir: 'launcher_record',
    hostFolder: false,
    timestampedName: false,
  },
};

export function layoutOf(version: LayoutVersion): RunLayout {
  return LAYOUTS[version];
}

/** The generations that may have written under a log root (`launcher_record` is ASTuner Nov 2025 or ASTune). */
export function versionsForLogRoot(root: 'saved_experiments' | 'launcher_record'): LayoutVersion[] {
  return (Object.values(LAYOUTS) as RunLayout[]).filter((l) => l.logRoot === root).map((l) => l.version);
}

/** Folders under a log root that are not experiments. */
export const NOT_EXPERIMENTS: ReadonlySet<string> = new Set(['companion_logs']);

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
