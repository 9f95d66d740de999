// The one place that decides whether a YAML text is an AgentJet / ASTuner / ASTune config, which
// dialect (root key and Python package) and which framework version wrote it, and the few facts
// other features read from it. Pure: no editor API, no file system.
//
// What the upstream trees show:
// - AgentJet (`ajet` package) reads `ajet:`; its workflow key is `rollout.user_workflow`.
// - ASTuner of December 2025 (`astuner` package, saved_experiments/) reads `astuner:` and
//   `rollout.agentscope_workflow`.
// - ASTuner of November 2025 (launcher_record/ era) reads `astuner:` and
//   `rollout.agentscope_learn_protocol` (with `use_agentscope_protocol`).
// - ASTune (`astune` package) reads `astune:` and `rollout.agentscope_learn_protocol`.
// Hydra loads the whole YAML; the framework only looks at the mapping under its root key.
import { parseDocument, isMap, isScalar, type Document, type Node } from 'yaml';
import type { Family } from '../protocol/config';

/** The root key of a config, which is also the Python package that reads it. */
export type Dialect = 'ajet' | 'astuner' | 'astune';

/** Every root key, newest first. */
export const DIALECTS: readonly Dialect[] = ['ajet', 'astuner', 'astune'];

/**
 * The two generations the config schema distinguishes (`x-dialect` in schemas/agentjet.schema.json):
 * AgentJet, and the ASTuner era (ASTuner and ASTune, which share key names).
 */
export type { Family };

/** Framework versions with a different config contract or run layout. */
export type FrameworkVersion = 'agentjet' | 'astuner-2025-12' | 'astuner-2025-11' | 'astune';

export const FRAMEWORK_VERSIONS: readonly FrameworkVersion[] = ['agentjet', 'astuner-2025-12', 'astuner-2025-11', 'astune'];

export function isFrameworkVersion(v: unknown): v is FrameworkVersion {
  return typeof v === 'string' && (FRAMEWORK_VERSIONS as readonly string[]).includes(v);
}

export function familyOf(d: Dialect): Family {
  return d === 'ajet' ? 'agentjet' : 'astuner';
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
  // ASTune shipped no console script and no launcher inside its package: `python launcher.py` at
  // the checkout's root, found as the module `launcher` when the launch runs from there.
  astune: { script: 'astune', modules: ['launcher'] },
};

export function isDialect(v: unknown): v is Dialect {
  return v === 'ajet' || v === 'astuner' || v === 'astune';
}

/** Human name of a dialect's framework, for messages. */
export function frameworkName(d: Dialect | Family | FrameworkVersion): string {
  switch (d) {
    case 'ajet':
    case 'agentjet':
      return 'AgentJet';
    case 'astune':
      return 'ASTune';
    case 'astuner-2025-11':
      return 'ASTuner (November 2025)';
    case 'astuner-2025-12':
      return 'ASTuner (December 2025)';
    default:
      return 'ASTuner';
  }
}

/** The experiment folder (relative to the working directory) each version writes runs into. */
export function defaultExperimentDir(v: FrameworkVersion | Dialect): string {
  return v === 'astuner-2025-11' || v === 'astune' ? 'launcher_record' : 'saved_experiments';
}

/** The defaults file a Hydra `defaults:` list names in each dialect's tree. */
export function defaultsName(d: Dialect): string {
  return d === 'ajet' ? 'ajet_default' : 'astune_default';
}

export { findRootLine, looksLikeConfig, type RootLine } from './rootLine';

/** The root key of a parsed document's top mapping (first of ajet, astuner, astune present). */
export function rootKeyOf(doc: Document): Dialect | undefined {
  const top = doc.contents;
  if (!isMap(top)) return undefined;
  for (const item of top.items) {
    const k = isScalar(item.key) ? item.key.value : undefined;
    if (isDialect(k)) return k;
  }
  return undefined;
}

/**
 * Which framework version a config is written for. The root key decides the package; within ASTuner
 * the workflow key tells December (`agentscope_workflow`) from November 2025
 * (`agentscope_learn_protocol`). Without either, December (the later) is assumed.
 */
export function versionOf(dialect: Dialect, rolloutKeys: Iterable<string> = []): FrameworkVersion {
  if (dialect === 'ajet') return 'agentjet';
  if (dialect === 'astune') return 'astune';
  const keys = new Set(rolloutKeys);
  if (!keys.has('agentscope_workflow') && (keys.has('agentscope_learn_protocol') || keys.has('use_agentscope_protocol')))
    return 'astuner-2025-11';
  return 'astuner-2025-12';
}

/**
 * A file's place can tell the version the config text cannot: `launcher_record/` is where only
 * ASTuner of November 2025 (and ASTune) wrote run snapshots.
 */
export function versionFromPath(dialect: Dialect, path: string | undefined): FrameworkVersion | undefined {
  if (!path || dialect !== 'astuner') return undefined;
  return /(^|[\\/])launcher_record[\\/]/.test(path) ? 'astuner-2025-11' : undefined;
}

/** What launch planning, run matching and snapshots need to know about a config. */
export interface ConfigFacts {
  /** undefined: no root mapping under ajet/astuner/astune, not a config we launch. */
  dialect: Dialect | undefined;
  version: FrameworkVersion | undefined;
  /** `<root>.experiment_name` as written (may be `read_yaml_name` or hold `${...}`). */
  experimentName: string | undefined;
  /** `<root>.project_name`. */
  project: string | undefined;
  /** The workflow reference (`rollout.user_workflow`, or the ASTuner-era keys). */
  workflow: string | undefined;
  /** `<root>.debug.debug_vllm_port` (default 18000, as in ajet_default.yaml). */
  debugVllmPort: number;
  /** `<root>.trainer_common.checkpoint_base_dir` when it is a plain path. */
  checkpointBase: string | undefined;
  /**
   * The last training step the settings call for: verl's top-level `trainer.total_training_steps`
   * (trainer_verl.py ends at `global_steps >= total_training_steps`). AgentJet has no such key under
   * `trainer_common` (only `total_epochs` is converted), so nothing else is read.
   */
  totalSteps: number | undefined;
  /** `<root>.trainer_common.logger` when a plain string (swanlab, tensorboard ...). */
  logger?: string | undefined;
  /** Set when the text is not clean YAML (facts are still filled when readable) or holds no root mapping. */
  error?: string;
}

export const DEFAULT_VLLM_PORT = 18000;

const NO_FACTS: Omit<ConfigFacts, 'error'> = {
  dialect: undefined,
  version: undefined,
  experimentName: undefined,
  project: undefined,
  workflow: undefined,
  debugVllmPort: DEFAULT_VLLM_PORT,
  checkpointBase: undefined,
  totalSteps: undefined,
};

/** The one YAML fact reader: launch plans, the run explorer and snapshots all use it. */
export function readConfigFacts(text: string): ConfigFacts {
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { uniqueKeys: false });
  } catch (err) {
    return { ...NO_FACTS, error: `unreadable YAML: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}` };
  }
  // Broken YAML still yields what can be read (a launch reports the error itself), with `error` set.
  const broken = doc.errors.length ? `unreadable YAML: ${doc.errors[0]?.message.split('\n')[0] ?? ''}` : undefined;
  if (!isMap(doc.contents)) return { ...NO_FACTS, error: broken ?? 'not a YAML mapping' };
  let dialect: Dialect | undefined;
  for (const d of DIALECTS)
    if (isMap(doc.contents.get(d, true))) {
      dialect = d;
      break;
    }
  if (!dialect) return { ...NO_FACTS, error: broken ?? 'no ajet:/astuner:/astune: section' };
  const root = dialect;
  const scalar = (path: string[]): unknown => {
    let node: unknown;
    try {
      node = doc.getIn([root, ...path], true);
    } catch {
      return undefined;
    }
    return isScalar(node as Node) ? (node as { value: unknown }).value : undefined;
  };
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
  const rollout = doc.getIn([root, 'rollout'], true);
  const rolloutKeys = isMap(rollout) ? rollout.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')) : [];
  const workflow = [
    ['rollout', 'user_workflow'],
    ['rollout', 'agentscope_workflow'],
    ['rollout', 'agentscope_learn_protocol'],
  ]
    .map((p) => scalar(p))
    .find((v): v is string => typeof v === 'string');
  const port = scalar(['debug', 'debug_vllm_port']);
  const portNum = typeof port === 'number' ? port : typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : NaN;
  const base = str(scalar(['trainer_common', 'checkpoint_base_dir']));
  let verlSteps: unknown;
  try {
    const n = doc.getIn(['trainer', 'total_training_steps'], true);
    verlSteps = isScalar(n as Node) ? (n as { value: unknown }).value : undefined;
  } catch {
    /* absent */
  }
  const totalSteps = [verlSteps].find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0);
  const logger = str(scalar(['trainer_common', 'logger']));
  return {
    dialect,
    version: versionOf(dialect, rolloutKeys),
    experimentName: str(scalar(['experiment_name'])),
    project: str(scalar(['project_name'])),
    workflow,
    debugVllmPort: Number.isInteger(portNum) && portNum > 0 && portNum < 65536 ? portNum : DEFAULT_VLLM_PORT,
    checkpointBase: base && !base.includes('${') ? base : undefined,
    totalSteps,
    ...(logger !== undefined ? { logger } : {}),
    ...(broken ? { error: broken } : {}),
  };
}

/** An experiment name usable as written: plain, no interpolation. */
export function literalExperimentName(name: string | undefined): string | undefined {
  const n = name?.trim();
  return n && !n.includes('${') ? n : undefined;
}
