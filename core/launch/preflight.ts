// Preflight before a launch: run the probe once and turn its findings into clear messages.
import { spawn } from 'node:child_process';
import { PROBE_SCRIPT } from './probe';

/** AgentJet's launcher wants at least this debugpy. */
export const MIN_DEBUGPY = '1.8.0';

export interface ProbeResult {
  python: string;
  version: string;
  debugpy: string | null;
  debugpyError: string | null;
  /** `module`: the first candidate the interpreter has (null when none). */
  framework: { module: string | null; candidates: string[]; ok: boolean; file: string | null; error: string | null };
  port: { port: number; inUse: boolean; holderPid: number | null; holderPgid: number | null; holderArgs: string | null };
}

export type ProbeOutcome = { ok: true; result: ProbeResult } | { ok: false; error: string };

export interface ProbeOptions {
  python: string;
  /** Launcher modules to look for, in order (LAUNCHER_ENTRIES). */
  modules: readonly string[];
  /** The vLLM port to check; 0 for none (verl and trinity launches use no port). */
  port: number;
  wantDebugpy: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs the probe; never throws, never leaves the process behind (killed on timeout). */
export function runProbe(o: ProbeOptions): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    let settled = false;
    const done = (v: ProbeOutcome): void => { if (!settled) { settled = true; clearTimeout(timer); resolve(v); } };
    const child = spawn(o.python, ['-c', PROBE_SCRIPT, o.modules.join(','), String(o.port), o.wantDebugpy ? '1' : '0'], {
      cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ ok: false, error: `the interpreter ${o.python} did not answer within ${(o.timeoutMs ?? 20_000) / 1000} s` });
    }, o.timeoutMs ?? 20_000);
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.on('error', (e: NodeJS.ErrnoException) => {
      done({ ok: false, error: e.code === 'ENOENT' ? `the Python interpreter ${o.python} does not exist` : `cannot run ${o.python}: ${e.message}` });
    });
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('AGENTJET_PROBE '));
      if (!line) {
        const why = err.trim().split('\n').slice(-3).join(' ') || `exit code ${code}`;
        done({ ok: false, error: `${o.python} could not run the preflight check (${why})` });
        return;
      }
      try {
        done({ ok: true, result: JSON.parse(line.slice('AGENTJET_PROBE '.length)) as ProbeResult });
      } catch (e) {
        done({ ok: false, error: `unreadable preflight answer from ${o.python}: ${String(e)}` });
      }
    });
  });
}

/** Compares dotted versions numerically, ignoring suffixes such as `+git2022...` or `rc1`. */
export function compareVersions(a: string, b: string): number {
  const nums = (v: string): number[] => v.split(/[+-]/)[0]!.split('.').map((p) => parseInt(p, 10) || 0);
  const x = nums(a), y = nums(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

export interface PreflightContext {
  /** Process groups of our live companions: holding the port is fine for them. */
  companionPgids: readonly number[];
  /** The config key holding the port, for the message (`ajet.debug.debug_vllm_port`). */
  portKey: string;
  minDebugpy?: string;
  /** Whether the launch goes through debugpy (false for Run Without Debugging and tasks). */
  wantDebugpy: boolean;
  /** A console script beside the interpreter starts the launcher: no module needs to be found. */
  consoleScript?: string | undefined;
}

export interface PreflightVerdict { errors: string[]; warnings: string[] }

export function installHint(python: string): string {
  return `${python} -m pip install --upgrade "debugpy>=${MIN_DEBUGPY}"`;
}

export function judgeProbe(r: ProbeResult, ctx: PreflightContext): PreflightVerdict {
  const errors: string[] = [];
  const warnings: string[] = [];
  const min = ctx.minDebugpy ?? MIN_DEBUGPY;
  if (ctx.wantDebugpy) {
    if (!r.debugpy) {
      errors.push(`debugpy is not installed for ${r.python} (Python ${r.version})${r.debugpyError ? `: ${r.debugpyError}` : ''}. Install it with: ${installHint(r.python)}`);
    } else if (compareVersions(r.debugpy, min) < 0) {
      warnings.push(`debugpy ${r.debugpy} found for ${r.python}; AgentJet's launcher wants >= ${min}. Debugging may work, but upgrade with: ${installHint(r.python)}`);
    }
  }
  if (!r.framework.ok && !ctx.consoleScript) {
    const tried = r.framework.candidates.join(', ');
    errors.push(`${r.python} has no AgentJet launcher: no console script beside it and it cannot import ${tried}${r.framework.error ? ` (${r.framework.error})` : ''}. Install the framework into this interpreter (for AgentJet: pip install -e . in its checkout) or pick another one with the agentjet.pythonPath setting.`);
  }
  if (r.port.port && r.port.inUse) {
    const ours = r.port.holderPgid !== null ? ctx.companionPgids.includes(r.port.holderPgid) : ctx.companionPgids.length > 0;
    if (!ours) {
      const who = r.port.holderPid !== null ? `process ${r.port.holderPid}${r.port.holderArgs ? ` (${r.port.holderArgs})` : ''}` : 'another program';
      errors.push(`port ${r.port.port} (${ctx.portKey}) is held by ${who}, which is not an AgentJet companion. Stop it or set ${ctx.portKey} to a free port.`);
    }
  }
  return { errors, warnings };
}
