// Worker thread entry (bundled as dist/logworker.js): runs whole-file tasks (jobs.ts) for pool.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { recycleExportBuffer, runTask, type Job, type RangeTask, type TaskResult } from './jobs';

export interface WorkerRequest {
  id: number;
  task: RangeTask;
  job: Job;
  /** An export result's buffer given back (transferred) to write the next results into. */
  reuse?: ArrayBuffer;
}
export type WorkerReply = { id: number; ok: true; result: TaskResult } | { id: number; ok: false; error: string; name?: string };

/** What pool.ts starts a worker with. */
export interface WorkerData {
  /**
   * Run below the normal priority, so the extension host's event loop (and a training run) get
   * the core first when they want it. Linux only: there a thread's nice value is its own; elsewhere
   * it would lower the whole host process.
   */
  background?: boolean;
}

if ((workerData as WorkerData | undefined)?.background && process.platform === 'linux') {
  try {
    setPriority(0, 10);
  } catch {
    // Not allowed here (some containers): normal priority.
  }
}

parentPort?.on('message', (m: WorkerRequest) => {
  let reply: WorkerReply;
  if (m.reuse) recycleExportBuffer(m.reuse);
  try {
    reply = { id: m.id, ok: true, result: runTask(m.task, m.job) };
  } catch (err) {
    reply = {
      id: m.id,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      ...(err instanceof Error ? { name: err.name } : {}),
    };
  }
  const transfer: ArrayBuffer[] = [];
  if (reply.ok && reply.result.kind === 'export') {
    const chunk = reply.result.chunk;
    // The task's own buffer (Out.detach) moves whole, the view keeps its offset and length; a
    // small Buffer may sit in Node's shared pool, which cannot move: copy those (cheap).
    if (chunk.lines.buffer.byteLength <= Buffer.poolSize) chunk.lines = new Uint8Array(chunk.lines);
    transfer.push(chunk.lines.buffer as ArrayBuffer);
  }
  parentPort!.postMessage(reply, transfer);
});
