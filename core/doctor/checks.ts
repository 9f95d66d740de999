// Environment checks (pure): probe facts in, a list of findings with fixes out. Shared by
// "AgentJet: Check Environment", `agentjet doctor` and (through evaluateForLaunch) the debug preflight.
import { t } from '../l10n';

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
  port: { port: number; inUse: boolean };
}

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
}

export const MIN_PYTHON = [3, 10] as const;
export const MAX_PYTHON_EXCLUSIVE = [3, 13] as const;
export const MIN_DEBUGPY = '1.8.0';

/** Compares dotted versions numerically (1.8.0 < 1.8.11 < 1.10); suffixes such as rc1 or +cu121 are ignored. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): number[] => v.split(/[.+-]/).map((p) => Number.parseInt(p, 10)).filter((n) => !Number.isNaN(n));
  const x = parse(a), y = parse(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

const pipFix = (python: string, spec: string): Fix => ({ kind: 'shell', value: `${shellQuote(python)} -m pip install ${shellQuote(spec)}`, label: t('Install') });
const pythonSetting: Fix = { kind: 'setting', value: 'agentjet.pythonPath', label: t('Choose the interpreter') };

export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function pkgLine(p: PackageFacts): string {
  const v = p.version ? ` ${p.version}` : '';
  return `${p.module}${v}${p.location ? ` (${p.location})` : ''}`;
}

/** Every check, in the order the report shows them. */
export function evaluate(input: DoctorInput): Check[] {
  const out: Check[] = [];
  if (!input.probe.ok) {
    out.push({ id: 'python', title: t('Python interpreter'), status: 'error', detail: input.probe.error, fix: pythonSetting });
    out.push(gpuCheck(input.gpu));
    if (input.trusted !== undefined) out.push(trustCheck(input.trusted));
    return out;
  }
  const f = input.probe.facts;
  const py = f.python || input.python;
  const verOk = compareVersions(f.version, MIN_PYTHON.join('.')) >= 0 && compareVersions(f.version, MAX_PYTHON_EXCLUSIVE.join('.')) < 0;
  out.push({
    id: 'python', title: t('Python interpreter'), status: verOk ? 'ok' : 'error',
    detail: verOk
      ? t('Python {0} at {1}{2}', f.version, py, input.pythonSource ? ` (${input.pythonSource})` : '')
      : t('Python {0} at {1}: AgentJet needs Python >= 3.10 and < 3.13.', f.version, py),
    ...(verOk ? {} : { fix: pythonSetting }),
  });

  const ajet = f.packages.ajet;
  const astuner = f.packages.astuner;
  const framework = ajet?.found ? ajet : astuner?.found ? astuner : undefined;
  if (framework) {
    out.push({ id: 'framework', title: t('AgentJet framework'), status: framework.module === 'ajet' ? 'ok' : 'warning',
      detail: framework.module === 'ajet' ? pkgLine(framework) : t('{0}: the older ASTuner package; AgentJet (ajet) is its successor.', pkgLine(framework)),
      ...(framework.module === 'ajet' ? {} : { fix: pipFix(py, 'ajet') }) });
    out.push(framework.launcher
      ? { id: 'launcher', title: t('Launcher'), status: 'ok', detail: t('python -m {0}.launcher ({1})', framework.module, framework.launcher) }
      : { id: 'launcher', title: t('Launcher'), status: 'error', detail: t('{0} has no launcher.py; the installation looks incomplete.', framework.module), fix: pipFix(py, framework.module === 'ajet' ? 'ajet' : 'astuner') });
  } else {
    const broken = ajet?.error ?? astuner?.error;
    out.push({ id: 'framework', title: t('AgentJet framework'), status: 'error',
      detail: broken ? t('ajet cannot be found: {0}', broken) : t('Neither ajet nor astuner is installed in this interpreter.'),
      fix: { kind: 'shell', value: `${shellQuote(py)} -m pip install -e .  # ${t('in a clone of AgentJet')}`, label: t('Install') } });
  }

  const dbg = f.packages.debugpy;
  if (!dbg?.found) {
    out.push({ id: 'debugpy', title: 'debugpy', status: 'error', detail: t('debugpy is not installed: breakpoints cannot work.'), fix: pipFix(py, `debugpy>=${MIN_DEBUGPY}`) });
  } else if (!dbg.version || compareVersions(dbg.version, MIN_DEBUGPY) < 0) {
    out.push({ id: 'debugpy', title: 'debugpy', status: 'error', detail: t('debugpy {0} is too old: AgentJet needs >= {1}.', dbg.version ?? '?', MIN_DEBUGPY), fix: pipFix(py, `debugpy>=${MIN_DEBUGPY}`) });
  } else {
    out.push({ id: 'debugpy', title: 'debugpy', status: 'ok', detail: t('debugpy {0} (>= {1})', dbg.version, MIN_DEBUGPY) });
  }

  const optional = (id: 'vllm' | 'verl' | 'trinity' | 'ray', mod: string, why: string, spec: string): Check => {
    const p = f.packages[mod];
    if (p?.found) return { id, title: mod, status: 'ok', detail: pkgLine(p) };
    return { id, title: mod, status: id === 'vllm' ? 'warning' : 'info', detail: p?.error ? `${why} ${p.error}` : why, fix: pipFix(py, spec) };
  };
  out.push(optional('vllm', 'vllm', t('vLLM is not installed: debugging and training need it to serve the model.'), 'vllm'));
  out.push(optional('verl', 'verl', t('verl is not installed: needed for --backbone verl.'), 'ajet[verl]'));
  out.push(optional('trinity', 'trinity', t('trinity-rft is not installed: needed for --backbone trinity.'), 'ajet[trinity]'));
  out.push(optional('ray', 'ray', t('Ray is not installed: needed for training (--with-ray).'), 'ray[default]'));
  out.push(gpuCheck(input.gpu));

  const port = f.port;
  out.push(port.inUse
    ? input.portHeldByCompanion
      ? { id: 'port', title: t('vLLM port'), status: 'ok', detail: t('Port {0} is held by the vLLM server a previous debug launch left running (it is reused).', port.port) }
      : { id: 'port', title: t('vLLM port'), status: 'warning', detail: t('Port {0} (ajet.debug.debug_vllm_port) is already in use by another program.', port.port), fix: { kind: 'command', value: 'agentjet.stopCompanions', label: t('Stop companions') } }
    : { id: 'port', title: t('vLLM port'), status: 'ok', detail: t('Port {0} is free.', port.port) });
  if (input.trusted !== undefined) out.push(trustCheck(input.trusted));
  return out;
}

function gpuCheck(g: GpuFacts): Check {
  if (!g.available) return { id: 'gpu', title: t('CUDA GPUs'), status: 'info', detail: t('No NVIDIA GPU seen ({0}). Debugging with a remote or API model still works; training needs GPUs.', g.error ?? t('nvidia-smi not found')) };
  if (g.gpus.length === 0) return { id: 'gpu', title: t('CUDA GPUs'), status: 'warning', detail: t('nvidia-smi answered but lists no GPU.') };
  const list = g.gpus.map((x) => x.memoryMiB ? `${x.name} (${Math.round(x.memoryMiB / 1024)} GiB)` : x.name).join(', ');
  return { id: 'gpu', title: t('CUDA GPUs'), status: 'ok', detail: t('{0} GPU(s): {1}', g.gpus.length, list) };
}

function trustCheck(trusted: boolean): Check {
  return trusted
    ? { id: 'trust', title: t('Workspace trust'), status: 'ok', detail: t('The workspace is trusted: launching and debugging are enabled.') }
    : { id: 'trust', title: t('Workspace trust'), status: 'error', detail: t('The workspace is not trusted: launching, debugging and training are disabled.'), fix: { kind: 'command', value: 'workbench.trust.manage', label: t('Manage Workspace Trust') } };
}

/** Parses `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`. */
export function parseNvidiaSmi(stdout: string): GpuFacts['gpus'] {
  return stdout.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
    const i = l.lastIndexOf(',');
    const mem = i >= 0 ? Number.parseFloat(l.slice(i + 1)) : Number.NaN;
    return { name: (i >= 0 ? l.slice(0, i) : l).trim(), memoryMiB: Number.isNaN(mem) ? null : mem };
  });
}

/** The findings that must stop a debug launch (the launch preflight shows these and offers the fix). */
export function blockingForLaunch(checks: readonly Check[], wantDebugpy: boolean): Check[] {
  return checks.filter((c) => c.status === 'error' && (c.id !== 'debugpy' || wantDebugpy) && c.id !== 'gpu');
}

export function summary(checks: readonly Check[]): { errors: number; warnings: number } {
  return { errors: checks.filter((c) => c.status === 'error').length, warnings: checks.filter((c) => c.status === 'warning').length };
}
