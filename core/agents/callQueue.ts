// How many tool calls an MCP server works on at once. A client may send any number of requests
// without waiting: 2,000 `agentjet_log_stats` calls at once took the server to 5.3 GB and out of
// heap (issue 39 R2). Calls run a few at a time, in order of arrival; a bounded number wait; a call
// past that is answered at once with a message saying so. A waiting call the client cancels leaves
// the queue without having run.
import { t } from '../l10n';
import { callTool, type AgentToolAnswer } from './tools';
import type { AgentToolEnv } from './toolkit';

export interface CallQueueLimits {
  /** Calls worked on at once. */
  running: number;
  /** Calls waiting for a turn; one more is refused. */
  waiting: number;
}

/** Two cores are common: a few calls at once keep the server answering (ping, list) and its memory bounded. */
export const MCP_CALL_LIMITS: CallQueueLimits = { running: 4, waiting: 64 };

/** A call refused because the queue is full (the message says why and what to do). */
export class QueueFullError extends Error {
  constructor(limits: CallQueueLimits) {
    super(
      t(
        'the server is busy: {0} tool calls are running and {1} are waiting, the most it takes; send this call again once earlier ones have answered',
        String(limits.running),
        String(limits.waiting),
      ),
    );
    this.name = 'QueueFullError';
  }
}

interface Waiting {
  start: () => void;
}

export class CallQueue {
  private active = 0;
  private readonly queue: Waiting[] = [];
  /** Most calls seen running at once (tests, measurements). */
  peakRunning = 0;

  constructor(private readonly limits: CallQueueLimits = MCP_CALL_LIMITS) {}

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `task` when a turn comes. Rejects with QueueFullError when the queue is full, and with
   * the signal's reason when `signal` aborts before the call started.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const go = async (): Promise<T> => {
      this.active++;
      if (this.active > this.peakRunning) this.peakRunning = this.active;
      try {
        return await task();
      } finally {
        this.active--;
        this.queue.shift()?.start();
      }
    };
    if (this.active < this.limits.running) return go();
    if (this.queue.length >= this.limits.waiting) return Promise.reject(new QueueFullError(this.limits));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortReason(signal!));
      };
      const entry: Waiting = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          go().then(resolve, reject);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }
}

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new Error(t('cancelled'));

/** callTool through the queue: a refused or cancelled call is a tool error with its reason. */
export function queuedCall(
  queue: CallQueue,
  name: string,
  args: unknown,
  env: AgentToolEnv,
  signal?: AbortSignal,
): Promise<AgentToolAnswer> {
  return queue
    .run(() => callTool(name, args, env, signal), signal)
    .catch((err: unknown) => ({
      isError: true,
      text: err instanceof QueueFullError ? err.message : t('{0} was cancelled', name),
    }));
}
