// Environment checks (pure): probe facts in, a list of findings with fixes out. The one set of
// checks of the extension: "AgentJet: Check Environment", `agentjet doctor`, and (with a
// LaunchContext, through core/doctor/preflight.ts) the preflight of F5, tasks and the CodeLens.
// The facts and fixes are in facts.ts, the checks of the host (launcher, port, GPUs, trust) in
// hostChecks.ts.
import { t } from '../l10n';
import { compareVersions } from '../process/version';
import { checkoutOf } from './install';
import {
  MIN_PYTHON,
  MAX_PYTHON_EXCLUSIVE,
  MIN_DEBUGPY,
  installHint,
  pipFix,
  backboneFix,
  frameworkFix,
  pythonSetting,
  pkgLine,
  type Check,
  type DoctorInput,
  type Fix,
} from './facts';
import { launcherCheck, portCheck, gpuCheck, trustCheck } from './hostChecks';
import { brokenBackbonePackage, gatedDebugpy, gatedVerl, missingBackbonePackage, swanlabCheck } from './gateChecks';

export {
  ALL_LAUNCHER_MODULES,
  MIN_PYTHON,
  MAX_PYTHON_EXCLUSIVE,
  MIN_DEBUGPY,
  installHint,
  type Status,
  type Fix,
  type Check,
  type PackageFacts,
  type ProbeFacts,
  type LaunchContext,
  type GpuFacts,
  type DoctorInput,
} from './facts';
export { parseNvidiaSmi } from './hostChecks';
export { shellQuote } from '../process/quote';
export { compareVersions };

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

  const dbgChecks: Check[] = [];
  const dbg = f.packages.debugpy;
  const dbgFix: Fix = { kind: 'shell', value: installHint(py), label: t('Install') };
  if (!dbg?.found) {
    dbgChecks.push({
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
    dbgChecks.push({
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
    dbgChecks.push({ id: 'debugpy', title: 'debugpy', status: 'ok', detail: t('debugpy {0} (>= {1})', dbg.version, MIN_DEBUGPY) });
  }

  out.push(gatedDebugpy(input, f, py, dbgChecks[0]!));

  const optional = (id: 'vllm' | 'verl' | 'trinity' | 'ray', mod: string, why: string, fix: Fix | undefined): Check => {
    const p = f.packages[mod];
    if (p?.found) return { id, title: mod, status: 'ok', detail: pkgLine(p) };
    return {
      id,
      title: mod,
      status: id === 'vllm' ? 'warning' : 'info',
      detail: p?.error ? `${why} ${p.error}` : why,
      ...(fix ? { fix } : {}),
    };
  };
  // AgentJet's extras bring vLLM with the backbone: install them from its checkout, as the guide says.
  const checkout = checkoutOf(ajet?.found ? ajet.location : undefined) ?? input.checkout;
  out.push(
    optional(
      'vllm',
      'vllm',
      t('vLLM is not installed: debugging and training need it to serve the model.'),
      backboneFix(py, f, checkout, 'verl', 'vllm'),
    ),
  );
  out.push(
    gatedVerl(
      input,
      f,
      py,
      optional('verl', 'verl', t('verl is not installed: needed for --backbone verl.'), backboneFix(py, f, checkout, 'verl', 'verl')),
      checkout,
    ),
  );
  const swanlab = swanlabCheck(input, f);
  if (swanlab) out.push(swanlab);
  const trinity = optional(
    'trinity',
    'trinity',
    t('trinity-rft is not installed: needed for --backbone trinity.'),
    backboneFix(py, f, checkout, 'trinity', 'trinity'),
  );
  out.push(
    missingBackbonePackage(input, f, py, trinity, 'trinity', checkout) ??
      brokenBackbonePackage(input, f, py, trinity, 'trinity', checkout) ??
      trinity,
  );
  out.push(optional('ray', 'ray', t('Ray is not installed: needed for training (--with-ray).'), pipFix(py, 'ray[default]')));
  out.push(gpuCheck(input.gpu));

  const port = f.port;
  if (port.port) out.push(portCheck(port, input));
  if (input.trusted !== undefined) out.push(trustCheck(input.trusted));
  return out;
}

/**
 * The findings that must stop a launch (the launch preflight shows these and offers the fix): every
 * error but the GPUs, debugpy when not debugging, and the framework package when the launcher was
 * judged (the launcher decides: ASTune's is a module at the checkout root, in no package).
 */
export function blockingForLaunch(checks: readonly Check[], wantDebugpy: boolean): Check[] {
  const launcherJudged = checks.some((c) => c.id === 'launcher');
  return checks.filter(
    (c) =>
      c.status === 'error' &&
      (c.id !== 'debugpy' || wantDebugpy || c.blocking === true) &&
      c.id !== 'gpu' &&
      !(c.id === 'framework' && launcherJudged),
  );
}

/** The warnings a launch prints in the Debug Console (an old debugpy, the Python version). */
export function warningsForLaunch(checks: readonly Check[], wantDebugpy: boolean): Check[] {
  return checks.filter(
    (c) => c.status === 'warning' && ((c.id === 'debugpy' && wantDebugpy) || c.id === 'python' || c.launchWarning === true),
  );
}

export function summary(checks: readonly Check[]): { errors: number; warnings: number } {
  return { errors: checks.filter((c) => c.status === 'error').length, warnings: checks.filter((c) => c.status === 'warning').length };
}
