// verl's console logger (verl/utils/logger/aggregate_logger.py, LocalLogger): one line per step,
// `step:{step} - {key}:{value:.3f} - ...`, numbers only, printed to the launch's output (where Ray
// may put `(TaskRunner pid=N) ` before it and a terminal may add colours).
import type { MetricPoint } from '../protocol/metrics';

const HEAD = /(?:^|[\s)\]>|])step:(-?\d+)( - |\s*$)/;
const VALUE = /^(?:-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|-?nan|-?inf)$/i;
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** The step and key/value pairs of one console line; undefined when it is not one. */
export function parseConsoleLine(line: string): { step: number; values: [string, number][] } | undefined {
  if (!line.includes('step:')) return undefined;
  const clean = line.replace(ANSI, '').trimEnd();
  const m = HEAD.exec(clean);
  if (!m || m[2] !== ' - ') return undefined;
  const values: [string, number][] = [];
  // Keys may hold ':' but never ' - ': split on it, the value after each part's last ':'.
  for (const part of clean.slice(m.index + m[0].length).split(' - ')) {
    const i = part.lastIndexOf(':');
    if (i <= 0) return undefined;
    const raw = part.slice(i + 1);
    if (!VALUE.test(raw)) return undefined;
    const low = raw.toLowerCase();
    const value = low.endsWith('nan') ? NaN : low === 'inf' ? Infinity : low === '-inf' ? -Infinity : Number(raw);
    values.push([part.slice(0, i), value]);
  }
  return { step: Number(m[1]), values };
}

/** Accumulates console lines fed in pieces (a growing output file); a line counts once it ends. */
export class ConsoleMetrics {
  private rest = '';
  private line = 0;
  readonly points = new Map<string, MetricPoint[]>();
  /** 1-based line of the first metrics line. */
  firstLine: number | undefined;

  push(text: string): boolean {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop()!;
    // A line over 1 MB is no console metrics line; do not keep it growing.
    if (this.rest.length > 1024 * 1024) this.rest = '';
    let changed = false;
    for (const l of lines) {
      this.line++;
      const r = parseConsoleLine(l);
      if (!r) continue;
      this.firstLine ??= this.line;
      for (const [tag, value] of r.values) {
        let list = this.points.get(tag);
        if (!list) this.points.set(tag, (list = []));
        list.push({ step: r.step, wallTime: NaN, value });
        changed = true;
      }
    }
    return changed;
  }
}
