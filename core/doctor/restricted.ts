// Check Environment in Restricted Mode (a workspace the user has not trusted): nothing is run. The
// report says what the check would run, with which interpreter and why that one, and offers the
// Trust action; the policy that decides it is core/trust/policy.ts.
import type { Check } from './checks';
import { TRUST_COMMAND, trustActionTitle } from '../trust/policy';
import { t } from '../l10n';

export interface RestrictedPlan {
  /** The interpreter the check would run (nothing was run to find it). */
  python: string;
  /** Where it comes from: setting, venv, path... */
  pythonSource: string;
  /** The folder the probe would run in. */
  cwd: string;
}

/** The commands the environment check runs, as a user would type them. */
export function plannedCommands(plan: RestrictedPlan): string[] {
  return [
    t('{0} -c <AgentJet environment probe> (in {1})', plan.python, plan.cwd),
    'nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits',
  ];
}

/** The report's checks in Restricted Mode: what would run, and the Trust action. No error is claimed. */
export function restrictedChecks(plan: RestrictedPlan): Check[] {
  const [probe = '', gpu = ''] = plannedCommands(plan);
  return [
    {
      id: 'trust',
      title: t('Workspace trust'),
      status: 'warning',
      detail: t(
        'Restricted Mode: this folder is not trusted, so nothing was run and installed packages were not checked. Trust the folder to run the check.',
      ),
      fix: { kind: 'command', value: TRUST_COMMAND, label: trustActionTitle() },
    },
    {
      id: 'python',
      title: t('Python interpreter'),
      status: 'info',
      detail: t('Not run. Once trusted, the check runs {0}; the interpreter is {1} (from {2}).', probe, plan.python, plan.pythonSource),
    },
    {
      id: 'gpu',
      title: t('CUDA GPUs'),
      status: 'info',
      detail: t('Not run. Once trusted, the check runs {0}.', gpu),
    },
  ];
}
