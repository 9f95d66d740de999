// The environment checks as a launch preflight (F5, Ctrl+F5, tasks, CodeLens: core/launch/lifecycle.ts):
// the same probe and the same checks as "AgentJet: Check Environment" and `agentjet doctor`, judged
// for one launch (its launcher candidates, console script, companions, whether it debugs).
import { blockingForLaunch, evaluate, warningsForLaunch, type Check, type DoctorInput, type LaunchContext } from './checks';
import { runProbeScript } from './run';
import { probeImports } from './importProbe';
import { ajetPackageDir, gatesOfProbe } from './gates';
import { effectiveLogger } from './effectiveLogger';
import { nodeFs } from '../fs/seam';
import { agentJetCheckout } from './install';
import { probeScript } from './probeText';
import { recognisePortHolder, type PortCompanion } from '../agentjet/portHolder';

export interface LaunchCheckOptions {
  python: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** ajet.debug.debug_vllm_port of the config; 0 for none (verl and trinity launches use no port). */
  port: number;
  /** Debugging (not Run Without Debugging): debugpy is then required (>= 1.8 wanted). */
  wantDebugpy: boolean;
  /** probe.py's text; default: the bundled one (probeText.ts). */
  script?: string;
  trusted?: boolean;
  /** The port is held by our own companion (reused, not a conflict). */
  portHeldByCompanion?: boolean;
  /** The launch's launcher candidates, console script and companions; default: the doctor's view. */
  launch?: LaunchContext;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The deadline of the real import of the backbone packages (default DEFAULT_IMPORT_DEADLINE_MS). */
  importTimeoutMs?: number;
}

export interface LaunchChecks {
  checks: Check[];
  /** The errors that stop the launch. */
  blocking: Check[];
  /** What the launch prints and goes on (an old debugpy). */
  warnings: Check[];
  probe: DoctorInput['probe'];
  /** The port's holder when it is AgentJet's companion of another folder (the refusal offers Stop/Reuse). */
  portCompanion?: PortCompanion;
}

/** Interpreter, folder and modules whose backbone import succeeded in this process. */
const importedCleanly = new Set<string>();

/** Runs the probe (no nvidia-smi: GPUs never block a launch) and judges it. */
export async function checkForLaunch(o: LaunchCheckOptions): Promise<LaunchChecks> {
  // The packages AgentJet imports before the launch, imported for real beside the probe (not after
  // it: the launch waits for the slower of the two). Not in an untrusted workspace.
  // Once they imported cleanly for an interpreter and folder, later launches of this process do not
  // pay for the import again (verl pulls in torch: seconds); a failure is tried again each time.
  const backbone = o.launch?.backbone;
  const modules = backbone === 'trinity' ? ['verl', 'trinity'] : ['verl'];
  const importKey = [o.python, o.cwd, ...modules].join('\0');
  const importing =
    backbone && o.trusted !== false && !importedCleanly.has(importKey)
      ? probeImports(o.python, modules, {
          cwd: o.cwd,
          env: o.env,
          ...(o.importTimeoutMs ? { timeoutMs: o.importTimeoutMs } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
        }).then((r) => {
          if (modules.every((m) => r.outcomes[m]?.ok)) importedCleanly.add(importKey);
          return r;
        })
      : undefined;
  const probe = await runProbeScript({
    python: o.python,
    script: o.script ?? (await probeScript()),
    cwd: o.cwd,
    env: o.env,
    port: o.port,
    ...(o.launch ? { launchers: o.launch.candidates } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
  });
  const imports = await importing;
  const held = probe.ok ? probe.facts.port : undefined;
  const portCompanion =
    held?.inUse && held.holderPid != null
      ? (recognisePortHolder({ pid: held.holderPid, pgid: held.holderPgid, args: held.holderArgs }) ?? null)
      : null;
  // The user's AgentJet judges its own gates (verl version, debugpy, SWANLAB_API_KEY).
  const gates = await gatesOfProbe(probe, o.launch?.config?.root);
  // The logger in effect: the config's own, else what its defaults (AgentJet's ajet_default.yaml) set.
  let launch = o.launch;
  if (launch?.config && gates?.swanlabKey && !launch.swanlabKey) {
    const eff = await effectiveLogger(nodeFs(), {
      configPath: launch.config.path,
      cwd: o.cwd,
      frameworkDir: ajetPackageDir(probe),
      root: launch.config.root,
    }).catch(() => undefined);
    if (eff) launch = { ...launch, logger: eff.logger, ...(eff.written ? {} : { loggerFrom: eff.from }) };
  }
  const checks = evaluate({
    python: o.python,
    probe,
    ...(gates ? { gates } : {}),
    gpu: { available: false, gpus: [], error: null },
    ...(o.trusted !== undefined ? { trusted: o.trusted } : {}),
    ...(o.portHeldByCompanion ? { portHeldByCompanion: true } : {}),
    ...(launch ? { launch } : {}),
    ...(imports ? { imports } : {}),
    checkout: agentJetCheckout(o.cwd),
    portCompanion,
  });
  return {
    checks,
    blocking: blockingForLaunch(checks, o.wantDebugpy),
    warnings: warningsForLaunch(checks, o.wantDebugpy),
    probe,
    ...(portCompanion ? { portCompanion } : {}),
  };
}
