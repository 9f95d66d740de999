// Polls one thing on an adaptive interval: fast while something changes (a state change, an
// episode ending), slower once it is quiet, slower still after failures; stopped while nobody
// looks. A poll never starts while the previous one is still waiting for its answer.
export interface PollerOptions {
  /** Interval right after a change (ms). */
  fastMs?: number;
  /** Interval once nothing changed for `calmAfterMs` (ms). */
  slowMs?: number;
  calmAfterMs?: number;
  /** Longest interval after repeated failures (ms). */
  maxBackoffMs?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (h: unknown) => void;
}

/** The tick resolves true when what it saw changed, false when not; it rejects on failure. */
export type Tick = (signal: AbortSignal) => Promise<boolean>;

export class AdaptivePoller {
  private timer: unknown;
  private inFlight: Promise<void> | undefined;
  private again = false;
  private running = false;
  private lastChange: number;
  private failures = 0;
  private abort?: AbortController;
  readonly fastMs: number;
  readonly slowMs: number;
  private readonly calmAfterMs: number;
  private readonly maxBackoffMs: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (h: unknown) => void;
  /** Polls started (for tests and the benchmark). */
  ticks = 0;

  constructor(
    private readonly tick: Tick,
    o: PollerOptions = {},
  ) {
    this.fastMs = o.fastMs ?? 1000;
    this.slowMs = o.slowMs ?? 5000;
    this.calmAfterMs = o.calmAfterMs ?? 30_000;
    this.maxBackoffMs = o.maxBackoffMs ?? 30_000;
    this.now = o.now ?? Date.now;
    this.setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = o.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
    this.lastChange = this.now();
  }

  get active(): boolean {
    return this.running;
  }

  /** The wait before the next poll. */
  interval(): number {
    if (this.failures > 0) return Math.min(this.maxBackoffMs, this.slowMs * 2 ** Math.min(this.failures - 1, 6));
    return this.now() - this.lastChange < this.calmAfterMs ? this.fastMs : this.slowMs;
  }

  /** Starts polling now (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastChange = this.now();
    this.poke();
  }

  /** Stops; an answer still on its way is dropped. */
  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
    this.abort?.abort();
  }

  /** Polls as soon as possible: now when idle, right after the poll in flight otherwise. */
  poke(): void {
    if (!this.running) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
    this.inFlight = this.run().finally(() => {
      this.inFlight = undefined;
      if (!this.running) return;
      if (this.again) {
        this.again = false;
        this.poke();
      } else this.schedule();
    });
  }

  /** Resolves after the poll in flight (if any) settles. */
  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  private schedule(): void {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = this.setTimer(() => {
      this.timer = undefined;
      this.poke();
    }, this.interval());
  }

  private async run(): Promise<void> {
    this.ticks++;
    this.abort = new AbortController();
    try {
      const changed = await this.tick(this.abort.signal);
      this.failures = 0;
      if (changed) this.lastChange = this.now();
    } catch {
      this.failures++;
    }
  }
}
