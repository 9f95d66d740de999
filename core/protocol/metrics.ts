// Training metrics of a run (what the trainer logs through TensorBoard, the console or SwanLab):
// the shape core/metrics/ produces and the dashboard, the CLI and the agents' tools consume.

/** One logged value of one tag. */
export interface MetricPoint {
  step: number;
  /** Seconds since the epoch; NaN when the source has no wall time (console lines). */
  wallTime: number;
  value: number;
}

export type MetricSourceKind = 'tensorboard' | 'console' | 'swanlab';

/** Every point of one tag, ordered by step (then wall time), as the loggers' own readers merge them. */
export interface MetricSeries {
  tag: string;
  points: MetricPoint[];
}

/** Something the reader could not take as written: a damaged record, a truncated file, a skipped file. */
export interface MetricIssue {
  file: string;
  /** Byte offset (event files) or 1-based line (text). */
  at?: number;
  message: string;
}

/** What was read of one run. */
export interface RunMetrics {
  /** Where the values came from (folders or files), one entry per source read. */
  sources: { kind: MetricSourceKind; path: string }[];
  series: MetricSeries[];
  issues: MetricIssue[];
}
