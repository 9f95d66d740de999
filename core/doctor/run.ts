// Gathers the facts the checks need: runs the probe in the chosen interpreter and asks
// nvidia-smi. Never throws; every child is killed on timeout or cancellation.
import { agentJetCheckout } from './install';
import { execFile, spawn } from 'node:child_process';
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
}

export function runProbeScript(o: GatherOptions): Promise<DoctorInput['probe']> {
  return new Promise((resolve) => {
    let out = '',
      err = '',
      settled = false;
    const done = (v: DoctorInput['probe']): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        resolve(v);
      }
    };
    const child = spawn(o.python, ['-c', o.script, String(o.port), (o.launchers ?? ALL_LAUNCHER_MODULES).join(',')], {
      cwd: o.cwd,
      env: o.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onAbort = (): void => {
      child.kill('SIGKILL');
      done({ ok: false, error: t('cancelled') });
    };
    o.signal?.addEventListener('abort', onAbort);
    const ms = o.timeoutMs ?? 20_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ ok: false, error: t('The interpreter {0} did not answer within {1} s.', o.python, ms / 1000) });
    }, ms);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      done({
        ok: false,
        error:
          e.code === 'ENOENT' ? t('The Python interpreter {0} does not exist.', o.python) : t('Cannot run {0}: {1}', o.python, e.message),
      });
    });
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('AGENTJET_DOCTOR '));
      if (!line) {
        done({
          ok: false,
          error: t(
            '{0} could not run the environment probe ({1}).',
            o.python,
            err.trim().split('\n').slice(-2).join(' ') || `exit code ${String(code)}`,
          ),
        });
        return;
      }
      try {
        done({ ok: true, facts: JSON.parse(line.slice('AGENTJET_DOCTOR '.length)) as ProbeFacts });
      } catch (e) {
        done({ ok: false, error: String(e) });
      }
    });
  });
}

export function queryGpus(timeoutMs = 10_000, signal?: AbortSignal): Promise<GpuFacts> {
  return new Promise((resolve) => {
    execFile(
      'nvidia-smi',
      ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'],
      { timeout: timeoutMs, signal, encoding: 'utf8' },
      (err, stdout) => {
        if (err) {
          const e = err as NodeJS.ErrnoException;
          resolve({
            available: false,
            gpus: [],
            error: e.code === 'ENOENT' ? t('nvidia-smi not found') : (e.message.split('\n')[0] ?? String(e)),
          });
          return;
        }
        resolve({ available: true, gpus: parseNvidiaSmi(stdout), error: null });
      },
    );
  });
}

export async function gather(o: GatherOptions): Promise<DoctorInput> {
  const [probe, gpu] = await Promise.all([runProbeScript(o), queryGpus(o.timeoutMs, o.signal)]);
  return {
    python: o.python,
    probe,
    gpu,
    ...(o.pythonSource ? { pythonSource: o.pythonSource } : {}),
    ...(o.trusted !== undefined ? { trusted: o.trusted } : {}),
    checkout: agentJetCheckout(o.cwd),
  };
}
