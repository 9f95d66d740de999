// Gathers the facts the checks need: runs the probe in the chosen interpreter and asks
// nvidia-smi. Never throws; every child is stopped on timeout or cancellation (core/process/run.ts:
// SIGTERM, then SIGKILL).
import { gatesOfProbe } from './gates';
import { probeImports } from './importProbe';
import { agentJetCheckout } from './install';
import { ProcessError, runProcess } from '../process/run';
import { askInterpreter, InterpreterSilentError } from '../process/interpreter';
import { ALL_LAUNCHER_MODULES, parseNvidiaSmi, type DoctorInput, type GpuFacts, type ProbeFacts } from './checks';
import { t } from '../l10n';

export interface GatherOptions {
  python: string;
  pythonSource?: string;
  /** probe.py's text (core/doctor/script.ts). */
  script: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  port: number;
  /** Launcher modules to look for (default: every version's, ALL_LAUNCHER_MODULES). */
  launchers?: readonly string[];
  trusted?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Also import for real (core/doctor/importProbe.ts) the verl and trinity the probe found: a
   * package that is installed but fails to import is then reported. Not when `trusted` is false.
   */
  imports?: boolean;
  /** The deadline of that import (default DEFAULT_IMPORT_DEADLINE_MS). */
  importTimeoutMs?: number;
}

export async function runProbeScript(o: GatherOptions): Promise<DoctorInput['probe']> {
  const ms = o.timeoutMs ?? 20_000;
  let ended: { stdout: string; stderr: string; code: string };
  try {
    // Through the interpreter's one deadline: when another question to it (where AgentJet is
    // installed) found it silent, this one ends too, so the waits do not add up.
    const r = await askInterpreter(o.python, ['-c', o.script, String(o.port), (o.launchers ?? ALL_LAUNCHER_MODULES).join(',')], {
      cwd: o.cwd,
      env: o.env ?? process.env,
      timeoutMs: ms,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    ended = { stdout: r.stdout, stderr: r.stderr, code: '0' };
  } catch (err) {
    if (err instanceof InterpreterSilentError) return { ok: false, error: err.reason };
    if (!(err instanceof ProcessError)) return { ok: false, error: String(err) };
    if (err.failure === 'cancelled') return { ok: false, error: t('cancelled') };
    if (err.failure === 'timed-out')
      return { ok: false, error: t('The interpreter {0} did not answer within {1} s.', o.python, ms / 1000) };
    if (err.failure === 'not-found') return { ok: false, error: t('The Python interpreter {0} does not exist.', o.python) };
    if (err.failure === 'spawn-failed') return { ok: false, error: t('Cannot run {0}: {1}', o.python, err.code ?? err.message) };
    // A probe that printed its line and then failed still answered.
    ended = { stdout: err.stdout, stderr: err.stderr, code: String(err.exitCode ?? null) };
  }
  const line = ended.stdout.split('\n').find((l) => l.startsWith('AGENTJET_DOCTOR '));
  if (!line)
    return {
      ok: false,
      error: t(
        '{0} could not run the environment probe ({1}).',
        o.python,
        ended.stderr.trim().split('\n').slice(-2).join(' ') || `exit code ${ended.code}`,
      ),
    };
  try {
    return { ok: true, facts: JSON.parse(line.slice('AGENTJET_DOCTOR '.length)) as ProbeFacts };
  } catch (e) {
    return { ok: false, error: String(e) };
  }
}

export async function queryGpus(timeoutMs = 10_000, signal?: AbortSignal): Promise<GpuFacts> {
  try {
    const r = await runProcess('nvidia-smi', ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'], {
      timeoutMs,
      ...(signal ? { signal } : {}),
    });
    return { available: true, gpus: parseNvidiaSmi(r.stdout), error: null };
  } catch (err) {
    const e = err instanceof ProcessError ? err : undefined;
    return {
      available: false,
      gpus: [],
      error: e?.failure === 'not-found' ? t('nvidia-smi not found') : ((e ? e.message : String(err)).split('\n')[0] ?? String(err)),
    };
  }
}

export async function gather(o: GatherOptions): Promise<DoctorInput> {
  const [probe, gpu] = await Promise.all([runProbeScript(o), queryGpus(o.timeoutMs, o.signal)]);
  // After the probe, and only of what it found installed: an interpreter that did not answer is
  // not asked again, and a folder without verl or trinity pays for no import.
  const installed = probe.ok ? (['verl', 'trinity'] as const).filter((m) => probe.facts.packages[m]?.found) : [];
  const imports =
    o.imports && o.trusted !== false && installed.length
      ? await probeImports(o.python, installed, {
          cwd: o.cwd,
          env: o.env ?? process.env,
          ...(o.importTimeoutMs ? { timeoutMs: o.importTimeoutMs } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
        })
      : undefined;
  const gates = await gatesOfProbe(probe);
  return {
    python: o.python,
    probe,
    gpu,
    ...(gates ? { gates } : {}),
    ...(imports ? { imports } : {}),
    ...(o.pythonSource ? { pythonSource: o.pythonSource } : {}),
    ...(o.trusted !== undefined ? { trusted: o.trusted } : {}),
    checkout: agentJetCheckout(o.cwd),
  };
}
