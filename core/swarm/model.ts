// What the editor knows about one swarm server between polls: the latest rollout pool, since when
// the engine has been in its state, the reason it cannot be reached, and the reward per global
// step. The server forgets a batch's rewards at every weight sync; the history here keeps them.
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

export interface RunningEpisode {
  episode: string;
  client: string;
  llmCalls: number;
  sinceActivity: string;
  timeout: string;
  taskId?: string;
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

/** One client's share of the current batch, from the rollout pool. */
export interface ClientRow {
  client: string;
  /** Episodes it holds open now. */
  running: number;
  /** Episodes it ended in this batch. */
  completed: number;
  /** Distinct tasks of those episodes (running ones with a task id, and completed ones). */
  tasks: number;
  /** LLM calls of its running episodes. */
  llmCalls: number;
  /** Mean reward over the tasks only this client completed (the pool gives no per-episode client of a shared task). */
  mean?: number;
  /** Rewards that mean is over. */
  rewarded: number;
  /** In the server's active-client list (ended a rewarded episode since the last weight sync). */
  active: boolean;
  /** Agreed to the next weight sync. */
  agreed: boolean;
}

/**
 * Episodes per client: running ones and completed ones in this batch, tasks, LLM calls and the
 * rewards that can be attributed. The server reports a client per running episode
 * (`running_episode_details`) and, per task, one client uuid per ended episode
 * (`completed_tasks_client_uuids`); rewards are per task and in the trainer's order, so a reward
 * belongs to a client only when its task had that one client.
 */
export function episodesByClient(pool: PoolInfo): ClientRow[] {
  const m = new Map<string, ClientRow & { taskSet: Set<string>; rewards: number[] }>();
  const get = (c: string) => {
    let r = m.get(c);
    if (!r) {
      r = {
        client: c,
        running: 0,
        completed: 0,
        tasks: 0,
        llmCalls: 0,
        rewarded: 0,
        active: false,
        agreed: false,
        taskSet: new Set(),
        rewards: [],
      };
      m.set(c, r);
    }
    return r;
  };
  for (const r of runningEpisodes(pool)) {
    const row = get(r.client);
    row.running++;
    row.llmCalls += r.llmCalls;
    if (r.taskId) row.taskSet.add(r.taskId);
  }
  for (const [task, cs] of Object.entries(pool.completed_tasks_client_uuids)) {
    for (const c of cs) {
      const row = get(c);
      row.completed++;
      row.taskSet.add(task);
    }
    const only = new Set(cs);
    if (only.size === 1) {
      const rs = (pool.completed_tasks_rewards[task] ?? []).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
      get([...only][0]!).rewards.push(...rs);
    }
  }
  for (const a of pool.swarm_client_instruction.active_clients) {
    const row = get(a.client_uuid);
    row.active = true;
    row.agreed = a.allowed_sync_weight;
  }
  return [...m.values()]
    .map(({ taskSet, rewards, ...row }) => ({
      ...row,
      tasks: taskSet.size,
      rewarded: rewards.length,
      ...(rewards.length ? { mean: rewards.reduce((a, b) => a + b, 0) / rewards.length } : {}),
    }))
    .sort((a, b) => b.completed + b.running - (a.completed + a.running) || a.client.localeCompare(b.client));
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
