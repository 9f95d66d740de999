// Preflight before a launch: run the probe once and turn its findings into clear messages.
import { spawn } from 'node:child_process';
import { PROBE_SCRIPT } from './probe';
import { t } from '../l10n';

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
      done({ ok: false, error: t('the interpreter {0} did not answer within {1} s', o.python, (o.timeoutMs ?? 20_000) / 1000) });
    }, o.timeoutMs ?? 20_000);
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.on('error', (e: NodeJS.ErrnoException) => {
      done({ ok: false, error: e.code === 'ENOENT' ? t('the Python interpreter {0} does not exist', o.python) : t('cannot run {0}: {1}', o.python, e.message) });
    });
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('AGENTJET_PROBE '));
      if (!line) {
        const why = err.trim().split('\n').slice(-3).join(' ') || t('exit code {0}', String(code));
        done({ ok: false, error: t('{0} could not run the preflight check ({1})', o.python, why) });
        return;
      }
      try {
        done({ ok: true, result: JSON.parse(line.slice('AGENTJET_PROBE '.length)) as ProbeResult });
      } catch (e) {
        done({ ok: false, error: t('unreadable preflight answer from {0}: {1}', o.python, String(e)) });
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

/** `portHeld`: one of the errors is the vLLM port held by a program that is not ours (the editor offers to free it). */
export interface PreflightVerdict { errors: string[]; warnings: string[]; portHeld?: boolean }

export function installHint(python: string): string {
  return `${python} -m pip install --upgrade "debugpy>=${MIN_DEBUGPY}"`;
}

export function judgeProbe(r: ProbeResult, ctx: PreflightContext): PreflightVerdict {
  const errors: string[] = [];
  const warnings: string[] = [];
  const min = ctx.minDebugpy ?? MIN_DEBUGPY;
  if (ctx.wantDebugpy) {
    if (!r.debugpy) {
      errors.push(r.debugpyError
        ? t('debugpy is not installed for {0} (Python {1}): {2}. Install it with: {3}', r.python, r.version, r.debugpyError, installHint(r.python))
        : t('debugpy is not installed for {0} (Python {1}). Install it with: {2}', r.python, r.version, installHint(r.python)));
    } else if (compareVersions(r.debugpy, min) < 0) {
      warnings.push(t('debugpy {0} found for {1}; AgentJet\'s launcher wants >= {2}. Debugging may work, but upgrade with: {3}', r.debugpy, r.python, min, installHint(r.python)));
    }
  }
  if (!r.framework.ok && !ctx.consoleScript) {
    const tried = r.framework.candidates.join(', ');
    errors.push(r.framework.error
      ? t('{0} has no AgentJet launcher: no console script beside it and it cannot import {1} ({2}). Install the framework into this interpreter (for AgentJet: pip install -e . in its checkout) or pick another one with the agentjet.pythonPath setting.', r.python, tried, r.framework.error)
      : t('{0} has no AgentJet launcher: no console script beside it and it cannot import {1}. Install the framework into this interpreter (for AgentJet: pip install -e . in its checkout) or pick another one with the agentjet.pythonPath setting.', r.python, tried));
  }
  if (r.port.port && r.port.inUse) {
    const ours = r.port.holderPgid !== null ? ctx.companionPgids.includes(r.port.holderPgid) : ctx.companionPgids.length > 0;
    if (!ours) {
      const who = r.port.holderPid === null ? t('another program')
        : r.port.holderArgs ? t('process {0} ({1})', r.port.holderPid, r.port.holderArgs) : t('process {0}', r.port.holderPid);
      errors.push(t('port {0} ({1}) is held by {2}, which is not an AgentJet companion. Stop it or set {1} to a free port.', r.port.port, ctx.portKey, who));
      return { errors, warnings, portHeld: true };
    }
  }
  return { errors, warnings };
}
