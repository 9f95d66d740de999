// Who holds a port, when it is one of AgentJet's own companions started from another folder (issue
// 22 item 16: a second project's F5 was refused because the first project's vLLM companion held
// 18000). A companion records its process group in `<logRoot>/companion_logs/companion/*.pgid`
// under the working folder it was started from, and keeps that folder as its cwd: so we read the
// holder's cwd (/proc/PID/cwd) and look for a record of its group there (saved_experiments/ and
// launcher_record/, the folder itself and up to two parents for 0.0.4's exp dir or
// ISOLATED_AGENTJET_BASE_DIR). Failing that, AgentJet's companion command lines (vLLM's OpenAI server,
// `python -m ajet.…` helper modules) are recognised by themselves. Linux only (/proc); elsewhere
// nothing is recognised and the port stays a stranger's.
import { readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readCompanionsSync, type Companion } from './companions';
import { companionFolderOfRoot } from './naming';

export interface PortCompanion {
  pid: number;
  pgid: number;
  /** The holder's working folder, when readable. */
  cwd?: string;
  /** `record`: a `.pgid` of its group was found (`record` is it); `commandLine`: recognised by its command line. */
  via: 'record' | 'commandLine';
  record?: Companion;
  /** What it is, for messages: the record's tag (`external_vllm_server`) or `vLLM server`/the module. */
  what: string;
}

/** Log roots a companion's records live under, relative to its working folder. */
const LOG_ROOTS = ['saved_experiments', 'launcher_record'];

/** The folders that may hold the companion records of a process whose cwd is `cwd`. */
export function companionFoldersNear(cwd: string, env: Record<string, string> = {}): string[] {
  const out: string[] = [];
  let dir = cwd;
  for (let i = 0; i < 3; i++) {
    for (const root of LOG_ROOTS) out.push(companionFolderOfRoot(join(dir, root)));
    // 0.0.4 may log under the launch's exp dir (…/saved_experiments/<exp>/companion_logs/companion).
    out.push(companionFolderOfRoot(dir));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const iso = env.ISOLATED_AGENTJET_BASE_DIR;
  if (iso) for (const root of LOG_ROOTS) out.push(companionFolderOfRoot(join(iso.startsWith('/') ? iso : join(cwd, iso), root)));
  return [...new Set(out)];
}

const VLLM = /(?:^|[\s/])vllm(?:\s+serve\b|\.entrypoints\.openai\.api_server\b|\.entrypoints\.api_server\b)/;
const AJET_MODULE = /(?:^|\s)-m\s+((?:ajet|astuner|astune)\.[\w.]+)/;

/** AgentJet's companion command lines: its vLLM server, its helper modules (not the launcher itself). */
export function companionCommand(args: string): string | undefined {
  if (VLLM.test(args)) return 'vLLM server';
  const m = AJET_MODULE.exec(args);
  if (m && !/(?:^|\.)launcher$/.test(m[1]!) && !/\.cli\b/.test(m[1]!)) return m[1]!;
  return undefined;
}

function procEnv(procRoot: string, pid: number): Record<string, string> {
  try {
    const out: Record<string, string> = {};
    for (const kv of readFileSync(join(procRoot, String(pid), 'environ'), 'utf8').split('\0')) {
      const i = kv.indexOf('=');
      if (i > 0 && kv.startsWith('ISOLATED_AGENTJET_BASE_DIR=')) out[kv.slice(0, i)] = kv.slice(i + 1);
    }
    return out;
  } catch {
    return {};
  }
}

/**
 * Recognises the process holding a port as AgentJet's companion (see the file comment); undefined
 * when it is not (or cannot be told). `pgid` defaults to the pid.
 */
export function recognisePortHolder(
  holder: { pid: number; pgid?: number | null | undefined; args?: string | null | undefined },
  opts: { procRoot?: string } = {},
): PortCompanion | undefined {
  const procRoot = opts.procRoot ?? '/proc';
  if (!Number.isInteger(holder.pid) || holder.pid <= 1) return undefined;
  const pgid = holder.pgid ?? holder.pid;
  let cwd: string | undefined;
  try {
    cwd = readlinkSync(join(procRoot, String(holder.pid), 'cwd'));
  } catch {
    cwd = undefined;
  }
  if (cwd) {
    for (const folder of companionFoldersNear(cwd, procEnv(procRoot, holder.pid))) {
      const record = readCompanionsSync(folder).find((c) => c.pgid === pgid || c.pgid === holder.pid);
      if (record) return { pid: holder.pid, pgid, cwd, via: 'record', record, what: record.tag || record.id };
    }
  }
  let args = holder.args ?? undefined;
  if (!args) {
    try {
      args = readFileSync(join(procRoot, String(holder.pid), 'cmdline'), 'utf8')
        .replace(/\0/g, ' ')
        .trim();
    } catch {
      args = undefined;
    }
  }
  const what = args ? companionCommand(args) : undefined;
  if (what) return { pid: holder.pid, pgid, ...(cwd ? { cwd } : {}), via: 'commandLine', what };
  return undefined;
}

/**
 * The environment variable a launch reads to reuse a companion of another folder that holds its
 * port on purpose: our check does not refuse it (`AGENTJET_REUSE_COMPANION=<pgid>`; AgentJet itself
 * cannot share a companion across folders, see docs/debug.md).
 */
export const REUSE_COMPANION_ENV = 'AGENTJET_REUSE_COMPANION';

export function reusedCompanionPgids(env: NodeJS.ProcessEnv): number[] {
  return (env[REUSE_COMPANION_ENV] ?? '')
    .split(/[\s,]+/)
    .map((s) => Number.parseInt(s, 10))
    .filter((n) => Number.isInteger(n) && n > 1);
}
