// The launch record of a launch that still runs (F5, a task, a CodeLens, `agentjet debug-task`):
// written from the moment the launch is prepared and rewritten at every event of its owner
// (core/launch/owner.ts: stage, stop asked, paused or resumed in the debugger), so the Runs view
// and `agentjet runs` say what the launch does at every moment ("preparing", "running", "paused in
// the debugger since 14:02", "stopping"), then what it did (core/launch/record.ts writes the last
// record, with the exit status, over this one). Writes never block: they run one after the other,
// and a burst of events makes one write.
import { removeLaunchRecord, writeLaunchRecordAsync, type LaunchPhase, type LaunchRecord } from '../agentjet/launchRecord';
import { launchRecordId } from '../agentjet/launchRecord';
import type { LaunchOwner } from './owner';

export interface LiveRecordEvents {
  /** The record was written in `folder` (the experiment folder): views reading it may look again. */
  written?(folder: string): void;
  /** It could not be (a read-only folder): the launch goes on. */
  error?(message: string): void;
}

export interface LiveRecordFields {
  cwd: string;
  config: string;
  via: string;
  startMs: number;
}

export class LiveRecord {
  readonly id: string;
  private pid: number | undefined;
  private pidMs: number | undefined;
  private phase: LaunchPhase | undefined;
  private phaseSinceMs = 0;
  private chain: Promise<void> = Promise.resolve();
  private queued = false;
  private closed = false;
  /** The folder the record was last written in. */
  private where: string | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly owner: LaunchOwner,
    private readonly fields: LiveRecordFields,
    private readonly folderNow: () => string,
    private readonly command: () => string[],
    private readonly events: LiveRecordEvents = {},
  ) {
    // The file stem: the start, the process preparing the launch and a counter (two launches of one window in one second).
    this.id = `${launchRecordId(fields.startMs, process.pid)}-${++seq}`;
    this.unsubscribe = owner.onEvent((e) => {
      if (e.kind !== 'ended') this.changed();
    });
    this.changed();
  }

  get startMs(): number {
    return this.fields.startMs;
  }
  get cwd(): string {
    return this.fields.cwd;
  }
  get config(): string {
    return this.fields.config;
  }
  get via(): string {
    return this.fields.via;
  }

  /** Where the record is now (the expected folder until the launcher names its own). */
  get folder(): string | undefined {
    return this.where;
  }

  setPid(pid: number | undefined): void {
    if (!pid || pid === this.pid) return;
    this.pid = pid;
    this.pidMs = Date.now();
    this.changed();
  }

  /** Something the record shows changed: one write after those already queued. */
  changed(): void {
    if (this.closed || this.queued) return;
    this.queued = true;
    this.chain = this.chain.then(async () => {
      this.queued = false;
      if (!this.closed) await this.write();
    });
  }

  /** No more live writes: resolves once the last one landed (the final record follows). */
  async close(): Promise<this> {
    this.closed = true;
    this.unsubscribe();
    await this.chain;
    return this;
  }

  /** The final record went to `folder` (core/launch/record.ts). */
  written(folder: string): void {
    this.where = folder;
    this.events.written?.(folder);
  }

  /** Removes the record (a launch refused before anything ran leaves no run behind). */
  async remove(): Promise<void> {
    await this.close();
    const at = this.where;
    if (!at) return;
    this.where = undefined;
    await removeLaunchRecord(at, this.id).catch(() => undefined);
    this.events.written?.(at);
  }

  private phaseNow(): LaunchPhase {
    const o = this.owner;
    if (o.stopRequested) return 'stopping';
    if (o.pausedSinceMs !== undefined) return 'paused';
    return o.stage === 'running' ? 'running' : 'preparing';
  }

  private async write(): Promise<void> {
    const phase = this.phaseNow();
    if (phase !== this.phase) {
      this.phase = phase;
      this.phaseSinceMs = phase === 'paused' ? (this.owner.pausedSinceMs ?? Date.now()) : Date.now();
    }
    const folder = this.folderNow();
    const f = this.fields;
    const rec: Omit<LaunchRecord, 'format'> = {
      id: this.id,
      command: this.command(),
      cwd: f.cwd,
      config: f.config,
      startMs: f.startMs,
      via: f.via,
      phase,
      phaseSinceMs: this.phaseSinceMs,
      ownerPid: process.pid,
      ...(this.pid !== undefined ? { pid: this.pid, pidMs: this.pidMs ?? Date.now() } : {}),
      ...(this.owner.stopRequestedMs !== undefined ? { stopRequestedMs: this.owner.stopRequestedMs } : {}),
    };
    try {
      await writeLaunchRecordAsync(folder, rec);
      const before = this.where;
      this.where = folder;
      // The launcher named another folder than the expected one: the record moves there.
      if (before && before !== folder) {
        await removeLaunchRecord(before, this.id).catch(() => undefined);
        this.events.written?.(before);
      }
      this.events.written?.(folder);
    } catch (e) {
      this.events.error?.((e as Error).message);
    }
  }
}

let seq = 0;
