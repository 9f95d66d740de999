// The scans the client's created-paths notices ask for (CREATED_PATHS_NOTIFICATION), one at a time
// and coalesced: notices that arrive while a scan runs wait as one pending scan, so a burst of
// "more" notices (an unzip, a generator writing 10,000 configs) costs one scan of the folders, not
// one per notice, and created folders wait as one set.
export interface CreatedScanRunner {
  /** Scans the workspace folders again (`notices` said `more`: too many paths to list). */
  full(notices: number): Promise<void>;
  /** Scans these created paths (the runner checks they are folders in the workspace). */
  paths(paths: readonly string[]): Promise<void>;
  /** A scan failed (logged; the next notice scans again). */
  failed(err: unknown): void;
}

/**
 * A full scan starts once no "more" notice came for QUIET_MS (at most MAX_WAIT_MS after the first):
 * a burst (an unzip, a generator, a client sending many) is answered by one scan.
 */
export const QUIET_MS = 100;
export const MAX_WAIT_MS = 2000;

/** Created paths kept for the pending scan at most (past it the folders are scanned whole). */
export const MAX_PENDING_PATHS = 4096;

export class CreatedScans {
  private full = false;
  /** How many notices the pending full scan answers. */
  private notices = 0;
  private readonly paths = new Set<string>();
  private running: Promise<void> | undefined;

  constructor(private readonly runner: CreatedScanRunner) {}

  /** A created-paths notice: queued into the pending scan; resolves when a scan covering it has run. */
  add(paths: readonly string[], more: boolean): Promise<void> {
    if (more) {
      this.full = true;
      this.notices++;
    }
    for (const p of paths) {
      if (this.paths.size >= MAX_PENDING_PATHS) {
        // Too many to keep: the folders are scanned again whole instead.
        this.full = true;
        break;
      }
      this.paths.add(p);
    }
    this.running ??= this.drain().finally(() => (this.running = undefined));
    return this.running;
  }

  private async drain(): Promise<void> {
    while (this.full || this.paths.size) {
      // Yield first: notices already on the wire join this scan instead of queueing their own.
      await new Promise<void>((r) => setImmediate(r));
      try {
        if (this.full) {
          const since = Date.now();
          for (let seen = -1; seen !== this.notices && Date.now() - since < MAX_WAIT_MS;) {
            seen = this.notices;
            await new Promise<void>((r) => setTimeout(r, QUIET_MS));
          }
          const notices = this.notices;
          this.full = false;
          this.notices = 0;
          await this.runner.full(notices);
        }
        // Folders a full scan does not enter (dot folders) are scanned on their own, after it; files
        // it already read are not read again.
        if (this.paths.size) {
          const batch = [...this.paths];
          this.paths.clear();
          await this.runner.paths(batch);
        }
      } catch (err) {
        this.runner.failed(err);
      }
    }
  }
}
