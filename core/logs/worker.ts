// Worker thread entry (bundled as dist/logworker.js): runs whole-file tasks (jobs.ts) for pool.ts.
import { parentPort } from 'node:worker_threads';
import { runTask, type Job, type RangeTask, type TaskResult } from './jobs';

export interface WorkerRequest { id: number; task: RangeTask; job: Job }
export type WorkerReply = { id: number; ok: true; result: TaskResult } | { id: number; ok: false; error: string };

parentPort?.on('message', (m: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id: m.id, ok: true, result: runTask(m.task, m.job) };
  } catch (err) {
    reply = { id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  const transfer = reply.ok && reply.result.kind === 'export' ? [reply.result.chunk.lines.buffer as ArrayBuffer] : [];
  // A Buffer from the shared pool cannot move; copy those.
  if (reply.ok && reply.result.kind === 'export' && reply.result.chunk.lines.byteLength !== reply.result.chunk.lines.buffer.byteLength) {
    reply.result.chunk.lines = new Uint8Array(reply.result.chunk.lines);
    transfer[0] = reply.result.chunk.lines.buffer as ArrayBuffer;
  }
  parentPort!.postMessage(reply, transfer);
});
