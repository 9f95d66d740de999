// What the doctor's checks read and return (pure): the probe's facts, a launch's context, the
// findings, and the fixes a finding offers. The checks themselves are in checks.ts and hostChecks.ts.
import { t } from '../l10n';
import type { ImportOutcome } from './importProbe';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  debugpyInstallCommand,
  declaresExtra,
  frameworkInstallCommand,
  olderCheckoutOf,
  olderExtraInstallCommand,
  olderRequirementsInstallCommand,
  pipInstallCommand,
  type Backbone,
  type FrameworkInstall,
} from './install';
import { LAUNCHER_ENTRIES } from '../agentjet/dialect';
import { type PortCompanion } from '../agentjet/portHolder';
import type { AgentJetGates } from '../diagnose/gates';

export type Status = 'ok' | 'warning' | 'error' | 'info';

export interface Fix {
  /** shell: a command to copy and run; setting: a setting id to open; command: a VS Code command id. */
  kind: 'shell' | 'setting' | 'command';
  value: string;
  label: string;
}

export interface Check {
  id: 'python' | 'framework' | 'launcher' | 'debugpy' | 'vllm' | 'verl' | 'trinity' | 'ray' | 'gpu' | 'port' | 'trust' | 'swanlab';
  title: string;
  status: Status;
  detail: string;
  fix?: Fix;
  /** An error that stops every launch (the user's AgentJet refuses it whatever the launch does). */
  blocking?: boolean;
  /** A warning a launch prints and goes on with (a backbone package slow to import). */
  launchWarning?: boolean;
}

export interface PackageFacts {
  module: string;
  found: boolean;
  version: string | null;
  location: string | null;
  launcher: string | null;
  error: string | null;
}

/** What probe.py prints after `AGENTJET_DOCTOR `. */
export interface ProbeFacts {
  python: string;
  version: string;
  venv: boolean;
  packages: Record<string, PackageFacts | undefined>;
  /** The launcher modules asked for (probe argv), each found (its file) or not (why). */
  launchers?: Record<string, { file: string | null; error: string | null } | undefined>;
  /** port 0: not checked. The holder is the listening process (Linux /proc), when known. */
  port: { port: number; inUse: boolean; holderPid?: number | null; holderPgid?: number | null; holderArgs?: string | null };
}

/** What a launch adds to the checks: its launcher candidates, console script, debugpy need, companions. */
export interface LaunchContext {
  /** LAUNCHER_ENTRIES[dialect].modules, in order. */
  candidates: readonly string[];
  /** The version's console script beside the interpreter: it starts the launcher, no module needed. */
  consoleScript?: string | undefined;
  /** Process groups of our live companions: holding the port is fine for them. */
  companionPgids: readonly number[];
  /** The config key of the port, for the message (`ajet.debug.debug_vllm_port`). */
  portKey: string;
  /** Companions of other folders the user chose to reuse (AGENTJET_REUSE_COMPANION): their port is fine. */
  reusePgids?: readonly number[];
  /** The launch's `--backbone` (verl, trinity, debug). */
  backbone?: string;
  /** The config's `<root>.trainer_common.logger` (as written; the preflight resolves it through the defaults). */
  logger?: string;
  /** Set when `logger` is inherited: the defaults file that sets it (AgentJet's ajet_default.yaml). */
  loggerFrom?: string;
  /** The launched config and its root key, for the logger its defaults list gives. */
  config?: { path: string; root: string };
  /** SWANLAB_API_KEY is set (not empty) in the launch's environment. */
  swanlabKey?: boolean;
}

/** Every launcher module of every version, for the doctor's probe (it has no config to choose by). */
export const ALL_LAUNCHER_MODULES: readonly string[] = [...new Set(Object.values(LAUNCHER_ENTRIES).flatMap((e) => e.modules))];

export interface GpuFacts {
  /** nvidia-smi was found and answered. */
  available: boolean;
  gpus: Array<{ name: string; memoryMiB: number | null }>;
  /** Why there is no answer (not installed, driver error…). */
  error: string | null;
}

export interface DoctorInput {
  /** The interpreter asked for (path or command) and where it came from (a setting, the Python extension…). */
  python: string;
  pythonSource?: string;
  probe: { ok: true; facts: ProbeFacts } | { ok: false; error: string };
  gpu: GpuFacts;
  /** undefined outside VS Code (CLI). */
  trusted?: boolean;
  /** A companion (vLLM server) of ours holds the port: not a problem. */
  portHeldByCompanion?: boolean;
  /**
   * The port's holder recognised as one of AgentJet's companions started elsewhere (null: looked,
   * it is not). Default: looked up from the probe's holder (core/agentjet/portHolder.ts).
   */
  portCompanion?: PortCompanion | null;
  /** The backbone packages imported for real before a launch (core/doctor/importProbe.ts). */
  imports?: { outcomes: Record<string, ImportOutcome | undefined>; deadlineMs: number };
  /** Set for a launch preflight: the launcher is judged for this config, a port held by a stranger is an error. */
  launch?: LaunchContext;
  /** The working folder when it is a clone of AgentJet (install advice then runs there). */
  checkout?: string | undefined;
  /** The probed AgentJet's own gates (verify_python_env, check_debugpy_version), read from its code. */
  gates?: AgentJetGates;
}

export const MIN_PYTHON = [3, 10] as const;
export const MAX_PYTHON_EXCLUSIVE = [3, 13] as const;
export const MIN_DEBUGPY = '1.8.0';

// Labels are made when a check is (not at module load): the display language is set by then.
export const pipFix = (python: string, spec: string): Fix => ({
  kind: 'shell',
  value: pipInstallCommand(python, spec),
  label: t('Install'),
});
/** AgentJet as its installation guide says (core/doctor/install.ts), with the backbone extra. */
export const frameworkFix = (python: string, o: FrameworkInstall = {}): Fix => ({
  kind: 'shell',
  value: frameworkInstallCommand(python, o),
  label: o.checkout ? t('Install in the AgentJet checkout') : t('Install from a clone of AgentJet'),
});

/** `{ fix }` when there is one (for spreading into a Check). */
export const optionalFix = (fix: Fix | undefined): { fix?: Fix } => (fix ? { fix } : {});

/** Pip's names of the backbone packages (a plain install when nothing better is known). */
const PIP_NAME = { verl: 'verl', trinity: 'trinity-rft', vllm: 'vllm' } as const;

/**
 * The fix for a backbone package (verl, trinity, vLLM) by the framework the interpreter has: AgentJet
 * (or none) as AgentJet's guide says; an ASTuner/ASTune install from its own checkout (its extra,
 * else its scripts/requirements_<backbone>.txt), else pip's package for a missing one. An older
 * framework's environment is never offered AgentJet's install. Undefined: nothing safe to offer.
 */
export function backboneFix(
  python: string,
  f: ProbeFacts,
  checkout: string | undefined,
  backbone: Backbone,
  missing?: keyof typeof PIP_NAME,
): Fix | undefined {
  const older = f.packages.ajet?.found ? undefined : [f.packages.astuner, f.packages.astune].find((p) => p?.found);
  if (!older) return frameworkFix(python, { checkout, backbone });
  const ck = olderCheckoutOf(older.location);
  const label = t('Install in the ASTuner checkout');
  if (ck && declaresExtra(ck, backbone)) return { kind: 'shell', value: olderExtraInstallCommand(python, ck, backbone), label };
  const req = ck ? join('scripts', `requirements_${backbone}.txt`) : undefined;
  if (ck && req && existsSync(join(ck, req))) return { kind: 'shell', value: olderRequirementsInstallCommand(python, ck, req), label };
  return missing ? pipFix(python, PIP_NAME[missing]) : undefined;
}

/** `<python> -m pip install --upgrade "debugpy>=1.8.0"`: the command the refusal's Copy Install Command copies. */
export function installHint(python: string): string {
  return debugpyInstallCommand(python, MIN_DEBUGPY);
}
export const pythonSetting = (): Fix => ({ kind: 'setting', value: 'agentjet.pythonPath', label: t('Choose the interpreter') });

export function pkgLine(p: PackageFacts): string {
  const v = p.version ? ` ${p.version}` : '';
  return `${p.module}${v}${p.location ? ` (${p.location})` : ''}`;
}
