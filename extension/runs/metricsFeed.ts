// The training metrics of a dashboard's runs (core/metrics): one incremental reader per run (a live
// run's event files are re-read only from where the last read stopped), a watcher on each run's
// TensorBoard folder (it lies outside the run folder, so the Runs view's watcher does not see it),
// the charts the page asks for, and CSV / PNG export. The event files are read and decoded, and
// each run summarised, on a worker thread (core/metrics/offThread.ts): the host only unpacks the
// points of the key a chart shows.
import * as vscode from 'vscode';
import { basename, join } from 'node:path';
import type { RunsFs } from '../../core/fs/seam';
import { MetricsThread, OffThreadMetricsReader } from '../../core/metrics/offThread';
import { findMetricSources } from '../../core/metrics/find';
import { alignCurves, metricCsv } from '../../core/metrics/plot';
import { defaultKey, groupKeys } from '../../core/metrics/keys';
import { runMetricsInfo } from '../../core/metrics/view';
import type { MetricPoint } from '../../core/protocol/metrics';
import type { DashboardToHost, HostToDashboard, RunMetricsInfo } from '../../core/protocol/dashboard';

/** A run with no metrics found is looked for again after this long (its trainer may start logging). */
const REFIND_MS = 20_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface RunReader {
  reader?: OffThreadMetricsReader;
  looked: string[];
  foundAt: number;
  /** The run's summary as last read (undefined until a first read). */
  info?: RunMetricsInfo;
  watchers: vscode.Disposable[];
}

type MetricMessage = Extract<DashboardToHost, { type: 'plot' | 'exportCsv' | 'exportPng' }>;

export class MetricsFeed implements vscode.Disposable {
  private readonly runs = new Map<string, RunReader>();
  private version = 0;
  private readonly thread = new MetricsThread();
  /** Aborted on dispose: a read in flight ends with its worker. */
  private readonly abort = new AbortController();

  constructor(
    private readonly fs: RunsFs,
    private readonly post: (m: HostToDashboard) => Promise<void>,
    /** A watched TensorBoard folder changed: poll soon. */
    private readonly touched: () => void,
    private readonly log: (msg: string) => void,
  ) {}

  /** Reads what each run's sources appended (finding them first); true when anything changed. */
  async update(runs: readonly string[]): Promise<boolean> {
    let changed = false;
    for (const [run, r] of this.runs)
      if (!runs.includes(run)) {
        for (const w of r.watchers) w.dispose();
        r.reader?.close();
        this.runs.delete(run);
        changed = true;
      }
    for (const run of runs) {
      let r = this.runs.get(run);
      if (!r) this.runs.set(run, (r = { looked: [], foundAt: 0, watchers: [] }));
      try {
        if (!r.reader && Date.now() - r.foundAt > REFIND_MS) {
          r.foundAt = Date.now();
          const sources = await findMetricSources(this.fs, run, process.env);
          r.looked = sources.looked;
          if (sources.tensorboard.length || sources.console.length) {
            r.reader = new OffThreadMetricsReader(sources, this.thread, { info: { run, looked: sources.looked } });
            r.watchers = sources.tensorboard.map((dir) => this.watch(dir));
          }
        }
        if (r.reader && ((await r.reader.update(this.abort.signal)) || !r.info)) {
          r.info = r.reader.info();
          changed = true;
        }
      } catch (err) {
        if (this.abort.signal.aborted) return false;
        this.log(`dashboard: metrics of ${run}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (changed) this.version++;
    return changed;
  }

  private watch(dir: string): vscode.Disposable {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '*tfevents*'));
    w.onDidChange(() => this.touched());
    w.onDidCreate(() => this.touched());
    return w;
  }

  /** Each run's summary as the page last got it (the extension-host tests read it). */
  runsInfo(): RunMetricsInfo[] {
    return [...this.runs].map(([run, r]) => r.info ?? runMetricsInfo(run, { sources: [], series: [], issues: [], looked: r.looked }));
  }

  message(): HostToDashboard {
    const runs = this.runsInfo();
    const tags = [...new Set(runs.flatMap((r) => r.keys.map((k) => k.tag)))];
    const first = defaultKey(tags);
    return { type: 'metrics', runs, groups: groupKeys(tags), version: this.version, ...(first ? { defaultKey: first } : {}) };
  }

  private pointsOf(key: string): { run: string; label: string; points: readonly MetricPoint[] }[] {
    return [...this.runs].flatMap(([run, r]) => {
      const points = r.reader?.points(key);
      return points ? [{ run, label: basename(run), points }] : [];
    });
  }

  /** Answers the page's chart queries and exports (each message already checked against the protocol). */
  async handle(m: MetricMessage): Promise<void> {
    if (m.type === 'plot') {
      const plot = alignCurves(m.query.key, m.query, this.pointsOf(m.query.key));
      await this.post({ type: 'plot', plot: { seq: m.seq, ...plot } });
      return;
    }
    const runs = this.pointsOf(m.key);
    if (!runs.length) return;
    const name = m.key.replace(/[^A-Za-z0-9_.@-]+/g, '_').slice(0, 120) || 'metric';
    const ext = m.type === 'exportCsv' ? 'csv' : 'png';
    let bytes: Buffer;
    if (m.type === 'exportCsv') bytes = Buffer.from(metricCsv(runs, m.smoothing), 'utf8');
    else {
      bytes = Buffer.from(m.dataUrl.slice(m.dataUrl.indexOf(',') + 1), 'base64');
      if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
        this.log('dashboard: refused a PNG export that is not a PNG');
        return;
      }
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const target = await vscode.window.showSaveDialog({
      ...(folder ? { defaultUri: vscode.Uri.file(join(folder, `${name}.${ext}`)) } : {}),
      filters: ext === 'csv' ? { CSV: ['csv'] } : { PNG: ['png'] },
      title: ext === 'csv' ? vscode.l10n.t('Export {0} as CSV', m.key) : vscode.l10n.t('Export {0} as PNG', m.key),
    });
    if (!target) return;
    await vscode.workspace.fs.writeFile(target, bytes);
    void vscode.window.showInformationMessage(vscode.l10n.t('Saved {0}.', target.fsPath));
  }

  dispose(): void {
    this.abort.abort();
    this.thread.dispose();
    for (const r of this.runs.values()) for (const w of r.watchers) w.dispose();
    this.runs.clear();
  }
}
