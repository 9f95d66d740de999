// Launch planning: which launcher module, which command line, where the run folders go.
// Pure: no editor API, no processes.
import { parseDocument, isMap, isScalar, type Document } from 'yaml';

export type Dialect = 'ajet' | 'astuner';
export type Backbone = 'debug' | 'verl' | 'trinity';
export const BACKBONES: readonly Backbone[] = ['debug', 'verl', 'trinity'];

/** What the launch plan needs to know about a config file. */
export interface ConfigFacts {
  /** undefined: no AgentJet root key, not a config we launch. */
  dialect: Dialect | undefined;
  /** `<root>.experiment_name`, when set to a plain string. */
  experimentName: string | undefined;
  /** `<root>.debug.debug_vllm_port` (default 18000, as in ajet_default.yaml). */
  debugVllmPort: number;
}

export const DEFAULT_VLLM_PORT = 18000;

/** Root keys by dialect; `astune:` is the oldest spelling of the ASTuner root. */
const ROOTS: readonly (readonly [string, Dialect])[] = [['ajet', 'ajet'], ['astuner', 'astuner'], ['astune', 'astuner']];

/** Cheap check used for context keys and CodeLens: a top-level `ajet:`/`astuner:`/`astune:` line. */
export function looksLikeAgentJetConfig(text: string): boolean {
  return /^(ajet|astuner|astune):[ \t]*(#.*)?$/m.test(text.length > 200_000 ? text.slice(0, 200_000) : text);
}

export function readConfigFacts(text: string): ConfigFacts {
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { uniqueKeys: false });
  } catch {
    return { dialect: undefined, experimentName: undefined, debugVllmPort: DEFAULT_VLLM_PORT };
  }
  const top = doc.contents;
  let dialect: Dialect | undefined;
  let rootKey = '';
  if (isMap(top)) {
    for (const [key, d] of ROOTS) {
      if (isMap(top.get(key, true))) { dialect = d; rootKey = key; break; }
    }
  }
  const scalar = (path: string[]): unknown => {
    const node = doc.getIn([rootKey, ...path], true);
    return isScalar(node) ? node.value : undefined;
  };
  const name = dialect ? scalar(['experiment_name']) : undefined;
  const port = dialect ? scalar(['debug', 'debug_vllm_port']) : undefined;
  const portNum = typeof port === 'number' ? port : typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : NaN;
  return {
    dialect,
    experimentName: typeof name === 'string' && name.trim() && !name.includes('${') ? name.trim() : undefined,
    debugVllmPort: Number.isInteger(portNum) && portNum > 0 && portNum < 65536 ? portNum : DEFAULT_VLLM_PORT,
  };
}

/**
 * Where each version's launcher lives. The console script is what `pip install` puts beside the
 * interpreter (`[project.scripts]` in pyproject.toml: AgentJet `ajet = "ajet.launcher:main"`,
 * ASTuner `astuner = "astuner.cli.launcher:main"`); without one, the first of `modules` the
 * installed package really has (probed, never assumed): `ajet.launcher` (AgentJet 2026),
 * `ajet.cli.launcher` (AgentJet at 9d6a649), `astuner.cli.launcher` (ASTuner; there never was an
 * `astuner.launcher`).
 */
export const LAUNCHER_ENTRIES: Record<Dialect, { script: string; modules: readonly string[] }> = {
  ajet: { script: 'ajet', modules: ['ajet.launcher', 'ajet.cli.launcher'] },
  astuner: { script: 'astuner', modules: ['astuner.cli.launcher'] },
};

/** How the launcher is started: its console script run by the interpreter, or `-m <module>`. */
export type LauncherTarget = { kind: 'script'; path: string } | { kind: 'module'; module: string };

/** The console script beside `python` (same folder, not following symlinks), if there is one. */
export function consoleScriptBeside(python: string, dialect: Dialect, exists: (p: string) => boolean, platform: NodeJS.Platform = process.platform): string | undefined {
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
  return dialect === 'astuner' ? 'launcher_record' : 'saved_experiments';
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

export function launcherCommand(python: string, target: LauncherTarget, o: LauncherOptions): CommandLine {
  return { command: python, args: [...targetArgs(target), ...launcherArgs(o)] };
}

/** Whether a launch of this backbone uses the vLLM port (only the debug backbone starts vLLM). */
export function usesVllmPort(backbone: Backbone): boolean {
  return backbone === 'debug';
}

/** Quotes one argument for a POSIX shell (for display and shell tasks). */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
