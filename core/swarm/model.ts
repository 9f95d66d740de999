// What the editor knows about one swarm server between polls: the latest rollout pool, since when
// the engine has been in its state, the reason it cannot be reached, and the reward per global
// step. The server forgets a batch's rewards at every weight sync; the history here keeps them.
import type { ClientRow, RunningEpisode } from '../protocol/swarm';
import type { PoolInfo, SwarmStatus } from './api';

export interface RewardPoint {
  step: number;
  mean: number;
  /** Episodes the mean is over. */
  episodes: number;
}

/** Mean reward per global step, kept across weight syncs (one point per step, the latest batch seen). */
export class RewardHistory {
  private readonly byStep = new Map<number, RewardPoint & { key: string }>();
  /** Fingerprint of the batch last recorded: a pool the server still holds from the previous step is not re-counted. */
  private lastKey = '';
  constructor(private readonly maxPoints = 2000) {}

  record(step: number | null | undefined, pool: PoolInfo): boolean {
    if (step === null || step === undefined) return false;
    const rewards = Object.values(pool.completed_tasks_rewards)
      .flat()
      .filter((r): r is number => typeof r === 'number' && Number.isFinite(r));
    if (rewards.length === 0) return false;
    const key = Object.values(pool.completed_tasks_details).flat().sort().join(',');
    const prev = this.byStep.get(step);
    if (key === this.lastKey && (!prev || prev.key !== key)) return false;
    if (prev && prev.key === key) return false;
    this.lastKey = key;
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    this.byStep.set(step, { step, mean, episodes: rewards.length, key });
    if (this.byStep.size > this.maxPoints) this.byStep.delete(Math.min(...this.byStep.keys()));
    return true;
  }

  points(): RewardPoint[] {
    return [...this.byStep.values()].sort((a, b) => a.step - b.step).map(({ step, mean, episodes }) => ({ step, mean, episodes }));
  }
}

export interface TaskRow {
  taskId: string;
  episodes: number;
  mean?: number;
  std?: number;
  clients: string[];
}

/** The per-task reward table `ajet-swarm overwatch` shows, most episodes first. */
export function taskRows(pool: PoolInfo): TaskRow[] {
  const rows: TaskRow[] = [];
  for (const [taskId, eps] of Object.entries(pool.completed_tasks_details)) {
    const rs = (pool.completed_tasks_rewards[taskId] ?? []).filter((r): r is number => typeof r === 'number' && Number.isFinite(r));
    const row: TaskRow = { taskId, episodes: eps.length, clients: [...new Set(pool.completed_tasks_client_uuids[taskId] ?? [])] };
    if (rs.length) {
      const mean = rs.reduce((a, b) => a + b, 0) / rs.length;
      row.mean = mean;
      row.std = Math.sqrt(rs.reduce((a, b) => a + (b - mean) ** 2, 0) / rs.length);
    }
    rows.push(row);
  }
  return rows.sort((a, b) => b.episodes - a.episodes || a.taskId.localeCompare(b.taskId));
}

export function runningEpisodes(pool: PoolInfo): RunningEpisode[] {
  const out: RunningEpisode[] = [];
  for (const [episode, d] of Object.entries(pool.running_episode_details ?? {})) {
    const s = (k: string): string => {
      const x = d[k];
      return x === null || x === undefined ? '' : String(x);
    };
    out.push({
      episode,
      client: s('client_uuid'),
      llmCalls: Number(s('llm_call_count')) || 0,
      sinceActivity: s('time_since_last_activity'),
      timeout: s('discard_episode_timeout'),
      taskId: s('optional_task_id') || undefined,
    });
  }
  return out;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * Episodes per client in the current batch. What AgentJet 0.0.4's server reports per client:
 *   - running episodes, each with its client (`running_episode_details[e].client_uuid`);
 *   - per task, one client uuid per ended episode (`completed_tasks_client_uuids`), but only for
 *     episodes claimed with a throttle policy (the server records a task id at claim time only
 *     then); the list is in the server's order, not the trainer's, so rewards are attributed only
 *     for tasks with a single client;
 *   - the active clients (ended a rewarded episode since the last weight sync) and their sync vote.
 * The trainer reports each ended episode's uuid and reward per task (`completed_tasks_details`,
 * `completed_tasks_rewards`, same order). For a client whose episode uuids are known (`known`: the
 * editor's client, from its log or from its running episodes seen earlier), its completed
 * episodes, tasks, rewards and last reward are exact.
 */
export function episodesByClient(pool: PoolInfo, known: ReadonlyMap<string, readonly string[]> = new Map()): ClientRow[] {
  interface Acc {
    row: ClientRow;
    taskSet: Set<string>;
    rewards: number[];
    byServer: number;
  }
  const m = new Map<string, Acc>();
  const get = (c: string): Acc => {
    let r = m.get(c);
    if (!r) {
      r = {
        row: { client: c, running: 0, tasks: 0, llmCalls: 0, rewarded: 0, active: false, agreed: false },
        taskSet: new Set(),
        rewards: [],
        byServer: 0,
      };
      m.set(c, r);
    }
    return r;
  };
  for (const r of runningEpisodes(pool)) {
    const a = get(r.client);
    a.row.running++;
    a.row.llmCalls += r.llmCalls;
    if (r.taskId) a.taskSet.add(r.taskId);
  }
  const serverSays = Object.keys(pool.completed_tasks_client_uuids).length > 0;
  for (const [task, cs] of Object.entries(pool.completed_tasks_client_uuids)) {
    for (const c of cs) {
      if (known.has(c)) continue;
      const a = get(c);
      a.byServer++;
      a.taskSet.add(task);
    }
    const only = new Set(cs);
    if (only.size === 1 && !known.has([...only][0]!))
      get([...only][0]!).rewards.push(...(pool.completed_tasks_rewards[task] ?? []).filter(finite));
  }
  // Episode uuid -> [task, reward] from the trainer's report.
  const scored = new Map<string, [string, number | undefined]>();
  for (const [task, eps] of Object.entries(pool.completed_tasks_details)) {
    const rs = pool.completed_tasks_rewards[task] ?? [];
    eps.forEach((e, i) => scored.set(e, [task, finite(rs[i]) ? rs[i] : undefined]));
  }
  for (const [client, eps] of known) {
    const a = get(client);
    let n = 0;
    for (const e of eps) {
      const hit = scored.get(e);
      if (!hit) continue;
      n++;
      a.taskSet.add(hit[0]);
      if (hit[1] !== undefined) {
        a.rewards.push(hit[1]);
        a.row.lastReward = hit[1];
      }
    }
    a.row.completed = n;
  }
  for (const c of pool.swarm_client_instruction.active_clients) {
    const a = get(c.client_uuid);
    a.row.active = true;
    a.row.agreed = c.allowed_sync_weight;
  }
  return [...m.values()]
    .map(({ row, taskSet, rewards, byServer }) => {
      const out: ClientRow = { ...row, tasks: taskSet.size, rewarded: rewards.length };
      if (out.completed === undefined && (serverSays || pool.completed_episodes === 0)) out.completed = byServer;
      if (rewards.length) out.mean = rewards.reduce((x, y) => x + y, 0) / rewards.length;
      return out;
    })
    .sort((a, b) => (b.completed ?? 0) + b.running - ((a.completed ?? 0) + a.running) || a.client.localeCompare(b.client));
}

export interface Progress {
  label: 'episodes' | 'tasks' | 'non-dummy tasks';
  current: number;
  target: number;
}

/** Progress toward the next weight update, the counter the sample-collection method stops on first. */
export function progress(pool: PoolInfo): Progress[] {
  const all: Progress[] = [
    { label: 'episodes', current: pool.completed_episodes, target: pool.completed_episode_target },
    { label: 'tasks', current: pool.completed_tasks, target: pool.completed_task_target },
    { label: 'non-dummy tasks', current: pool.completed_non_dummy_tasks, target: pool.completed_non_dummy_task_target },
  ];
  const first: Record<string, Progress['label']> = {
    rollout_until_finish_enough_episodes: 'episodes',
    rollout_until_finish_enough_tasks: 'tasks',
    rollout_until_finish_enough_non_dummy_tasks: 'non-dummy tasks',
  };
  const lead = first[pool.sample_collection_method];
  return lead ? [...all.filter((p) => p.label === lead), ...all.filter((p) => p.label !== lead)] : all;
}

export type Reachability = 'unknown' | 'ok' | 'error';

/** One server as the view shows it. */
export class SwarmServerModel {
  reachability: Reachability = 'unknown';
  error?: string;
  status?: SwarmStatus;
  /** When the engine entered its current state, as first observed here (ms). */
  stateSince?: number;
  /** When the last good answer came (ms). */
  updatedAt?: number;
  readonly rewards = new RewardHistory();
  /** Bumped on every change the view must show. */
  version = 0;

  constructor(readonly url: string) {}

  get engineState(): string | undefined {
    return this.status?.engine_status;
  }

  /** Takes a fresh answer; returns true when something the view shows changed. */
  update(s: SwarmStatus, now: number): boolean {
    const before = this.fingerprint();
    if (this.status?.engine_status !== s.engine_status || this.reachability !== 'ok') {
      if (this.status?.engine_status !== s.engine_status) this.stateSince = now;
    }
    // The server tells when booting began; prefer it for BOOTING.
    if (s.engine_status === 'ENGINE.BOOTING' && typeof s.pool.booting_start_time === 'number')
      this.stateSince = s.pool.booting_start_time * 1000;
    this.status = s;
    this.reachability = 'ok';
    this.error = undefined;
    this.updatedAt = now;
    const grew = this.rewards.record(s.global_step, s.pool);
    const changed = grew || before !== this.fingerprint();
    if (changed) this.version++;
    return changed;
  }

  fail(message: string): boolean {
    const changed = this.reachability !== 'error' || this.error !== message;
    this.reachability = 'error';
    this.error = message;
    if (changed) this.version++;
    return changed;
  }

  private fingerprint(): string {
    return JSON.stringify([this.reachability, this.error, this.status]);
  }
}

/** Seconds as "42 s", "3 min 5 s", "2 h 4 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
