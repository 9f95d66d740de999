// The environment gates of the user's AgentJet (read from its code: core/doctor/gates.ts) as
// checks, so Check Environment and the launch preflight refuse what AgentJet's launcher would:
// a verl that verify_python_env refuses for the launch's backbone, a debugpy below
// check_debugpy_version's minimum (the launcher calls it for every backbone, debugging or not),
// and `logger: swanlab` without SWANLAB_API_KEY.
import { t } from '../l10n';
import { compareVersions } from '../process/version';
import { verlAllowed } from '../diagnose/gates';
import { backboneFix, installHint, optionalFix, type Check, type DoctorInput, type ProbeFacts } from './facts';

/** The gates come from the framework package the probe found (ajet, astuner or astune). */
const framework = (f: ProbeFacts): boolean => ['ajet', 'astuner', 'astune'].some((n) => f.packages[n]?.found);

/** debugpy judged by the user's AgentJet: an error that stops every launch when its launcher checks it. */
export function gatedDebugpy(input: DoctorInput, f: ProbeFacts, py: string, check: Check): Check {
  const g = input.gates;
  if (!g?.debugpyCheck || !framework(f)) return check;
  // Called only under `if __name__ == "__main__":`: a launch through the console script skips it.
  if (g.debugpyAsMainOnly && input.launch?.consoleScript) return check;
  const dbg = f.packages.debugpy;
  const version = dbg?.found ? dbg.version : null;
  if (version && compareVersions(version, g.debugpyMin) >= 0) return check;
  const args = [g.debugpyMin, g.debugpyFrom ?? g.from, py, version ?? t('none'), installHint(py), g.framework ?? 'AgentJet'] as const;
  // No launch to judge (Check Environment) and a check only under `__main__`: say which start stops.
  if (g.debugpyAsMainOnly && !input.launch)
    return {
      ...check,
      status: 'warning',
      detail: t(
        "{5}'s launcher stops without debugpy >= {0} when it is started as a module (`python -m`; check_debugpy_version runs under `__main__` in {1}), for every backbone; the console command does not check it. {2} has {3}. Install it with: {4}",
        ...args,
      ),
    };
  return {
    ...check,
    status: 'error',
    blocking: true,
    detail: t(
      "{5}'s launcher stops without debugpy >= {0}, for every backbone and without debugging too (check_debugpy_version in {1}); {2} has {3}. Install it with: {4}",
      ...args,
    ),
  };
}

/** verl judged by the user's AgentJet for the launch's backbone (Check Environment: for --backbone verl, as a warning). */
export function gatedVerl(input: DoctorInput, f: ProbeFacts, py: string, check: Check, checkout: string | undefined): Check {
  const g = input.gates;
  const verl = f.packages.verl;
  if (!g || !framework(f)) return check;
  const backbone = input.launch?.backbone;
  const judged = backbone === 'trinity' ? 'trinity' : 'verl';
  // The backbone's module imports verl (every version); verify_python_env judges its version (where there is one).
  if (!verl?.found) return missingBackbonePackage(input, f, py, check, 'verl', checkout) ?? check;
  const broken = brokenBackbonePackage(input, f, py, check, 'verl', checkout);
  if (broken) return broken;
  if (!g.verlCheck) return check;
  if (input.launch && backbone !== 'verl' && backbone !== 'trinity') return check;
  if (verlAllowed(g, verl.version ?? '', judged)) return check;
  return {
    ...check,
    status: input.launch ? 'error' : 'warning',
    detail:
      judged === 'verl'
        ? g.verlMatch === 'prefix'
          ? t(
              'verl {0} is not a version your {3} accepts for --backbone verl (verify_python_env in {1} accepts only versions starting with {2}): the launch would stop at once.',
              verl.version ?? '?',
              g.from,
              g.verlAccepted.join(', '),
              g.framework ?? 'AgentJet',
            )
          : t(
              'verl {0} is not a version your {3} accepts for --backbone verl (verify_python_env in {1} accepts versions with {2}): the launch would stop at once.',
              verl.version ?? '?',
              g.from,
              g.verlAccepted.join(', '),
              g.framework ?? 'AgentJet',
            )
        : t(
            'verl {0} is a version your {2} refuses for --backbone trinity (verify_python_env in {1}).',
            verl.version ?? '?',
            g.from,
            g.framework ?? 'AgentJet',
          ),
    ...optionalFix(backboneFix(py, f, checkout, judged)),
  };
}

/** `logger: swanlab` without SWANLAB_API_KEY in the launch's environment. */
export function swanlabCheck(input: DoctorInput, f: ProbeFacts): Check | undefined {
  const l = input.launch;
  if (!l || l.logger !== 'swanlab' || l.swanlabKey || !input.gates?.swanlabKey || !framework(f)) return undefined;
  if (l.loggerFrom)
    return {
      id: 'swanlab',
      title: 'SwanLab',
      status: 'error',
      detail: t(
        "The config does not set `ajet.trainer_common.logger`, so it logs to SwanLab, AgentJet's default ({0}); SWANLAB_API_KEY is not set for the launch, and AgentJet stops at once (verify_python_env in {1}). Set it (a .env file beside the config works), or set `ajet.trainer_common.logger: tensorboard`.",
        l.loggerFrom,
        input.gates.from,
      ),
    };
  return {
    id: 'swanlab',
    title: 'SwanLab',
    status: 'error',
    detail: t(
      'The config logs to SwanLab (logger: swanlab) but SWANLAB_API_KEY is not set for the launch; AgentJet stops at once (verify_python_env in {0}). Set it (a .env file beside the config works), or set `ajet.trainer_common.logger: tensorboard`.',
      input.gates.from,
    ),
  };
}

/**
 * A package the launch's AgentJet imports before it can start, missing from the interpreter: verl,
 * which verify_python_env imports for every backbone, or the package the backbone's own module
 * (get_backbone_target's `ajet/backbone/main_<backbone>.py`) imports at its top. Launches only.
 */
export function missingBackbonePackage(
  input: DoctorInput,
  f: ProbeFacts,
  py: string,
  check: Check,
  pkg: 'verl' | 'trinity',
  checkout: string | undefined,
): Check | undefined {
  const g = input.gates;
  const backbone = input.launch?.backbone;
  if (!g || !backbone || !framework(f) || f.packages[pkg]?.found) return undefined;
  const byModule = g.backboneImports[backbone];
  const fix = backboneFix(py, f, checkout, backbone === 'trinity' ? 'trinity' : 'verl', pkg);
  if (byModule?.packages.includes(pkg))
    return {
      ...check,
      status: 'error',
      detail: t(
        '{0} cannot be imported by {1}, and AgentJet imports it for --backbone {2} ({3}): the launch would stop at once. Install AgentJet with its {2} extra.',
        pkg,
        py,
        backbone,
        byModule.file,
      ),
      ...optionalFix(fix),
    };
  if (pkg === 'verl' && g.verlCheck && g.importsVerl)
    return {
      ...check,
      status: 'error',
      detail: t(
        'verl cannot be imported by {0}, and your {3} imports it before every launch, --backbone {1} too (verify_python_env in {2}): the launch would stop at once.',
        py,
        backbone,
        g.from,
        g.framework ?? 'AgentJet',
      ),
      ...optionalFix(fix),
    };
  return undefined;
}

/**
 * A package AgentJet imports before a launch that is installed but fails to import, or did not finish
 * importing within the deadline. For a launch (missingBackbonePackage's view): the exception's last
 * line stops it (an error) and slowness is a warning the launch prints. Without a launch (Check
 * Environment, `agentjet doctor`): an error when every launch imports it (verify_python_env), a
 * warning naming the backbones whose entry imports it otherwise.
 */
export function brokenBackbonePackage(
  input: DoctorInput,
  f: ProbeFacts,
  py: string,
  check: Check,
  pkg: 'verl' | 'trinity',
  checkout: string | undefined,
): Check | undefined {
  const g = input.gates;
  const got = input.imports?.outcomes[pkg];
  if (!g || !got || got.ok || !framework(f) || !f.packages[pkg]?.found) return undefined;
  const backbone = input.launch?.backbone;
  const everyLaunch = pkg === 'verl' && g.verlCheck && g.importsVerl;
  // The backbones whose entry module imports the package (all of them when verify_python_env does).
  const byBackbone = Object.entries(g.backboneImports).filter(([, b]) => b?.packages.includes(pkg));
  let where: string | undefined;
  if (everyLaunch) where = g.from;
  else if (backbone) where = g.backboneImports[backbone]?.packages.includes(pkg) ? g.backboneImports[backbone]?.file : undefined;
  else where = byBackbone[0]?.[1]?.file;
  if (!where) return undefined;
  const fixFor: 'verl' | 'trinity' = (backbone ?? pkg) === 'trinity' ? 'trinity' : 'verl';
  const deadline = Math.round((input.imports?.deadlineMs ?? 0) / 1000);
  if (got.timedOut)
    return {
      ...check,
      status: 'warning',
      launchWarning: true,
      detail: t(
        'Importing {0} in {1} did not finish within {2} s; AgentJet imports it before the launch ({3}), so the launch may be slow to start or wait there.',
        pkg,
        py,
        deadline,
        where,
      ),
    };
  if (backbone || everyLaunch)
    return {
      ...check,
      status: 'error',
      detail: t(
        '{0} is installed in {1} but importing it fails: {2}. AgentJet imports it before the launch ({3}), so the launch would stop at once. Install the missing or broken dependency that line names, or reinstall AgentJet with its {4} extra.',
        pkg,
        py,
        got.error ?? '?',
        where,
        fixFor,
      ),
      ...optionalFix(backboneFix(py, f, checkout, fixFor)),
    };
  return {
    ...check,
    status: 'warning',
    detail: t(
      '{0} is installed in {1} but importing it fails: {2}. A launch with --backbone {3} imports it first ({4}) and would stop at once. Install the missing or broken dependency that line names, or reinstall AgentJet with its {5} extra.',
      pkg,
      py,
      got.error ?? '?',
      byBackbone.map(([b]) => b).join(', '),
      where,
      fixFor,
    ),
    ...optionalFix(backboneFix(py, f, checkout, fixFor)),
  };
}
