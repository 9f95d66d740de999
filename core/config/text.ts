// Offset <-> position conversion (0-based lines and UTF-16 characters, as in LSP).

export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  get lineCount(): number {
    return this.starts.length;
  }
  position(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0,
      hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - (this.starts[lo] as number) };
  }
  offset(pos: Position): number {
    if (pos.line < 0) return 0;
    if (pos.line >= this.starts.length) return this.text.length;
    const start = this.starts[pos.line] as number;
    const end = this.lineEnd(pos.line);
    return Math.min(start + Math.max(0, pos.character), end);
  }
  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(end) };
  }
  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.starts.length - 1))] as number;
  }
  /** End of the line's content (before \r\n or \n). */
  lineEnd(line: number): number {
    const next = line + 1 < this.starts.length ? (this.starts[line + 1] as number) - 1 : this.text.length;
    return next > 0 && this.text.charCodeAt(next - 1) === 13 && next - 1 >= (this.starts[line] as number) ? next - 1 : next;
  }
  lineText(line: number): string {
    return this.text.slice(this.lineStart(line), this.lineEnd(line));
  }
}

/** Rows reused by every editDistance call: suggestions run for many keys in one validation. */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** Calls of editDistance (the linear-cost test counts them). */
export const textWork = { editDistance: 0 };

/** Edit distance counting an adjacent swap as one edit, with an early exit above `max`. */
export function editDistance(a: string, b: string, max = 99): number {
  textWork.editDistance++;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  if (rows[0]!.length <= n) rows = [new Int32Array(n + 1), new Int32Array(n + 1), new Int32Array(n + 1)];
  let [prev2, prev, cur] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let best = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/** Lower-cased copies of candidate lists, made once per list (schema key lists are long-lived arrays). */
const lowered = new WeakMap<readonly string[], string[]>();

/** Candidates close to `word`, best first. */
export function suggest(word: string, candidates: Iterable<string>, limit = 3): string[] {
  const lw = word.toLowerCase();
  const max = Math.max(1, Math.min(4, Math.floor(word.length / 3)));
  const scored: [string, number][] = [];
  const list = Array.isArray(candidates) ? (candidates as readonly string[]) : [...candidates];
  let lows = lowered.get(list);
  if (!lows || lows.length !== list.length) lowered.set(list, (lows = list.map((c) => c.toLowerCase())));
  for (let k = 0; k < list.length; k++) {
    const c = list[k]!;
    const lc = lows[k]!;
    let d = editDistance(lw, lc, max);
    if (d > max && lw.length >= 4 && (lc.startsWith(lw) || lw.startsWith(lc))) d = max;
    if (d <= max) scored.push([c, d]);
  }
  return scored
    .sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]))
    .slice(0, limit)
    .map((s) => s[0]);
}
