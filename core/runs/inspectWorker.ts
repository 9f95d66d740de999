// Worker thread entry (bundled as dist/runsworker.js): inspects a share of the experiments of one
// `agentjet runs` listing for core/runs/parallel.ts, with the synchronous file seam (a worker has
// nothing else to do meanwhile), and hands the results back as plain data.
import { parentPort } from 'node:worker_threads';
import { setLocale, type Locale } from '../l10n';
import { inspectShare, type ShareRequest } from './parallel';

export interface WorkerRequest extends ShareRequest {
  locale: Locale;
}

parentPort?.on('message', (m: WorkerRequest) => {
  setLocale(m.locale);
  inspectShare(m).then(
    (infos) => parentPort!.postMessage({ ok: true, infos }),
    (err: unknown) => parentPort!.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
});
