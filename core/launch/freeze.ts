// The first act of a stop on POSIX: the launch's process groups are stopped where they are
// (SIGSTOP), so nothing of the launch runs or forks while the stop reads the process list and the
// companions (a few hundred ms on a busy machine). The polite phase then sends SIGTERM and thaws
// (SIGCONT): each process handles its SIGTERM before it runs another line. Whatever was frozen is
// always thawed: by the stop itself, and by a timer should the stop never get that far.

/** Sends a signal; false when the target is gone or not ours. */
export type SignalSender = (target: number, signal: NodeJS.Signals) => boolean;

const sendSignal: SignalSender = (target, signal) => {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
};

export class GroupFreezer {
  private readonly frozen = new Set<number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: SignalSender = sendSignal,
    /** Thawed by this time at the latest, stop or no stop. */
    private readonly maxFrozenMs = 10_000,
  ) {}

  /** The groups frozen now. */
  get groups(): number[] {
    return [...this.frozen];
  }

  /** Stops each of `groups` but those in `spare`; returns those it froze. */
  freeze(groups: Iterable<number>, spare: ReadonlySet<number>): number[] {
    const now: number[] = [];
    for (const g of groups) {
      if (!Number.isInteger(g) || g <= 1 || spare.has(g) || this.frozen.has(g)) continue;
      if (this.send(-g, 'SIGSTOP')) {
        this.frozen.add(g);
        now.push(g);
      }
    }
    if (this.frozen.size && !this.timer) {
      this.timer = setTimeout(() => this.thaw(), this.maxFrozenMs);
      this.timer.unref();
    }
    return now;
  }

  /** Lets every frozen group go on (their pending signals first). */
  thaw(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const g of this.frozen) this.send(-g, 'SIGCONT');
    this.frozen.clear();
  }
}
