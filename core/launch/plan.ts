// Launch planning: which launcher module, which command line, where the run folders go.
// Pure: no editor API, no processes.
import { readConfigFacts as readFacts, looksLikeConfig, defaultExperimentDir, literalExperimentName, DEFAULT_VLLM_PORT, type Dialect } from '../agentjet/dialect';

export type { Dialect } from '../agentjet/dialect';
export { DEFAULT_VLLM_PORT };
export type Backbone = 'debug' | 'verl' | 'trinity';
export const BACKBONES: readonly Backbone[] = ['debug', 'verl', 'trinity'];

/** What the launch plan needs to know about a config file (see core/agentjet/dialect.ts). */
export interface ConfigFacts {
  /** undefined: no AgentJet root key, not a config we launch. */
  dialect: Dialect | undefined;
  /** `<root>.experiment_name`, when set to a plain string. */
  experimentName: string | undefined;
  /** `<root>.debug.debug_vllm_port` (default 18000, as in ajet_default.yaml). */
  debugVllmPort: number;
}

/** Cheap check used for context keys and CodeLens: a top-level `ajet:`/`astuner:`/`astune:` line. */
export function looksLikeAgentJetConfig(text: string): boolean {
  return looksLikeConfig(text);
}

export function readConfigFacts(text: string): ConfigFacts {
  const f = readFacts(text);
  return { dialect: f.dialect, experimentName: literalExperimentName(f.experimentName), debugVllmPort: f.debugVllmPort };
}

/** `python -m <module>` for each dialect. */
export function launcherModule(dialect: Dialect): string {
  return dialect === 'ajet' ? 'ajet.launcher' : 'astuner.launcher';
}

/** The folder (relative to cwd) a launch writes to unless `--exp-dir` says otherwise. */
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
  const tags = typeof o.debugTags === 'string' ? o.debugTags.split(/[|,\s]+/) : o.debugTags ?? [];
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

export interface CommandLine { command: string; args: string[] }

export function launcherCommand(python: string, dialect: Dialect, o: LauncherOptions): CommandLine {
  return { command: python, args: ['-m', launcherModule(dialect), ...launcherArgs(o)] };
}

/** Quotes one argument for a POSIX shell (for display and shell tasks). */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
