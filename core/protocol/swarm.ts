// Messages between the swarm overwatch webview (media/swarm/main.ts) and the extension
// (extension/swarm/overwatch.ts). The webview is not trusted: it names no server, path or URL;
// every action applies to the server its panel was opened for. Checked with valibot below.
import * as v from 'valibot';

/** An episode a client holds open now, from the rollout pool. */
export interface RunningEpisode {
  episode: string;
  client: string;
  llmCalls: number;
  sinceActivity: string;
  timeout: string;
  taskId?: string;
}

/** One client's share of the current batch, from the rollout pool. */
export interface ClientRow {
  client: string;
  /** Episodes it holds open now. */
  running: number;
  /** Episodes it ended in this batch; undefined when the server does not say (see core/swarm/model.ts episodesByClient). */
  completed?: number;
  /** Distinct tasks of its running and completed episodes, as far as known. */
  tasks: number;
  /** LLM calls of its running episodes. */
  llmCalls: number;
  /** Mean reward of its completed episodes that the pool attributes to it. */
  mean?: number;
  /** Rewards that mean is over. */
  rewarded: number;
  /** The reward of the last of its episodes the trainer scored, when its episodes are known. */
  lastReward?: number;
  /** In the server's active-client list (ended a rewarded episode since the last weight sync). */
  active: boolean;
  /** Agreed to the next weight sync. */
  agreed: boolean;
}

export const OVERWATCH_VIEW_TYPE = 'agentjet.swarmOverwatch';

export interface OverwatchData {
  url: string;
  reachability: 'unknown' | 'ok' | 'error';
  error?: string;
  engineState?: string;
  /** "for 3 min 5 s" in the display language. */
  stateFor?: string;
  detail?: string;
  globalStep?: number;
  model?: string;
  experimentDir?: string;
  method?: string;
  local: boolean;
  progress: { label: string; current: number; target: number }[];
  activeClients: { id: string; agreed: boolean; mine?: boolean }[];
  tasks: { taskId: string; episodes: number; mean?: number; std?: number; clients: string[]; mine?: boolean }[];
  byClient: (ClientRow & { mine?: boolean })[];
  running: (RunningEpisode & { mine?: boolean })[];
  /** The swarm clients launched from the editor against this server (debug sessions), while they run. */
  editorClients: EditorClientInfo[];
  rewards: { step: number; mean: number; episodes: number }[];
  logs: { time: string; tag: string; message: string }[];
  /** The latest LLM call, pretty-printed JSON (untrusted text), and the API it came through. */
  llmCall?: { input: string; output: string; api: LlmCallApi };
}

/** Which endpoint of the swarm server took the call: `/v1/chat/completions`, `/v1/responses`, `/v1/messages`. */
export type LlmCallApi = 'chat' | 'responses' | 'messages' | 'other';

/** The API of a stored call from its `format` (absent: chat completions, as before `format` existed). */
export function llmCallApi(format: string | undefined): LlmCallApi {
  if (format === undefined || format === 'chat' || format === 'chat_completions') return 'chat';
  return format === 'responses' || format === 'messages' ? format : 'other';
}

export interface EditorClientInfo {
  /** The debug session's name (e.g. "AgentJet: swarm client client.py"). */
  session: string;
  /** The client uuids it has on this server (empty until the client shows itself). */
  clients: string[];
  /** Its episodes on the server now (running). */
  runningEpisodes: number;
}

export type HostToOverwatch = { type: 'data'; data: OverwatchData };

export type OverwatchToHost =
  { type: 'ready' } | { type: 'stopEngine' } | { type: 'openExperiment' } | { type: 'copyUrl' } | { type: 'refresh' };

/** What the panel keeps (setState) and its serializer restores after a reload. */
export interface OverwatchState {
  url: string;
}

const toHost = v.variant('type', [
  v.object({ type: v.literal('ready') }),
  v.object({ type: v.literal('stopEngine') }),
  v.object({ type: v.literal('openExperiment') }),
  v.object({ type: v.literal('copyUrl') }),
  v.object({ type: v.literal('refresh') }),
]);
const state = v.object({ url: v.pipe(v.string(), v.maxLength(2048)) });

export function checkOverwatchToHost(m: unknown): OverwatchToHost | undefined {
  const r = v.safeParse(toHost, m);
  return r.success ? r.output : undefined;
}
export function checkOverwatchState(m: unknown): OverwatchState | undefined {
  const r = v.safeParse(state, m);
  return r.success ? r.output : undefined;
}
