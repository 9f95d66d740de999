// Launch planning: which launcher module, which command line, where the run folders go.
// Pure: no editor API, no processes.
import {
  readConfigFacts as readFacts,
  looksLikeConfig,
  defaultExperimentDir,
  literalExperimentName,
  DEFAULT_VLLM_PORT,
  LAUNCHER_ENTRIES,
  type Dialect,
} from '../agentjet/dialect';

export type { Dialect } from '../agentjet/dialect';
export { DEFAULT_VLLM_PORT, LAUNCHER_ENTRIES };
export type Backbone = 'debug' | 'verl' | 'trinity';

/** What the launch plan needs to know about a config file (see core/agentjet/dialect.ts). */
export interface ConfigFacts {
  /** undefined: no AgentJet root key, not a config we launch. */
  dialect: Dialect | undefined;
  /** `<root>.experiment_name`, when set to a plain string. */
  experimentName: string | undefined;
  /** `<root>.debug.debug_vllm_port` (default 18000, as in ajet_default.yaml). */
  debugVllmPort: number;
  /** `<root>.trainer_common.logger`, when written as a plain string. */
  logger?: string | undefined;
}

/** Cheap check used for context keys and CodeLens: a top-level `ajet:`/`astuner:`/`astune:` line. */
export function looksLikeAgentJetConfig(text: string): boolean {
  return looksLikeConfig(text);
}

export function readConfigFacts(text: string): ConfigFacts {
  const f = readFacts(text);
  return {
    dialect: f.dialect,
    experimentName: literalExperimentName(f.experimentName),
    debugVllmPort: f.debugVllmPort,
    ...(f.logger ? { logger: f.logger } : {}),
  };
}

/** How the launcher is started: its console script run by the interpreter, or `-m <module>`. */
export type LauncherTarget = { kind: 'script'; path: string } | { kind: 'module'; module: string };

/** The console script beside `python` (same folder, not following symlinks), if there is one. */
export function consoleScriptBeside(
  python: string,
  dialect: Dialect,
  exists: (p: string) => boolean,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (!/[\\/]/.test(python)) return undefined; // a bare `python3` from PATH: no folder to look in
  const dir = python.replace(/[\\/][^\\/]*$/, '');
  const name = LAUNCHER_ENTRIES[dialect].script;
  for (const candidate of platform === 'win32' ? [`${name}-script.py`] : [name]) {
    const p = `${dir}/${candidate}`;
    if (exists(p)) return p;
  }
  return undefined;
}

/** `<python> <script> ...` or `<python> -m <module> ...`: the part before the launcher's own args. */
export function targetArgs(t: LauncherTarget): string[] {
  return t.kind === 'script' ? [t.path] : ['-m', t.module];
}

export function describeTarget(t: LauncherTarget): string {
  return t.kind === 'script' ? `console script ${t.path}` : `module ${t.module}`;
}

/**
 * The folders (relative to the launcher's working directory) AgentJet writes whatever
 * `--exp-dir` says: run logs (`ajet/backbone/warm_up.py`) and companions
 * (`ajet/utils/smart_daemon.py`) go to `saved_experiments/`; ASTuner of November 2025 used
 * `launcher_record/`. Only `yaml_backup.yaml` and `backup/` follow `--exp-dir`.
 */
export const FIXED_LOG_ROOTS: readonly string[] = ['saved_experiments', 'launcher_record'];

/**
 * The launcher's `--exp-dir` default (where `yaml_backup.yaml` goes): `saved_experiments` for
 * AgentJet and ASTuner since December 2025, `launcher_record` for ASTuner of November 2025. Both
 * dialect values share one spelling, so the caller checks which folder the run really used.
 */
export function defaultExpDir(dialect: Dialect): string {
  // Without the installed version, ASTuner keeps its November 2025 folder (launcher_record);
  // defaultExperimentDir(version) in core/agentjet/dialect.ts knows the per-version answer.
  return dialect === 'ajet' ? defaultExperimentDir('agentjet') : 'launcher_record';
}

export interface LauncherOptions {
  config: string;
  backbone?: Backbone;
  /** Extra launcher flags, e.g. `--with-appworld`. */
  args?: readonly string[];
  withRay?: boolean;
  withRayCluster?: boolean;
  /** Tags for `from ajet import bp; bp("TAG")` (Ray Distributed Debugger), joined with `|`. */
  debugTags?: readonly string[] | string;
  autokill?: boolean;
}

/** The launcher's own arguments (after `-m <module>`). */
export function launcherArgs(o: LauncherOptions): string[] {
  const out = ['--backbone', o.backbone ?? 'debug', '--conf', o.config];
  if (o.withRay) out.push('--with-ray');
  if (o.withRayCluster) out.push('--with-ray-cluster');
  const tags = typeof o.debugTags === 'string' ? o.debugTags.split(/[|,\s]+/) : (o.debugTags ?? []);
  const clean = tags.map((t) => t.trim()).filter(Boolean);
  if (clean.length) out.push('--debug', clean.join('|'));
  if (o.autokill) out.push('--autokill');
  out.push(...(o.args ?? []));
  return out;
}

/** `--exp-dir D` from extra args, else the dialect default. */
export function expDirFromArgs(args: readonly string[] | undefined, dialect: Dialect): string {
  const a = args ?? [];
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (v === '--exp-dir' && i + 1 < a.length) return a[i + 1]!;
    if (v.startsWith('--exp-dir=')) return v.slice('--exp-dir='.length);
  }
  return defaultExpDir(dialect);
}

export interface CommandLine {
  command: string;
  args: string[];
}

export function launcherCommand(python: string, target: LauncherTarget, o: LauncherOptions): CommandLine {
  return { command: python, args: [...targetArgs(target), ...launcherArgs(o)] };
}

/** Whether a launch of this backbone uses the vLLM port (only the debug backbone starts vLLM). */
export function usesVllmPort(backbone: Backbone): boolean {
  return backbone === 'debug';
}
