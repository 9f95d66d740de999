// Worker thread entry (bundled as dist/metricsworker.js): keeps one incremental RunMetricsReader
// per run for core/metrics/offThread.ts, reads what each run's sources appended when asked, and
// hands back every series packed in Float64Arrays (moved, not copied) with the dashboard's summary,
// so the calling thread (the extension host) never decodes, sorts or summarises a point.
import { parentPort } from 'node:worker_threads';
import { setLocale } from '../l10n';
import { handleMetricsRequest, type MetricsReply, type MetricsRequest } from './offThreadCore';

// One request at a time: a reader's update must not interleave with another of the same reader.
let chain: Promise<void> = Promise.resolve();
parentPort?.on('message', (m: MetricsRequest) => {
  chain = chain.then(async () => {
    setLocale(m.locale);
    const reply: MetricsReply = await handleMetricsRequest(m);
    parentPort!.postMessage(reply, reply.ok && reply.series ? reply.series.map((s) => s.data.buffer as ArrayBuffer) : []);
  });
});
