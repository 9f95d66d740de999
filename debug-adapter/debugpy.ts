// What the `agentjet` session needs to know about debugpy: the capabilities it announces, how its
// adapter is started under AgentJet's --autokill guard, and the launcher shim that keeps debugpy's
// launcher spared by --autokill too. Also the phase trace (AGENTJET_DAP_TRACE).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { AUTOKILL_GUARD } from '../core/launch/lifecycle';
import type { ResolvedLaunch } from '../core/launch/attributes';
import type { LauncherTarget } from '../core/launch/plan';
import { MIN_DEBUGPY, compareVersions } from '../core/launch/preflight';
import { t } from '../core/l10n';

const T0 = performance.now();
/** AGENTJET_DAP_TRACE=1: phase timings on stderr (for the benchmark and bug reports). */
export function trace(what: string): void {
  if (process.env.AGENTJET_DAP_TRACE) process.stderr.write(`agentjet-dap +${(performance.now() - T0).toFixed(0)}ms ${what}\n`);
}

// What debugpy announces; debugpy's real answer follows as a `capabilities` event once it runs.
export const DEBUGPY_CAPABILITIES: DebugProtocol.Capabilities = {
  supportsCompletionsRequest: true,
  supportsConditionalBreakpoints: true,
  supportsConfigurationDoneRequest: true,
  supportsDelayedStackTraceLoading: true,
  supportsEvaluateForHovers: true,
  supportsExceptionInfoRequest: true,
  supportsExceptionOptions: true,
  supportsFunctionBreakpoints: true,
  supportsHitConditionalBreakpoints: true,
  supportsLogPoints: true,
  supportsModulesRequest: true,
  supportsSetExpression: true,
  supportsSetVariable: true,
  supportsValueFormattingOptions: true,
  supportsTerminateRequest: true,
  supportsGotoTargetsRequest: true,
  supportsClipboardContext: true,
  supportsStepInTargetsRequest: true,
  exceptionBreakpointFilters: [
    { filter: 'raised', label: 'Raised Exceptions', default: false },
    { filter: 'uncaught', label: 'Uncaught Exceptions', default: true },
    { filter: 'userUnhandled', label: 'User Uncaught Exceptions', default: false },
  ],
};

/** The capabilities with the exception filter labels in the display language (set at activation). */
export function localCapabilities(): DebugProtocol.Capabilities {
  const label: Record<string, string> = {
    raised: t('Raised Exceptions'),
    uncaught: t('Uncaught Exceptions'),
    userUnhandled: t('User Uncaught Exceptions'),
  };
  return {
    ...DEBUGPY_CAPABILITIES,
    exceptionBreakpointFilters: (DEBUGPY_CAPABILITIES.exceptionBreakpointFilters ?? []).map((x) => ({
      ...x,
      label: label[x.filter] ?? x.label,
    })),
  };
}

/**
 * `python -c ADAPTER_BOOT agentjet-vscode`: debugpy's adapter as `python -m debugpy.adapter` would
 * run it, with AUTOKILL_GUARD on its command line (AgentJet's --autokill spares command lines that
 * hold "vscode"; see core/launch/lifecycle.ts). The marker argument is dropped before debugpy
 * parses its own.
 */
export const ADAPTER_BOOT = 'import runpy, sys; del sys.argv[1:]; runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)';

/**
 * Run in place of `python <debugpy>/launcher` (debugpy's `debugLauncherPath`), from a private
 * folder whose name holds "vscode": the same launcher, spared by --autokill.
 */
const LAUNCHER_SHIM = [
  "# AgentJet for VS Code: debugpy's launcher under a command line that AgentJet's --autokill spares.",
  'import runpy',
  'runpy.run_module("debugpy.launcher", run_name="__main__", alter_sys=True)',
  '',
].join('\n');

/** The launcher shim in a private (0700) temp folder named for the --autokill guard. */
export class LauncherShim {
  private dir: string | undefined;

  /** The shim's path; undefined if it cannot be written (debugpy's own launcher then; only --autokill would reach it). */
  write(): string | undefined {
    try {
      this.dir ??= mkdtempSync(join(tmpdir(), `${AUTOKILL_GUARD}-`));
      const file = join(this.dir, 'debugpy_launcher.py');
      writeFileSync(file, LAUNCHER_SHIM, { mode: 0o600 });
      return file;
    } catch {
      return undefined;
    }
  }

  remove(): void {
    if (this.dir) {
      try {
        rmSync(this.dir, { recursive: true, force: true });
      } catch {
        /* gone */
      }
      this.dir = undefined;
    }
  }
}

/**
 * debugpy's `launch` for our launch: the launcher as a script or module with its own arguments,
 * following its child processes where the installed debugpy can; `warning` says when it cannot.
 */
export function debugpyLaunch(
  r: ResolvedLaunch,
  target: LauncherTarget,
  args: string[],
  debugpyVersion: string | null,
): { launchArgs: Record<string, unknown>; warning?: string } {
  // debugpy before 1.8 (below AgentJet's own minimum) loses breakpoints in the launcher process
  // when it follows sub-processes (seen with Debian's 1.6.3): there we do not follow, and say so.
  const followChildren = !debugpyVersion || compareVersions(debugpyVersion, MIN_DEBUGPY) >= 0;
  const launchArgs: Record<string, unknown> = {
    name: 'AgentJet',
    type: 'python',
    request: 'launch',
    ...(target.kind === 'script' ? { program: target.path } : { module: target.module }),
    args,
    cwd: r.cwd,
    // Python 3.11+ freezes stdlib modules and debugpy then prints a red warning in every launch
    // ("frozen modules ... may miss breakpoints"), though breakpoints in the user's code bind: pass
    // what it asks for to the launcher, and turn the check off in the processes it starts (no flag
    // reaches them: the launcher's child, where AgentJet's rollout runs, warned). A user's own value
    // wins. debugpy >= 1.8 adds the flag itself; older Pythons ignore an unknown -X option.
    pythonArgs: ['-Xfrozen_modules=off'],
    env: { PYDEVD_DISABLE_FILE_VALIDATION: '1', ...r.envAdditions },
    console: 'internalConsole',
    redirectOutput: true,
    justMyCode: r.justMyCode,
    stopOnEntry: r.stopOnEntry,
    // The rollout runs in a child process (execute_training_process, subprocess.run): follow it.
    // Threads (the rollout's thread pool) are traced by debugpy without any setting.
    subProcess: followChildren,
    showReturnValue: true,
  };
  if (followChildren) return { launchArgs };
  return {
    launchArgs,
    warning: t(
      "debugpy {0} does not follow the launcher's child processes here, so breakpoints in code the launcher runs in a child (AgentJet's rollout) will not bind. Upgrade debugpy to >= {1}.",
      debugpyVersion,
      MIN_DEBUGPY,
    ),
  };
}
