// One launcher lifecycle for the debug adapter, the tasks and the CodeLens: plan (config, version,
// interpreter, environment), preflight (debugpy, the launcher the installed package really has,
// the vLLM port for debug launches), the command line, and what Stop must spare. Pure of the
// editor API; the spawn itself stays with each caller (debugpy's launcher or a task terminal).
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { layoutOfPackageCode, type LayoutVersion } from '../agentjet/layout';
import { reusedCompanionPgids } from '../agentjet/portHolder';
import { lintForLaunch } from './judge';
import { stackDumpEnv } from './stackHook';
import { mergedEnv, type ResolvedLaunch } from './attributes';
import { companionsOf, type Companion } from './companions';
import { whichSync } from '../process/resolveInterpreter';
import {
  LAUNCHER_ENTRIES,
  consoleScriptBeside,
  describeTarget,
  launcherArgs,
  readConfigFacts,
  targetArgs,
  usesVllmPort,
  type CommandLine,
  type ConfigFacts,
  type Dialect,
  type LauncherTarget,
} from './plan';
import { installHint } from './preflight';
import { checkForLaunch } from '../doctor/preflight';
import type { Check, ProbeFacts } from '../doctor/checks';
import { LAUNCH_ERRORS } from '../protocol/debug';
import { t } from '../l10n';

/** Why a launch was refused; the editor offers the matching action (pick an interpreter, copy the install command). */
export type RefusalKind = 'args' | 'config' | 'notAgentJet' | 'python' | 'debugpy' | 'framework' | 'port';

export interface Refusal {
  /** DAP error id (LAUNCH_ERRORS). */
  code: number;
  kinds: RefusalKind[];
  message: string;
  /** `<python> -m pip install --upgrade "debugpy>=1.8.0"` when debugpy is missing. */
  installCommand?: string;
  /**
   * The port is held by AgentJet's companion of another folder: the editor offers to stop it (its
   * process group) or reuse it (the launch again with AGENTJET_REUSE_COMPANION=<pgid>).
   */
  portCompanion?: { pid: number; pgid: number; what: string; cwd?: string };
}

export interface LaunchPlan {
  launch: ResolvedLaunch;
  facts: ConfigFacts & { dialect: Dialect };
  env: NodeJS.ProcessEnv;
  /** The version's console script beside the interpreter, when installed. */
  consoleScript: string | undefined;
}

export type Planned = { ok: true; plan: LaunchPlan } | { ok: false; refusal: Refusal };

const refuse = (code: number, kinds: RefusalKind[], message: string, installCommand?: string): { ok: false; refusal: Refusal } => ({
  ok: false,
  refusal: { code, kinds, message, ...(installCommand ? { installCommand } : {}) },
});

/** Config errors, AgentJet root, interpreter: what needs no Python process. */
export async function planLaunch(r: ResolvedLaunch, opts: { lint?: boolean; stacks?: boolean } = {}): Promise<Planned> {
  if (!r.config)
    return refuse(LAUNCH_ERRORS.args, ['args'], t('The launch configuration has no "config" (the AgentJet YAML file to run).'));
  if (opts.lint !== false) {
    // Class references resolve from where the launcher will run.
    const problems = (await lintForLaunch(r.config, r.cwd, r.python)).filter((d) => d.severity === 'error');
    if (problems.length) {
      const list = problems
        .slice(0, 10)
        .map((d) => `  ${t('line {0}: {1}', d.range.start.line + 1, d.message)}`)
        .join('\n');
      return refuse(
        LAUNCH_ERRORS.config,
        ['config'],
        t('{0} has {1} error(s); nothing was started. Fix them first (see Problems):\n{2}', r.config, problems.length, list),
      );
    }
  }
  let text = '';
  try {
    text = readFileSync(r.config, 'utf8');
  } catch {
    /* lint reported it */
  }
  const facts = readConfigFacts(text);
  if (!facts.dialect)
    return refuse(
      LAUNCH_ERRORS.notAgentJet,
      ['notAgentJet'],
      t('{0} is not an AgentJet config (no ajet: or astuner: root key).', r.config),
    );
  const env = mergedEnv(r);
  const exists = (p: string): boolean => existsSync(p);
  if (!whichSync(r.python, exists, env.PATH ?? '')) {
    return refuse(
      LAUNCH_ERRORS.python,
      ['python'],
      t(
        'The Python interpreter "{0}" does not exist. Set agentjet.pythonPath (or "python" in launch.json) to an environment with AgentJet installed.',
        r.python,
      ),
    );
  }
  // Show Stacks without py-spy: faulthandler on SIGUSR1 in every Python process of the launch (stackHook.ts).
  if (opts.stacks !== false) Object.assign(env, await stackDumpEnv(env));
  return {
    ok: true,
    plan: {
      launch: r,
      facts: { ...facts, dialect: facts.dialect },
      env,
      consoleScript: consoleScriptBeside(r.python, facts.dialect, exists),
    },
  };
}

/** What the probe saw that the launch uses: the interpreter, its debugpy, the port. */
export interface ProbeSummary {
  python: string;
  version: string;
  debugpy: string | null;
  port: ProbeFacts['port'];
}

export type Preflighted =
  | {
      ok: true;
      target: LauncherTarget;
      warnings: string[];
      companions: Companion[];
      probe: ProbeSummary;
      /**
       * The run layout of the AgentJet being launched, read from its own code (agentjet or
       * agentjet-0.0.4; undefined for other dialects or when its code says neither).
       */
      layout?: LayoutVersion;
    }
  | { ok: false; refusal: Refusal };

/**
 * The layout of the installed AgentJet a launcher file belongs to: the `ajet` package folder above
 * it (`ajet/launcher.py`, `ajet/cli/launcher.py`), read by core/agentjet/layout.ts.
 */
export function layoutOfLauncherFile(file: string, read: (p: string) => string | undefined = tryRead): LayoutVersion | undefined {
  let dir = dirname(file);
  for (let i = 0; i < 3 && basename(dir) !== 'ajet'; i++) dir = dirname(dir);
  if (basename(dir) !== 'ajet') return undefined;
  return layoutOfPackageCode((rel) => read(join(dir, rel)));
}

function tryRead(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * ISOLATED_AGENTJET_BASE_DIR as the launch's environment sets it (0.0.4 runs its child there and
 * asserts that `<dir>/ajet` exists: ajet/utils/launch_utils.py:424-428), resolved against the cwd.
 */
export function isolatedBaseDir(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const v = env.ISOLATED_AGENTJET_BASE_DIR;
  return v ? resolve(cwd, v) : undefined;
}

const KIND_OF: Partial<Record<Check['id'], RefusalKind>> = {
  python: 'python',
  framework: 'framework',
  launcher: 'framework',
  debugpy: 'debugpy',
  port: 'port',
  verl: 'framework',
  trinity: 'framework',
  swanlab: 'config',
};

/**
 * One probe of the interpreter, judged by the environment checks (the doctor's, core/doctor):
 * the verdict and the launcher to start.
 */
export async function preflightLaunch(plan: LaunchPlan, wantDebugpy: boolean, opts: { signal?: AbortSignal } = {}): Promise<Preflighted> {
  const r = plan.launch;
  const checkPort = usesVllmPort(r.backbone);
  // With ISOLATED_AGENTJET_BASE_DIR the child (which starts the vLLM companion) runs there.
  const isolated = isolatedBaseDir(r.cwd, plan.env);
  const companions = checkPort ? [...companionsOf(r.cwd), ...(isolated ? companionsOf(isolated) : [])].filter((c) => c.alive) : [];
  const candidates = LAUNCHER_ENTRIES[plan.facts.dialect].modules;
  const res = await checkForLaunch({
    python: r.python,
    cwd: r.cwd,
    env: plan.env,
    port: checkPort ? plan.facts.debugVllmPort : 0,
    wantDebugpy,
    launch: {
      candidates,
      consoleScript: plan.consoleScript,
      companionPgids: companions.map((c) => c.pgid),
      portKey: `${plan.facts.dialect}.debug.debug_vllm_port`,
      reusePgids: reusedCompanionPgids(plan.env),
      backbone: r.backbone,
      ...(plan.facts.logger ? { logger: plan.facts.logger } : {}),
      config: { path: r.config, root: plan.facts.dialect },
      swanlabKey: !!plan.env.SWANLAB_API_KEY,
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!res.probe.ok) return refuse(LAUNCH_ERRORS.python, ['python'], res.probe.error);
  const facts = res.probe.facts;
  if (res.blocking.length) {
    const kinds = [...new Set(res.blocking.map((c) => KIND_OF[c.id]).filter((k): k is RefusalKind => !!k))];
    const refused = refuse(
      LAUNCH_ERRORS.preflight,
      kinds,
      t('Cannot start {0}; nothing was started:\n{1}', r.config, res.blocking.map((c) => `- ${c.detail}`).join('\n')),
      // The same install advice as Check Environment (core/doctor/install.ts), ready to copy.
      res.blocking.find((c) => c.fix?.kind === 'shell')?.fix?.value ?? (kinds.includes('debugpy') ? installHint(facts.python) : undefined),
    );
    const pc = res.portCompanion;
    if (pc && kinds.includes('port'))
      refused.refusal.portCompanion = { pid: pc.pid, pgid: pc.pgid, what: pc.what, ...(pc.cwd ? { cwd: pc.cwd } : {}) };
    return refused;
  }
  const module = candidates.find((c) => facts.launchers?.[c]?.file);
  const target: LauncherTarget = plan.consoleScript ? { kind: 'script', path: plan.consoleScript } : { kind: 'module', module: module! };
  const launcherFile = module ? facts.launchers?.[module]?.file : undefined;
  const layout = plan.facts.dialect === 'ajet' && launcherFile ? layoutOfLauncherFile(launcherFile) : undefined;
  // 0.0.4's parse_args has no --reboot (January's had it: ajet/launcher.py:87); argparse would stop.
  if (layout === 'agentjet-0.0.4' && (r.args ?? []).includes('--reboot'))
    return refuse(
      LAUNCH_ERRORS.preflight,
      ['args'],
      t(
        'Cannot start {0}; nothing was started:\n- AgentJet 0.0.4 has no --reboot option (it was removed after January 2026): remove it from "args".',
        r.config,
      ),
    );
  if (layout === 'agentjet-0.0.4' && isolated && !existsSync(join(isolated, 'ajet')))
    return refuse(
      LAUNCH_ERRORS.preflight,
      ['args'],
      t(
        'Cannot start {0}; nothing was started:\n- ISOLATED_AGENTJET_BASE_DIR is {1}, which has no ajet folder: AgentJet 0.0.4 runs its training process there and stops at once.',
        r.config,
        isolated,
      ),
    );
  const dbg = facts.packages.debugpy;
  return {
    ok: true,
    target,
    warnings: res.warnings.map((c) => c.detail),
    companions,
    probe: { python: facts.python, version: facts.version, debugpy: dbg?.found ? (dbg.version ?? '0') : null, port: facts.port },
    ...(layout ? { layout } : {}),
  };
}

/** `<python> <script|-m module> <launcher args>`. */
export function commandLine(
  plan: LaunchPlan,
  target: LauncherTarget,
  extra: { withRay?: boolean; withRayCluster?: boolean; debugTags?: readonly string[] | string } = {},
): CommandLine {
  const r = plan.launch;
  return {
    command: r.python,
    args: [...targetArgs(target), ...launcherArgs({ config: r.config, backbone: r.backbone, args: r.args, ...extra })],
  };
}

export { describeTarget };

/**
 * Process groups Stop spares: the companions of this working directory (and of the child's, with
 * ISOLATED_AGENTJET_BASE_DIR in `env`), unless autokill.
 */
export function sparedGroups(cwd: string, autokill: boolean, env: NodeJS.ProcessEnv = process.env): number[] {
  if (autokill) return [];
  const isolated = isolatedBaseDir(cwd, env);
  return [...companionsOf(cwd), ...(isolated ? companionsOf(isolated) : [])].map((c) => c.pgid);
}

/**
 * AgentJet's `--autokill` (and `--kill python`) ends every process whose command line has `python`
 * and lacks `vscode` (ajet/utils/cleaner.py, fast_kill_by_keyword_bash, exclude_substrings). Our
 * debugpy adapter and debugpy's launcher process run under Python too: their command lines carry
 * this marker so the launcher spares them (VS Code's own Python debugger is spared the same way,
 * its path holds `.vscode`).
 */
export const AUTOKILL_GUARD = 'agentjet-vscode';
