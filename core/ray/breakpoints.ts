// Editor (gutter) breakpoints in Ray workers, with no debug call in the user's code. The launch puts
// core/ray/hook/agentjet_ray_breakpoints.py on the driver's PYTHONPATH and names it in
// RAY_RUNTIME_ENV_HOOK: each ray.init() of the run then adds a worker_process_setup_hook (pickled by
// value, so cluster nodes need no copy of the file) that opens a plain-socket doorbell in every
// worker at start-up (no debugger: an idle worker runs untraced), and logs `Ray debugger is listening
// on HOST:PORT (agentjet: editor breakpoints, doorbell)`. The extension reads that from the worker
// logs (core/ray/watcher.ts), and for the workers whose task/actor names match, up to a cap, the
// adapter rings the doorbell (core/ray/doorbell.ts: the worker starts debugpy and answers its port)
// and attaches; VS Code sends the editor's breakpoints to each attached session (and again whenever
// they change).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { allowInConsole } from './dedup';

export const HOOK_MODULE = 'agentjet_ray_breakpoints';
export const HOOK_FUNCTION = `${HOOK_MODULE}.runtime_env_hook`;
/** What the worker hook appends to Ray's "listening" line. */
export const LISTENER_MARKER = '(agentjet: editor breakpoints, doorbell)';
/** A regex (Python `re`) for the hook's console lines, which Ray must relay one by one. */
export const DEDUP_ALLOW = 'agentjet: editor breakpoints';

/**
 * Task/actor names AgentJet's Ray code runs user code in: verl's TaskRunner (the trainer actor whose
 * rollout threads run workflows and judges), trinity's Explorer and workflow runners; and any
 * name that says rollout, reward, judge or workflow. Globs, case-insensitive.
 */
export const DEFAULT_WORKER_PATTERNS: readonly string[] = [
  'TaskRunner*',
  'Explorer*',
  '*WorkflowRunner*',
  '*rollout*',
  '*reward*',
  '*judge*',
  '*workflow*',
];
export const DEFAULT_MAX_SESSIONS = 8;

/** `*` any run of characters, `?` one; the whole name, case-insensitive. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

/** Valid patterns from a launch attribute; the defaults when it is absent or holds none. */
export function workerPatterns(v: unknown): string[] {
  const list = Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim()) : [];
  return list.length ? list : [...DEFAULT_WORKER_PATTERNS];
}

export function maxSessions(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : DEFAULT_MAX_SESSIONS;
}

/** A worker with the hook's doorbell, as the worker logs tell it (`host`/`port`: the doorbell). */
export interface ListeningWorker {
  /** `host:port`: the key of its attach session. */
  key: string;
  host: string;
  port: number;
  pid: number | undefined;
  /** Every task/actor name this worker has run so far, in order. */
  names: string[];
  role: 'task' | 'actor' | undefined;
}

export interface Selection {
  attach: ListeningWorker[];
  /** Workers whose names match no pattern (once they ran something), and why. */
  skipped: { worker: ListeningWorker; reason: 'name' | 'cap' }[];
}

/**
 * Which workers to attach now: those not decided yet whose names match, up to `cap` sessions in all
 * (`attached` counts the live ones). A worker that has run nothing yet is left undecided.
 */
export function selectWorkers(
  workers: readonly ListeningWorker[],
  patterns: readonly string[],
  cap: number,
  attached: number,
  decided: ReadonlySet<string>,
): Selection {
  const res = patterns.map(globToRegExp);
  const out: Selection = { attach: [], skipped: [] };
  let free = cap - attached;
  for (const w of workers) {
    // `key`: attached for good; `key|names`: skipped for these names (a pooled worker that later
    // runs a matching task is looked at again).
    if (decided.has(w.key) || decided.has(nameKey(w)) || !w.names.length) continue;
    if (!w.names.some((n) => res.some((r) => r.test(n)))) {
      out.skipped.push({ worker: w, reason: 'name' });
      continue;
    }
    if (free <= 0) {
      out.skipped.push({ worker: w, reason: 'cap' });
      continue;
    }
    free--;
    out.attach.push(w);
  }
  return out;
}

/** What identifies a list of workers with their names: a change of it is worth telling. */
export function listenersKey(workers: readonly ListeningWorker[]): string {
  return workers.map((l) => `${l.key}=${l.names.join(',')}`).join('|');
}

/** The `decided` entry for a worker skipped because of its names so far. */
export function nameKey(w: ListeningWorker): string {
  return `${w.key}|${w.names.join(',')}`;
}

/** Where the hook module is written for the launch's PYTHONPATH: a folder named by its content. */
export function ensureHookDir(source: string, root: string = tmpdir()): string {
  const hash = createHash('sha1').update(source).digest('hex').slice(0, 12);
  // "agentjet-vscode" in the path: AgentJet's --autokill spares command lines that carry it.
  const dir = join(root, `agentjet-vscode-raybp-${hash}`);
  const file = join(dir, `${HOOK_MODULE}.py`);
  if (existsSync(file) && readFileSync(file, 'utf8') === source) return dir;
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, source);
  renameSync(tmp, file);
  return dir;
}

/** The hook's text: the bundled copy, or the file beside the sources (tsx-run tests). */
export async function hookSource(): Promise<string> {
  try {
    return (await import('./hook/script')).RAY_BREAKPOINTS_HOOK;
  } catch {
    return readFileSync(join(__dirname, 'hook', `${HOOK_MODULE}.py`), 'utf8');
  }
}

/**
 * The environment a launch with `rayBreakpoints` adds, given the environment it would otherwise
 * get: the hook folder first on PYTHONPATH, RAY_RUNTIME_ENV_HOOK naming the hook (a hook the user
 * already had is chained, not replaced).
 */
export function rayBreakpointsEnv(hookDir: string, env: NodeJS.ProcessEnv, sep: string = delimiter): Record<string, string> {
  const out: Record<string, string> = {
    PYTHONPATH: env.PYTHONPATH ? `${hookDir}${sep}${env.PYTHONPATH}` : hookDir,
    RAY_RUNTIME_ENV_HOOK: HOOK_FUNCTION,
    PYDEVD_DISABLE_FILE_VALIDATION: env.PYDEVD_DISABLE_FILE_VALIDATION ?? '1',
  };
  const prev = env.RAY_RUNTIME_ENV_HOOK;
  if (prev && prev !== HOOK_FUNCTION) out.AGENTJET_RAY_BP_PREV_HOOK = prev;
  // Ray's console relay folds lines that differ only in numbers ("[repeated 4x across cluster]"),
  // which would hide all doorbells but one; workers on other nodes are found only there.
  out.RAY_DEDUP_LOGS_ALLOW_REGEX = allowInConsole(env.RAY_DEDUP_LOGS_ALLOW_REGEX, DEDUP_ALLOW);
  return out;
}
