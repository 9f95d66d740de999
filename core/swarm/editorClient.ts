// Which of a swarm server's clients is the one the editor launched (the `swarmClient` launch).
// AgentJet 0.0.4 gives a client no name the launcher could choose: `SwarmClient.__init__` sets
// `client_uuid = str(uuid.uuid4())`, reads no environment variable for it, and the server knows a
// client only by that uuid (on `/claim_episode`, `/end_episode`, `/abort_episode`,
// `/agree_sync_weight`). What the client's own process does show, without any change to the
// user's code:
//   - its engine-status poll thread is named `SwarmClient-EngineStatusPoll-<first 8 chars of the
//     uuid>` (swarm_client.py); debugpy reports thread names in the DAP `threads` answer, so a
//     debugged client is known from the moment its SwarmClient exists;
//   - with `verbose=True` (the default) it logs `Claimed episode <episode_uuid>, …` per claim (loguru,
//     stderr), which the launch's output carries, also in a run without the debugger; the server's
//     rollout pool then names the client of that episode (`running_episode_details[e].client_uuid`,
//     or, once ended, `completed_tasks_details` + `completed_tasks_client_uuids` when the task had
//     one client).
// Pure: the extension feeds thread names, output text and pool snapshots.
import type { PoolInfo } from './api';

export const POLL_THREAD_PREFIX = 'SwarmClient-EngineStatusPoll-';

/** The 8-character uuid prefixes of the SwarmClients whose poll threads are in `names`. */
export function clientPrefixesFromThreads(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const n of names) {
    const i = n.indexOf(POLL_THREAD_PREFIX);
    if (i < 0) continue;
    const p = n.slice(i + POLL_THREAD_PREFIX.length, i + POLL_THREAD_PREFIX.length + 8);
    if (/^[0-9a-f]{8}$/i.test(p)) out.add(p.toLowerCase());
  }
  return [...out];
}

const CLAIMED = /Claimed episode ([0-9A-Za-z][0-9A-Za-z_-]{7,80})\b/g;

/** Episode uuids the client logged as claimed (`Claimed episode <uuid>, current global step: …`). */
export function claimedEpisodesFromOutput(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CLAIMED)) out.push(m[1]!);
  return out;
}

/** Every client uuid the pool names (running episodes, finished ones, active clients). */
export function poolClients(pool: PoolInfo): Set<string> {
  const all = new Set<string>();
  for (const d of Object.values(pool.running_episode_details ?? {})) {
    const c = d.client_uuid;
    if (typeof c === 'string' && c) all.add(c);
  }
  for (const cs of Object.values(pool.completed_tasks_client_uuids)) for (const c of cs) if (c) all.add(c);
  for (const c of pool.swarm_client_instruction.active_clients) if (c.client_uuid) all.add(c.client_uuid);
  return all;
}

/** The client that ran `episode`, as far as the pool tells. */
export function clientOfEpisode(pool: PoolInfo, episode: string): string | undefined {
  const running = pool.running_episode_details?.[episode]?.client_uuid;
  if (typeof running === 'string' && running) return running;
  for (const [task, eps] of Object.entries(pool.completed_tasks_details)) {
    if (!eps.includes(episode)) continue;
    const cs = new Set(pool.completed_tasks_client_uuids[task] ?? []);
    // Rewards and episodes come from the trainer, clients from the server, in no common order:
    // only a task with one client names it.
    if (cs.size === 1) return [...cs][0];
  }
  return undefined;
}

/** What the editor knows of its client so far. */
export interface EditorClientClues {
  /** From thread names. */
  prefixes: readonly string[];
  /** From the client's log. */
  episodes: readonly string[];
}

/** The full client uuids the clues name in this pool. */
export function resolveEditorClients(pool: PoolInfo, clues: EditorClientClues): string[] {
  const found = new Set<string>();
  if (clues.prefixes.length) {
    const ps = clues.prefixes.map((p) => p.toLowerCase());
    for (const c of poolClients(pool)) if (ps.some((p) => c.toLowerCase().startsWith(p))) found.add(c);
  }
  for (const e of clues.episodes) {
    const c = clientOfEpisode(pool, e);
    if (c) found.add(c);
  }
  return [...found];
}

/** True when `client` is one of the editor's: a resolved uuid, or a thread prefix of one not seen by the pool yet. */
export function isEditorClient(client: string, ids: readonly string[], prefixes: readonly string[]): boolean {
  if (!client) return false;
  if (ids.includes(client)) return true;
  const c = client.toLowerCase();
  return prefixes.some((p) => c.startsWith(p.toLowerCase()));
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0']);

/** A key equal for two URLs of the same server (`localhost` and `127.0.0.1` are one machine). */
export function serverKey(url: string): string {
  try {
    const u = new URL(url);
    const host = LOOPBACK.has(u.hostname) ? 'loopback' : u.hostname.toLowerCase();
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    return `${u.protocol}//${host}:${port}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url;
  }
}
