// Environment checks (pure): probe facts in, a list of findings with fixes out. The one set of
// checks of the extension: "AgentJet: Check Environment", `agentjet doctor`, and (with a
// LaunchContext, through core/doctor/preflight.ts) the preflight of F5, tasks and the CodeLens.
import { t } from '../l10n';
import { compareVersions } from '../process/version';
import { shellQuote } from '../process/quote';
import { checkoutOf, debugpyInstallCommand, frameworkInstallCommand, pipInstallCommand, type FrameworkInstall } from './install';
import { LAUNCHER_ENTRIES } from '../agentjet/dialect';
import { recognisePortHolder, type PortCompanion } from '../agentjet/portHolder';

export type Status = 'ok' | 'warning' | 'error' | 'info';

export interface Fix {
  /** shell: a command to copy and run; setting: a setting id to open; command: a VS Code command id. */
  kind: 'shell' | 'setting' | 'command';
  value: string;
  label: string;
}

export interface Check {
  id: 'python' | 'framework' | 'launcher' | 'debugpy' | 'vllm' | 'verl' | 'trinity' | 'ray' | 'gpu' | 'port' | 'trust';
  title: string;
  status: Status;
  detail: string;
  fix?: Fix;
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
  /** Set for a launch preflight: the launcher is judged for this config, a port held by a stranger is an error. */
  launch?: LaunchContext;
  /** The working folder when it is a clone of AgentJet (install advice then runs there). */
  checkout?: string | undefined;
}

export const MIN_PYTHON = [3, 10] as const;
export const MAX_PYTHON_EXCLUSIVE = [3, 13] as const;
export const MIN_DEBUGPY = '1.8.0';

// Labels are made when a check is (not at module load): the display language is set by then.
const pipFix = (python: string, spec: string): Fix => ({ kind: 'shell', value: pipInstallCommand(python, spec), label: t('Install') });
/** AgentJet as its installation guide says (core/doctor/install.ts), with the backbone extra. */
const frameworkFix = (python: string, o: FrameworkInstall = {}): Fix => ({
  kind: 'shell',
  value: frameworkInstallCommand(python, o),
  label: o.checkout ? t('Install in the AgentJet checkout') : t('Install from a clone of AgentJet'),
});

/** `<python> -m pip install --upgrade "debugpy>=1.8.0"`: the command the refusal's Copy Install Command copies. */
export function installHint(python: string): string {
  return debugpyInstallCommand(python, MIN_DEBUGPY);
}
const pythonSetting = (): Fix => ({ kind: 'setting', value: 'agentjet.pythonPath', label: t('Choose the interpreter') });

export { shellQuote, compareVersions };

function pkgLine(p: PackageFacts): string {
  const v = p.version ? ` ${p.version}` : '';
  return `${p.module}${v}${p.location ? ` (${p.location})` : ''}`;
}

/** Every check, in the order the report shows them. */
export function evaluate(input: DoctorInput): Check[] {
  const out: Check[] = [];
  if (!input.probe.ok) {
    out.push({ id: 'python', title: t('Python interpreter'), status: 'error', detail: input.probe.error, fix: pythonSetting() });
    out.push(gpuCheck(input.gpu));
    if (input.trusted !== undefined) out.push(trustCheck(input.trusted));
    return out;
  }
  const f = input.probe.facts;
  const py = f.python || input.python;
  const verOk = compareVersions(f.version, MIN_PYTHON.join('.')) >= 0 && compareVersions(f.version, MAX_PYTHON_EXCLUSIVE.join('.')) < 0;
  out.push({
    id: 'python',
    title: t('Python interpreter'),
    status: verOk ? 'ok' : 'error',
    detail: verOk
      ? t('Python {0} at {1}{2}', f.version, py, input.pythonSource ? ` (${input.pythonSource})` : '')
      : t('Python {0} at {1}: AgentJet needs Python >= 3.10 and < 3.13.', f.version, py),
    ...(verOk ? {} : { fix: pythonSetting() }),
  });

  const ajet = f.packages.ajet;
  const astuner = f.packages.astuner;
  const astune = f.packages.astune;
  const framework = ajet?.found ? ajet : astuner?.found ? astuner : astune?.found ? astune : undefined;
  if (framework) {
    out.push({
      id: 'framework',
      title: t('AgentJet framework'),
      status: framework.module === 'ajet' ? 'ok' : 'warning',
      detail:
        framework.module === 'ajet'
          ? pkgLine(framework)
          : t('{0}: the older ASTuner package; AgentJet (ajet) is its successor.', pkgLine(framework)),
      ...(framework.module === 'ajet' ? {} : { fix: frameworkFix(py) }),
    });
  }
  if (f.launchers) {
    out.push(launcherCheck(py, f.launchers, input.launch, framework?.module));
  } else if (framework) {
    out.push(
      framework.launcher
        ? {
            id: 'launcher',
            title: t('Launcher'),
            status: 'ok',
            detail: t('python -m {0}.launcher ({1})', framework.module, framework.launcher),
          }
        : {
            id: 'launcher',
            title: t('Launcher'),
            status: 'error',
            detail: t('{0} has no launcher.py; the installation looks incomplete.', framework.module),
            fix: pipFix(py, framework.module === 'ajet' ? 'ajet' : 'astuner'),
          },
    );
  }
  if (!framework) {
    const broken = ajet?.error ?? astuner?.error;
    out.push({
      id: 'framework',
      title: t('AgentJet framework'),
      status: 'error',
      detail: broken ? t('ajet cannot be found: {0}', broken) : t('Neither ajet nor astuner is installed in this interpreter.'),
      fix: frameworkFix(py, { checkout: input.checkout }),
    });
  }

  const dbg = f.packages.debugpy;
  const dbgFix: Fix = { kind: 'shell', value: installHint(py), label: t('Install') };
  if (!dbg?.found) {
    out.push({
      id: 'debugpy',
      title: 'debugpy',
      status: 'error',
      detail: t(
        'debugpy is not installed for {0} (Python {1}){2}: breakpoints cannot work. Install it with: {3}',
        py,
        f.version,
        dbg?.error ? ` (${dbg.error})` : '',
        installHint(py),
      ),
      fix: dbgFix,
    });
  } else if (!dbg.version || compareVersions(dbg.version, MIN_DEBUGPY) < 0) {
    // A warning, not an error: the launch runs (without following the launcher's child processes).
    out.push({
      id: 'debugpy',
      title: 'debugpy',
      status: 'warning',
      detail: t(
        "debugpy {0} found for {1}; AgentJet's launcher wants >= {2}. Debugging may work, but upgrade with: {3}",
        dbg.version ?? '?',
        py,
        MIN_DEBUGPY,
        installHint(py),
      ),
      fix: dbgFix,
    });
  } else {
    out.push({ id: 'debugpy', title: 'debugpy', status: 'ok', detail: t('debugpy {0} (>= {1})', dbg.version, MIN_DEBUGPY) });
  }

  const optional = (id: 'vllm' | 'verl' | 'trinity' | 'ray', mod: string, why: string, fix: Fix): Check => {
    const p = f.packages[mod];
    if (p?.found) return { id, title: mod, status: 'ok', detail: pkgLine(p) };
    return {
      id,
      title: mod,
      status: id === 'vllm' ? 'warning' : 'info',
      detail: p?.error ? `${why} ${p.error}` : why,
      fix,
    };
  };
  // AgentJet's extras bring vLLM with the backbone: install them from its checkout, as the guide says.
  const checkout = checkoutOf(ajet?.found ? ajet.location : undefined) ?? input.checkout;
  out.push(
    optional(
      'vllm',
      'vllm',
      t('vLLM is not installed: debugging and training need it to serve the model.'),
      frameworkFix(py, { checkout }),
    ),
  );
  out.push(
    optional('verl', 'verl', t('verl is not installed: needed for --backbone verl.'), frameworkFix(py, { checkout, backbone: 'verl' })),
  );
  out.push(
    optional(
      'trinity',
      'trinity',
      t('trinity-rft is not installed: needed for --backbone trinity.'),
      frameworkFix(py, { checkout, backbone: 'trinity' }),
    ),
  );
  out.push(optional('ray', 'ray', t('Ray is not installed: needed for training (--with-ray).'), pipFix(py, 'ray[default]')));
  out.push(gpuCheck(input.gpu));

  const port = f.port;
  if (port.port) out.push(portCheck(port, input));
  if (input.trusted !== undefined) out.push(trustCheck(input.trusted));
  return out;
}

function launcherCheck(
  py: string,
  found: NonNullable<ProbeFacts['launchers']>,
  launch: LaunchContext | undefined,
  framework: string | undefined,
): Check {
  const candidates =
    launch?.candidates ?? LAUNCHER_ENTRIES[framework === 'astuner' ? 'astuner' : framework === 'astune' ? 'astune' : 'ajet'].modules;
  if (launch?.consoleScript)
    return { id: 'launcher', title: t('Launcher'), status: 'ok', detail: t('{0} (console script)', launch.consoleScript) };
  const module = candidates.find((c) => found[c]?.file);
  if (module) return { id: 'launcher', title: t('Launcher'), status: 'ok', detail: `python -m ${module} (${found[module]!.file!})` };
  const why = [...new Set(candidates.map((c) => found[c]?.error).filter((e): e is string => !!e))].join('; ');
  return {
    id: 'launcher',
    title: t('Launcher'),
    status: 'error',
    detail:
      t(
        '{0} has no AgentJet launcher: no console script beside it and it cannot import {1}{2}. Install the framework into this interpreter (for AgentJet: pip install -e .[verl] in its checkout, as its installation guide says) or pick another one with the agentjet.pythonPath setting.',
        py,
        candidates.join(', '),
        why ? ` (${why})` : '',
      ) +
      // ASTune's launcher is `launcher.py` at the root of its checkout, in no package.
      (candidates.includes('launcher')
        ? ` ${t('ASTune runs its launcher.py from the root of its checkout: launch with the checkout as the working directory ("cwd" in launch.json).')}`
        : ''),
    fix: pythonSetting(),
  };
}

function portCheck(port: ProbeFacts['port'], input: DoctorInput): Check {
  const key = input.launch?.portKey ?? 'ajet.debug.debug_vllm_port';
  if (!port.inUse) return { id: 'port', title: t('vLLM port'), status: 'ok', detail: t('Port {0} is free.', port.port) };
  const pgids = input.launch?.companionPgids ?? [];
  const ours = input.portHeldByCompanion || (port.holderPgid != null ? pgids.includes(port.holderPgid) : pgids.length > 0);
  if (ours)
    return {
      id: 'port',
      title: t('vLLM port'),
      status: 'ok',
      detail: t('Port {0} is held by the vLLM server a previous debug launch left running (it is reused).', port.port),
    };
  const theirs =
    input.portCompanion !== undefined
      ? input.portCompanion
      : port.holderPid != null
        ? recognisePortHolder({ pid: port.holderPid, pgid: port.holderPgid, args: port.holderArgs })
        : undefined;
  if (theirs) {
    const where = theirs.cwd ?? t('another folder');
    if (input.launch?.reusePgids?.includes(theirs.pgid))
      return {
        id: 'port',
        title: t('vLLM port'),
        status: 'ok',
        detail: t(
          "Port {0} is held by AgentJet's companion {1} (process group {2}) started in {3}: this launch reuses it.",
          port.port,
          theirs.what,
          theirs.pgid,
          where,
        ),
      };
    return {
      id: 'port',
      title: t('vLLM port'),
      status: input.launch ? 'error' : 'warning',
      detail: t(
        "port {0} ({1}) is held by AgentJet's own companion {2} (process {3}, group {4}) started in {5}. AgentJet's launcher keeps a companion per folder and starts its own here: stop that one (kill -- -{4}) or set {1} to a free port.",
        port.port,
        key,
        theirs.what,
        theirs.pid,
        theirs.pgid,
        where,
      ),
      // The launch refusal offers Stop It and Launch (extension/debug/provider.ts).
    };
  }
  const who =
    port.holderPid != null ? `${t('process {0}', port.holderPid)}${port.holderArgs ? ` (${port.holderArgs})` : ''}` : t('another program');
  // A debug launch would start its vLLM server on this port: an error there; for the doctor a warning.
  return {
    id: 'port',
    title: t('vLLM port'),
    status: input.launch ? 'error' : 'warning',
    detail: t('port {0} ({1}) is held by {2}, which is not an AgentJet companion. Stop it or set {1} to a free port.', port.port, key, who),
    fix: { kind: 'command', value: 'agentjet.stopCompanions', label: t('Stop companions') },
  };
}

function gpuCheck(g: GpuFacts): Check {
  if (!g.available)
    return {
      id: 'gpu',
      title: t('CUDA GPUs'),
      status: 'info',
      detail: t(
        'No NVIDIA GPU seen ({0}). Debugging with a remote or API model still works; training needs GPUs.',
        g.error ?? t('nvidia-smi not found'),
      ),
    };
  if (g.gpus.length === 0)
    return { id: 'gpu', title: t('CUDA GPUs'), status: 'warning', detail: t('nvidia-smi answered but lists no GPU.') };
  const list = g.gpus.map((x) => (x.memoryMiB ? `${x.name} (${Math.round(x.memoryMiB / 1024)} GiB)` : x.name)).join(', ');
  return { id: 'gpu', title: t('CUDA GPUs'), status: 'ok', detail: t('{0} GPU(s): {1}', g.gpus.length, list) };
}

function trustCheck(trusted: boolean): Check {
  return trusted
    ? {
        id: 'trust',
        title: t('Workspace trust'),
        status: 'ok',
        detail: t('The workspace is trusted: launching and debugging are enabled.'),
      }
    : {
        id: 'trust',
        title: t('Workspace trust'),
        status: 'error',
        detail: t('The workspace is not trusted: launching, debugging and training are disabled.'),
        fix: { kind: 'command', value: 'workbench.trust.manage', label: t('Manage Workspace Trust') },
      };
}

/** Parses `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`. */
export function parseNvidiaSmi(stdout: string): GpuFacts['gpus'] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const i = l.lastIndexOf(',');
      const mem = i >= 0 ? Number.parseFloat(l.slice(i + 1)) : Number.NaN;
      return { name: (i >= 0 ? l.slice(0, i) : l).trim(), memoryMiB: Number.isNaN(mem) ? null : mem };
    });
}

/**
 * The findings that must stop a launch (the launch preflight shows these and offers the fix): every
 * error but the GPUs, debugpy when not debugging, and the framework package when the launcher was
 * judged (the launcher decides: ASTune's is a module at the checkout root, in no package).
 */
export function blockingForLaunch(checks: readonly Check[], wantDebugpy: boolean): Check[] {
  const launcherJudged = checks.some((c) => c.id === 'launcher');
  return checks.filter(
    (c) => c.status === 'error' && (c.id !== 'debugpy' || wantDebugpy) && c.id !== 'gpu' && !(c.id === 'framework' && launcherJudged),
  );
}

/** The warnings a launch prints in the Debug Console (an old debugpy, the Python version). */
export function warningsForLaunch(checks: readonly Check[], wantDebugpy: boolean): Check[] {
  return checks.filter((c) => c.status === 'warning' && ((c.id === 'debugpy' && wantDebugpy) || c.id === 'python'));
}

export function summary(checks: readonly Check[]): { errors: number; warnings: number } {
  return { errors: checks.filter((c) => c.status === 'error').length, warnings: checks.filter((c) => c.status === 'warning').length };
}
