// HTTP client of AgentJet's swarm server (the "interchange server" `ajet-swarm start` runs; checked
// against AgentJet 0.0.4, ajet/tuner_lib/experimental/swarm_server.py and oai_model_server.py):
//   GET  /get_engine_status                          {engine_status, engine_status_detail, global_step}
//   GET  /get_current_batch_rollout_pool_information CurrentBatchRolloutPoolInformation (pydantic model,
//                                                    swarm_overwatch_utils.py), engine_status included
//   GET  /get_server_experiment_dir                  {server_experiment_dir: str | null}
//   GET  /get_verbose_logs                           {entries: [{timestamp, tag, message}]} (30 s TTL)
//   POST /replay_latest_llm_call                     {input, output} or 404 before the first call
//   POST /stop_engine                                {success}: kills the training process, back to OFFLINE
// Every answer is validated (valibot); unknown fields are ignored, so a newer server still reads.
// Every request has one deadline over connect, read and parse, and a byte cap on the answer; a
// failure becomes a SwarmError with a one-line reason (a bad answer never reads as "cannot connect").
import * as v from 'valibot';
import { httpJson, HttpJsonError } from '../net/httpJson';

/** The engine states the server moves through (interchange_utils.VALID_STATUSES). */
export const ENGINE_STATES = [
  'ENGINE.OFFLINE',
  'ENGINE.BOOTING',
  'ENGINE.ROLLING',
  'ENGINE.ROLLING_POST',
  'ENGINE.WEIGHT_SYNCING',
  'ENGINE.WEIGHT_EXPORTING',
] as const;
export type EngineState = (typeof ENGINE_STATES)[number];

export const DEFAULT_SWARM_URL = 'http://localhost:10086';
export const DEFAULT_TIMEOUT_MS = 2500;
/** The most of one answer read: a pool of ten thousand tasks is about 1 MB. */
export const SWARM_MAX_ANSWER_BYTES = 8 * 1024 * 1024;

const nullableStr = v.optional(v.nullable(v.string()));
const nullableInt = v.optional(v.nullable(v.pipe(v.number(), v.finite())));

const engineStatusSchema = v.object({
  engine_status: v.string(),
  engine_status_detail: nullableStr,
  global_step: nullableInt,
});
export type EngineStatusAnswer = v.InferOutput<typeof engineStatusSchema>;

const count = v.optional(v.pipe(v.number(), v.finite()), 0);
const activeClient = v.object({
  client_uuid: v.string(),
  last_activity_at: v.optional(v.pipe(v.number(), v.finite()), 0),
  allowed_sync_weight: v.optional(v.boolean(), false),
});
const runningEpisode = v.record(v.string(), v.nullable(v.union([v.string(), v.number()])));

const poolSchema = v.object({
  sample_collection_method: v.optional(v.string(), ''),
  completed_episodes: count,
  completed_episode_target: count,
  completed_tasks: count,
  completed_task_target: count,
  completed_non_dummy_tasks: count,
  completed_non_dummy_task_target: count,
  task_expected_num_repeat: count,
  completed_tasks_details: v.optional(v.record(v.string(), v.array(v.string())), {}),
  completed_tasks_rewards: v.optional(v.record(v.string(), v.array(v.nullable(v.number()))), {}),
  completed_tasks_client_uuids: v.optional(v.record(v.string(), v.array(v.string())), {}),
  running_episode_details: v.optional(v.nullable(v.record(v.string(), runningEpisode))),
  engine_status: nullableStr,
  global_step: nullableInt,
  booting_start_time: nullableInt,
  training_model_path: nullableStr,
  swarm_client_instruction: v.optional(v.object({ active_clients: v.optional(v.array(activeClient), []) }), { active_clients: [] }),
});
export type PoolInfo = v.InferOutput<typeof poolSchema>;

const experimentDirSchema = v.object({ server_experiment_dir: nullableStr });

const verboseLogsSchema = v.object({
  entries: v.optional(
    v.array(v.object({ timestamp: v.pipe(v.number(), v.finite()), tag: v.optional(v.string(), ''), message: v.string() })),
    [],
  ),
});
export type VerboseLogEntry = v.InferOutput<typeof verboseLogsSchema>['entries'][number];

// `format` appeared after 0.0.4 with POST /v1/responses ("responses") and /v1/messages ("messages");
// a call through /v1/chat/completions carries none.
const llmCallSchema = v.object({ input: v.unknown(), output: v.unknown(), format: v.optional(v.string()) });
export type LlmCall = v.InferOutput<typeof llmCallSchema>;

export type SwarmErrorKind = 'refused' | 'timeout' | 'unreachable' | 'http' | 'invalid' | 'url';

export class SwarmError extends Error {
  constructor(
    readonly kind: SwarmErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface SwarmApiOptions {
  timeoutMs?: number;
  /** Bytes of one answer read at most (default SWARM_MAX_ANSWER_BYTES). */
  maxBytes?: number;
  /** Injected for tests; the global fetch otherwise. */
  fetchImpl?: typeof fetch;
}

/** The server's base URL without a trailing slash, or a SwarmError for something that is not http(s). */
export function normalizeSwarmUrl(raw: string): string {
  const s = raw.trim();
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`);
  } catch {
    throw new SwarmError('url', `not a URL: ${JSON.stringify(s.slice(0, 200))}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SwarmError('url', `not an http(s) URL: ${s.slice(0, 200)}`);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

export class SwarmApi {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly maxBytes: number;
  /** Requests sent (for the polling-cost benchmark and tests). */
  requests = 0;

  constructor(url: string, o: SwarmApiOptions = {}) {
    this.url = normalizeSwarmUrl(url);
    this.timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchImpl = o.fetchImpl ?? fetch;
    this.maxBytes = o.maxBytes ?? SWARM_MAX_ANSWER_BYTES;
  }

  private async call(method: 'GET' | 'POST', path: string, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
    this.requests++;
    try {
      // One deadline over connect, read and parse; a byte cap on the body (core/net/httpJson.ts).
      return await httpJson(`${this.url}${path}`, {
        method,
        ...(method === 'POST' ? { body: '{}' } : {}),
        timeoutMs: this.timeoutMs,
        maxBytes: this.maxBytes,
        ...(signal ? { signal } : {}),
        fetchImpl: this.fetchImpl,
      });
    } catch (e) {
      if (!(e instanceof HttpJsonError)) throw e;
      switch (e.failure) {
        case 'timeout':
          throw new SwarmError('timeout', `swarm server ${this.url}: no answer within ${this.timeoutMs} ms`);
        case 'cancelled':
          throw new SwarmError('unreachable', `swarm server ${this.url}: cancelled`);
        case 'refused':
          throw new SwarmError('refused', `swarm server ${this.url}: connection refused (is \`ajet-swarm start\` running?)`);
        case 'unreachable':
          throw new SwarmError('unreachable', `swarm server ${this.url}: ${e.message}`);
        case 'redirect':
          throw new SwarmError('http', `swarm server ${this.url}${path}: ${e.message}`);
        case 'not-json':
          throw new SwarmError(
            'invalid',
            `swarm server ${this.url}${path}: HTTP ${e.status ?? '?'}, the answer is not JSON (not a swarm server?)`,
          );
        default:
          throw new SwarmError('invalid', `swarm server ${this.url}${path}: ${e.message}`);
      }
    }
  }

  private async getValid<S extends v.GenericSchema>(
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    signal?: AbortSignal,
  ): Promise<v.InferOutput<S>> {
    const { status, body } = await this.call(method, path, signal);
    if (status < 200 || status >= 300) throw new SwarmError('http', `swarm server ${this.url}${path}: HTTP ${status}${detailOf(body)}`);
    const r = v.safeParse(schema, body);
    if (!r.success) {
      const issue = r.issues[0];
      const where = issue.path?.map((p) => String(p.key)).join('.') ?? '';
      throw new SwarmError(
        'invalid',
        `swarm server ${this.url}${path}: unexpected answer${where ? ` at ${where}` : ''} (${issue.message})`,
      );
    }
    return r.output;
  }

  engineStatus(signal?: AbortSignal): Promise<EngineStatusAnswer> {
    return this.getValid('GET', '/get_engine_status', engineStatusSchema, signal);
  }
  pool(signal?: AbortSignal): Promise<PoolInfo> {
    return this.getValid('GET', '/get_current_batch_rollout_pool_information', poolSchema, signal);
  }
  async experimentDir(signal?: AbortSignal): Promise<string | undefined> {
    return (await this.getValid('GET', '/get_server_experiment_dir', experimentDirSchema, signal)).server_experiment_dir ?? undefined;
  }
  async verboseLogs(signal?: AbortSignal): Promise<VerboseLogEntry[]> {
    return (await this.getValid('GET', '/get_verbose_logs', verboseLogsSchema, signal)).entries;
  }
  /** The latest LLM call the server relayed, or undefined before the first one (the server's 404). */
  async latestLlmCall(signal?: AbortSignal): Promise<LlmCall | undefined> {
    const { status, body } = await this.call('POST', '/replay_latest_llm_call', signal);
    if (status === 404) return undefined;
    if (status < 200 || status >= 300)
      throw new SwarmError('http', `swarm server ${this.url}/replay_latest_llm_call: HTTP ${status}${detailOf(body)}`);
    const r = v.safeParse(llmCallSchema, body);
    if (!r.success) throw new SwarmError('invalid', `swarm server ${this.url}/replay_latest_llm_call: unexpected answer`);
    return r.output;
  }
  /** Ends the training process on the server (every client's episodes end with it). */
  async stopEngine(signal?: AbortSignal): Promise<void> {
    const { status, body } = await this.call('POST', '/stop_engine', signal);
    if (status < 200 || status >= 300)
      throw new SwarmError('http', `swarm server ${this.url}/stop_engine: HTTP ${status}${detailOf(body)}`);
  }
}

function detailOf(body: unknown): string {
  if (body && typeof body === 'object' && 'detail' in body) {
    const d = (body as { detail: unknown }).detail;
    if (typeof d === 'string') return `: ${d.replace(/\s+/g, ' ').slice(0, 200)}`;
  }
  return '';
}

/** One look at a server: what `agentjet swarm status --format json` prints. */
export interface SwarmStatus {
  url: string;
  engine_status: string;
  engine_status_detail: string | null;
  global_step: number | null;
  server_experiment_dir: string | null;
  training_model_path: string | null;
  pool: PoolInfo;
}

/** Engine status, rollout pool and experiment folder, in parallel. */
export async function fetchStatus(api: SwarmApi, signal?: AbortSignal): Promise<SwarmStatus> {
  const [st, pool, dir] = await Promise.all([api.engineStatus(signal), api.pool(signal), api.experimentDir(signal)]);
  return {
    url: api.url,
    engine_status: st.engine_status,
    engine_status_detail: st.engine_status_detail ?? null,
    global_step: st.global_step ?? null,
    server_experiment_dir: dir ?? null,
    training_model_path: pool.training_model_path ?? null,
    pool,
  };
}
