// The environment checks as a launch preflight: the findings that must stop a debug launch.
// For core/launch/preflight.ts (owned by the launch feature) to call; see blockingForLaunch.
import { blockingForLaunch, evaluate, type Check } from './checks';
import { gather } from './run';

export interface LaunchCheckOptions {
  python: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** ajet.debug.debug_vllm_port of the config. */
  port: number;
  /** Debugging (not Run Without Debugging): debugpy >= 1.8 is then required. */
  wantDebugpy: boolean;
  /** probe.py's text: `(await import('../doctor/script')).DOCTOR_PROBE`. */
  script: string;
  trusted?: boolean;
  /** The port is held by our own companion (reused, not a conflict). */
  portHeldByCompanion?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Every check plus the blocking subset (errors: no Python, no framework/launcher, old debugpy, untrusted). */
export async function checkForLaunch(o: LaunchCheckOptions): Promise<{ checks: Check[]; blocking: Check[] }> {
  const input = await gather({
    python: o.python, script: o.script, cwd: o.cwd, env: o.env, port: o.port,
    ...(o.trusted !== undefined ? { trusted: o.trusted } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
  });
  const checks = evaluate({ ...input, ...(o.portHeldByCompanion ? { portHeldByCompanion: true } : {}) });
  return { checks, blocking: blockingForLaunch(checks, o.wantDebugpy) };
}
