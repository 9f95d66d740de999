// What every agent tool shares: the environment and answer types, argument readers, paging,
// bounding, and the check that a path an agent names lies inside the allowed roots.
import type { MetricsReaderFactory } from '../metrics/read';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { t } from '../l10n';
import { resolveInside } from '../fs/inside';
import { type ObjectSchema, type ToolArgs } from './schema';
import type { SwarmStatus } from '../swarm/api';
import type { AgentLaunches } from './launches';

/** The most characters one answer carries (about 6k tokens): an agent's context is precious. */
export const MAX_ANSWER_CHARS = 24_000;

/**
 * Which swarm servers a tool may ask: loopback always; the servers the user configured and the
 * ones the workspace names; any other URL only when the user's own setting allows it.
 */
export interface SwarmAccess {
  /** The servers the user configured (`agentjet.swarm.servers`, `--swarm-url`) and the workspace names (`SwarmClient("…")`). */
  known(): Promise<string[]>;
  /** The user's setting allows any other URL. */
  anyUrl: boolean;
  /** How the user allows another URL, for the refusal ("the setting agentjet.agents.swarmAnyUrl"). */
  allowHow: string;
  /** Asks one server for its status (default: HTTP GET of swarm/api; tests record the calls). */
  status?(url: string, signal: AbortSignal | undefined): Promise<SwarmStatus>;
}

/**
 * What the tools may see and do; the MCP server and the extension each build one. Everything a
 * tool runs or reaches is handed in here (an interpreter, a network service): core finds none itself.
 */
export interface AgentToolEnv {
  /** Every path must lie inside one of these folders; relative paths resolve against the first. */
  roots: string[];
  /**
   * True only when the trust owner handed in an interpreter (a trusted VS Code workspace,
   * `agentjet mcp --python PATH` or `--trust-folder`); false: no interpreter of the workspace runs.
   */
  mayRunPython: boolean;
  /** The interpreter the trust owner chose for the first root; never looked for by a tool. */
  python?: () => Promise<string | undefined>;
  /** Which swarm servers may be asked (default: loopback only). */
  swarm?: SwarmAccess;
  /** The experiment roots the Runs view shows (VS Code); default: the roots. */
  runRoots?: () => Promise<string[]>;
  /** Cache folders (default: the CLI's, under ~/.cache). */
  factsCacheDir?: string;
  logCacheDir?: string;
  /** `agentjet.runs.stallMinutes` (VS Code) or `agentjet mcp`'s default (10). */
  stallMinutes?: number;
  /** Worker threads for whole-log reads (default: the log engine's). */
  workers?: number;
  /**
   * The acting tools' consent and what they started: present only when the user allowed acting
   * (`agentjet mcp --allow-act`; in VS Code, a trusted workspace and the user's yes to each call).
   * Everything a tool starts is held here, and ends with it (the client gone, the window closed).
   */
  launches?: AgentLaunches;
  /**
   * Reads a run's metrics (agentjet_metrics, agentjet_compare_runs, agentjet_wait): on a worker
   * thread in VS Code (the extension host never waits); in process by default (CLI, MCP server).
   */
  metricsReader?: MetricsReaderFactory;
  /** What a long call (agentjet_wait) has seen so far, as it sees it; the MCP server sends it as progress. */
  progress?: (message: string) => void;
}

export interface AgentToolAnswer {
  text: string;
  isError: boolean;
}

export interface AgentTool {
  readonly name: string;
  /** A short title (English; translate with t()). */
  readonly title: string;
  /** What it answers and when to call it (English; translate with t()). */
  readonly description: string;
  readonly inputSchema: ObjectSchema;
  /**
   * What it runs of the workspace: 'never'; 'if-given': asks the interpreter it was handed where
   * packages are installed (nothing imported) and answers without it otherwise; 'always': runs the
   * interpreter and a script of its own (imports packages), refused and not offered without one.
   * A test calls each tool with a recording environment and checks this (test/unit/agents-hints.test.ts).
   */
  readonly runsWorkspaceCode: 'never' | 'if-given' | 'always';
  /** Talks to a server over the network (through `env.swarm`), not only the file system. */
  readonly network: boolean;
  /**
   * What the tool does beyond reading, when it acts: 'waits' (holds the call until a run changes;
   * reads only), 'edits' (writes a file of the workspace), 'starts' (starts a launch), 'stops'
   * (ends one this client started). Offered only where acting is allowed; the hints follow from it.
   */
  readonly acts?: 'waits' | 'edits' | 'starts' | 'stops';
  run(args: ToolArgs, env: AgentToolEnv, signal: AbortSignal | undefined): Promise<string>;
}

/** The MCP annotations of a tool, from what it runs and reaches (`interpreter`: one was handed in). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** True when a call of the tool runs the workspace's interpreter, given whether one was handed in. */
export function runsInterpreter(tool: AgentTool, interpreter: boolean): boolean {
  return tool.runsWorkspaceCode === 'always' || (tool.runsWorkspaceCode === 'if-given' && interpreter);
}

/**
 * Derived, never written by hand: a tool that runs the folder's interpreter is not read-only (the
 * interpreter is the folder's own code: nothing says it changes nothing, or that it stays local);
 * one that talks to a server reaches outside the file system. Of the acting tools, waiting only
 * reads; an edit rewrites a file (destructive, and twice is not once); a start adds a run (twice
 * starts two); a stop ends processes (destructive, and a second stop changes nothing).
 */
export function toolHints(tool: AgentTool, interpreter: boolean): ToolHints {
  const runs = runsInterpreter(tool, interpreter);
  const acts = tool.acts;
  return {
    readOnlyHint: !runs && (acts === undefined || acts === 'waits'),
    destructiveHint: runs || acts === 'edits' || acts === 'stops',
    idempotentHint: !runs && acts !== 'edits' && acts !== 'starts',
    openWorldHint: runs || tool.network,
  };
}

/** Why an acting tool was refused: the user did not allow acting. */
export function needsConsent(name: string): string {
  return t(
    '{0} acts on the workspace (it waits on, edits, starts or stops something), and acting was not allowed: start `agentjet mcp` with --allow-act, or call it from VS Code agent mode in a trusted workspace',
    name,
  );
}

/** Why a tool that runs the interpreter was refused, and how the user allows it. */
export function needsInterpreter(name: string): string {
  return t(
    "{0} runs the workspace's Python interpreter, and none was handed to it: trust the workspace in VS Code, or start `agentjet mcp` with --python PATH (or --trust-folder for the folder's own .venv)",
    name,
  );
}

/** A failure the agent should read (bad path, nothing found): answered as an error with this text. */
export class ToolError extends Error {}

export const str = (a: ToolArgs, k: string): string | undefined => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
export const int = (a: ToolArgs, k: string, dflt: number): number => (typeof a[k] === 'number' ? (a[k] as number) : dflt);
export const num = (a: ToolArgs, k: string): number | undefined => (typeof a[k] === 'number' ? (a[k] as number) : undefined);
export const obj = (a: ToolArgs, k: string): ToolArgs | undefined => {
  const v = a[k];
  return typeof v === 'object' && !Array.isArray(v) ? v : undefined;
};

export const PAGE = {
  offset: { type: 'integer', minimum: 0, maximum: 1e9, description: 'Skip this many items (for the next page).' },
  limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Return at most this many items.' },
} as const;

/** A path argument: relative to the first root, or absolute (checked against every root when used). */
export function pathArg(description: string) {
  return { type: 'string', minLength: 1, maxLength: 4096, description } as const;
}

export function json(v: unknown): string {
  return JSON.stringify(v, null, 1);
}

/** A path as the agent should write it back: relative to the first root when inside it. */
export function shown(env: AgentToolEnv, p: string): string {
  const base = env.roots[0];
  if (!base) return p;
  const rel = relative(base, p);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? p : rel.split('\\').join('/');
}

/** The real path of `requested` when it lies inside a root; a ToolError otherwise. */
export async function insideRoots(env: AgentToolEnv, requested: string | undefined): Promise<string> {
  const base = env.roots[0];
  if (!base) throw new ToolError(t('no folder is open to read from'));
  const p = requested === undefined || requested === '' ? base : requested;
  const abs = isAbsolute(p) ? p : resolve(base, p);
  const r = await resolveInside(abs, env.roots);
  if (!r.ok) {
    if (r.reason === 'no such file') throw new ToolError(t('no such file or folder: {0}', p));
    if (r.reason === 'outside the allowed folders')
      throw new ToolError(t('{0} is outside the folder this server may read ({1}); name a path inside it', p, env.roots.join(', ')));
    throw new ToolError(t('{0}: {1}', p, r.reason));
  }
  return r.path;
}

/** Refuses what is neither a file nor a folder (a FIFO blocks its reader, a device never ends). */
export async function fileOrFolder(p: string, shownPath: string): Promise<'file' | 'dir'> {
  const st = await stat(p);
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  const kind = st.isFIFO() ? t('a named pipe (FIFO)') : st.isSocket() ? t('a socket') : t('not a regular file');
  throw new ToolError(t('{0} is {1}, not a log file or a run folder', shownPath, kind));
}

export function page<T>(items: readonly T[], args: ToolArgs, dflt: number): { items: T[]; note?: string; total: number; offset: number } {
  const offset = int(args, 'offset', 0);
  const limit = int(args, 'limit', dflt);
  const slice = items.slice(offset, offset + limit);
  const end = offset + slice.length;
  const out: { items: T[]; note?: string; total: number; offset: number } = { items: slice, total: items.length, offset };
  if (end < items.length) out.note = t('showing {0}-{1} of {2}; call again with offset={3} for more', offset + 1, end, items.length, end);
  return out;
}

/** Cuts an answer to MAX_ANSWER_CHARS with a line saying so. */
export function bound(text: string, max = MAX_ANSWER_CHARS): string {
  if (text.length <= max) return text;
  const hint = t(
    '[answer cut at {0} of {1} characters: ask for less (a smaller limit, a later offset, one file or one record)]',
    max,
    text.length,
  );
  // A JSON answer stays JSON: the cut text becomes a string beside the hint, so the client can still
  // parse it and read how to ask for less (a cut inside the JSON could be read by nothing).
  if (/^\s*[[{]/.test(text)) {
    let keep = max - hint.length - 64;
    let out = '';
    while (keep > 0) {
      out = JSON.stringify({ cut: true, more: hint, partial: text.slice(0, keep) }, null, 1);
      if (out.length <= max) return out;
      keep -= out.length - max + 16;
    }
    return JSON.stringify({ cut: true, more: hint });
  }
  return `${text.slice(0, max)}\n…\n${hint}`;
}

/**
 * A paged answer that fits whole: the page is rendered, and while it is over the answer's budget
 * a smaller page is rendered instead (its `more` note then names the offset to call again with).
 * Only a single item over the budget is left to bound().
 */
export async function fittedPage<T>(
  items: readonly T[],
  args: ToolArgs,
  dflt: number,
  render: (p: ReturnType<typeof page<T>>) => string | Promise<string>,
  budget = MAX_ANSWER_CHARS - 200,
): Promise<string> {
  let limit = int(args, 'limit', dflt);
  for (;;) {
    const text = await render(page(items, { ...args, limit }, dflt));
    if (text.length <= budget || limit <= 1) return text;
    // Shrink in proportion to the overshoot (at least by one), so a few renders suffice.
    limit = Math.max(1, Math.min(limit - 1, Math.floor((limit * budget) / text.length)));
  }
}

/** Control characters of log text shown as escapes (a token may hold terminal escape sequences). */
export function visible(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
