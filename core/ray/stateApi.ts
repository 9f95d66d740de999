// Paused workers and live nodes from Ray's state API, served by the dashboard (checked against
// Ray 2.58.0: ray/dashboard/modules/state/state_head.py, ray/util/state/common.py).
//   GET /api/v0/workers?detail=1&limit=N  -> workers with ip, pid, node_id, worker_id, debugger_port,
//                                            num_paused_threads
//   GET /api/v0/tasks?detail=1&limit=N&filter_keys=is_debugger_paused&filter_predicates=%3D&filter_values=True
//                                         -> the paused tasks (name, func_or_class_name, actor_id, worker_id)
//   GET /api/v0/nodes?limit=N            -> nodes with state ALIVE/DEAD
// Every answer is `{"result": bool, "msg": str, "data": {"result": {"result": [...], "total": n, ...}}}`.
// Parsing is tolerant: unknown fields are ignored, a missing field leaves its value undefined,
// the rows may also come one level up (`data.result` as the list).
import type { PausedWorker } from './types';

export interface StateApiOptions {
  timeoutMs?: number;
  limit?: number;
  /** Injected for tests; the global fetch otherwise. */
  fetchImpl?: typeof fetch;
  signal?: AbortSignal;
  now?: () => number;
}

export class StateApiError extends Error {}

type Row = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}
function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/** The rows of a state-API list answer, or an error message. */
export function rowsOf(body: unknown): Row[] | string {
  if (!body || typeof body !== 'object') return 'the answer is not a JSON object';
  const b = body as Row;
  if (b.result === false) return `the dashboard refused: ${str(b.msg) ?? 'no message'}`;
  const data = b.data as Row | undefined;
  const r = data?.result as unknown;
  const list = Array.isArray(r) ? r : r && typeof r === 'object' ? (r as Row).result : undefined;
  if (!Array.isArray(list)) return 'the answer has no data.result list (not a Ray state API endpoint?)';
  return list.filter((x): x is Row => !!x && typeof x === 'object');
}

async function getJson(base: string, path: string, o: StateApiOptions): Promise<unknown> {
  const url = `${base.replace(/\/$/, '')}${path}`;
  const f = o.fetchImpl ?? fetch;
  const timeout = AbortSignal.timeout(o.timeoutMs ?? 3000);
  const signal = o.signal ? AbortSignal.any([timeout, o.signal]) : timeout;
  let resp: Response;
  try {
    resp = await f(url, { signal, headers: { accept: 'application/json' } });
  } catch (e) {
    const err = e as Error;
    const why = err.name === 'TimeoutError' || timeout.aborted ? `no answer within ${o.timeoutMs ?? 3000} ms` : err.message;
    throw new StateApiError(`Ray dashboard ${base} not reachable: ${why}`);
  }
  const text = await resp.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new StateApiError(`Ray dashboard ${base}${path}: HTTP ${resp.status}, not JSON`);
  }
  if (!resp.ok && !(body && typeof body === 'object' && 'msg' in body))
    throw new StateApiError(`Ray dashboard ${base}${path}: HTTP ${resp.status}`);
  return body;
}

async function list(base: string, path: string, o: StateApiOptions): Promise<Row[]> {
  const rows = rowsOf(await getJson(base, path, o));
  if (typeof rows === 'string') throw new StateApiError(`Ray dashboard ${base}${path.split('?')[0]}: ${rows}`);
  return rows;
}

/** Workers paused in the debugger, joined with their paused task for a name. */
export async function listPausedWorkers(dashboard: string, o: StateApiOptions = {}): Promise<PausedWorker[]> {
  const limit = o.limit ?? 1000;
  const [workers, tasks] = await Promise.all([
    list(dashboard, `/api/v0/workers?detail=1&limit=${limit}`, o),
    list(
      dashboard,
      `/api/v0/tasks?detail=1&limit=${limit}&filter_keys=is_debugger_paused&filter_predicates=%3D&filter_values=True`,
      o,
    ).catch(() => [] as Row[]),
  ]);
  const taskByWorker = new Map<string, Row>();
  for (const t of tasks) {
    const w = str(t.worker_id);
    if (w && t.is_debugger_paused !== false) taskByWorker.set(w, t);
  }
  const now = (o.now ?? Date.now)();
  const out: PausedWorker[] = [];
  for (const w of workers) {
    const port = num(w.debugger_port);
    const pausedThreads = num(w.num_paused_threads) ?? 0;
    const workerId = str(w.worker_id);
    const task = workerId ? taskByWorker.get(workerId) : undefined;
    if (!port || (pausedThreads <= 0 && !task) || w.is_alive === false) continue;
    const host = str(w.ip) ?? str(w.node_ip) ?? '';
    if (!host) continue;
    const role = task ? (str(task.actor_id) || String(task.type ?? '').includes('ACTOR') ? 'actor' : 'task') : undefined;
    const name = task ? (str(task.name) ?? str(task.func_or_class_name)) : undefined;
    const since = num(task?.start_time_ms) ?? now;
    out.push({
      id: `api:${workerId ?? `${host}`}:${host}:${port}`,
      source: 'state-api',
      name,
      role,
      node: str(w.node_id),
      pid: num(w.pid) ?? num(task?.worker_pid),
      workerId,
      host,
      port,
      kind: 'unknown',
      tag: undefined,
      since,
      origin: dashboard,
    });
  }
  return out.sort((a, b) => a.since - b.since);
}

/** How many nodes are ALIVE. */
export async function nodesAlive(dashboard: string, o: StateApiOptions = {}): Promise<number> {
  const nodes = await list(dashboard, `/api/v0/nodes?limit=${o.limit ?? 1000}`, o);
  return nodes.filter((n) => String(n.state ?? '').toUpperCase() === 'ALIVE').length;
}
