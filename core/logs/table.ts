// The one reader of rich tables as beast-logger writes them (print_dict, print_dictofdict,
// print_list): rich renders a Table inside a Panel to plain text, at the console width (<= 140) or
// 50 columns when `narrow`. Cells wrap onto several lines, words longer than a column are folded,
// `justify='full'` stretches the spaces of wrapped lines, CJK characters take two columns. Both
// the token log viewer (core/logs/decode.ts) and the run dashboard (core/runs/metrics.ts) read
// tables through here, so they agree on every cell.
import { eastAsianWidth } from 'get-east-asian-width';
import type { TableGrid } from '../protocol/tokenlog';

export type { TableGrid };

const ANSI_RE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
const V = /[│┃]/;
const TOP = /^[┌┏]/;
const BOTTOM = /^[└┗]/;
const RULE = /^[├┡┝┠╞╟┢┣]/;
const HEAVY_RULE = /^[┡┢]/;

/** Columns a string takes in a terminal (wide East Asian characters take two), as rich counts them. */
export function cellWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 32 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b) continue;
    w += eastAsianWidth(cp);
  }
  return w;
}

/** Peels panel frames (`╭─ title ─╮ │ … │ ╰──╯`) off, returning the inner lines and the outermost title. */
function peelPanels(lines: string[]): { lines: string[]; title?: string } {
  let title: string | undefined;
  for (;;) {
    const first = lines.findIndex((l) => l.trim() !== '');
    if (first < 0) return { lines: [], title };
    const top = lines[first]!.trim();
    if (!/^[╭┌╔┏+]/.test(top) || !/[╮┐╗┓+]$/.test(top) || /[┬┳]/.test(top)) return { lines, title };
    let last = lines.length - 1;
    while (last > first && lines[last]!.trim() === '') last--;
    const bottom = lines[last]!.trim();
    if (!/^[╰└╚┗+]/.test(bottom)) return { lines, title };
    const body = lines.slice(first + 1, last);
    // A table's own top border looks like a panel's; a panel's body lines are all framed by │.
    if (!body.length || !body.every((l) => /^[│║┃]/.test(l.trim()) && /[│║┃]$/.test(l.trim()))) return { lines, title };
    const t = top.slice(1, -1).replace(/^[─━═\s]+|[─━═\s]+$/g, '');
    if (title === undefined && t) title = t;
    lines = body.map((l) => {
      const s = l.trim();
      let inner = s.slice(1, -1);
      if (inner.startsWith(' ')) inner = inner.slice(1);
      if (inner.endsWith(' ')) inner = inner.slice(0, -1);
      return inner;
    });
  }
}

/** Widths of the columns' text (border segment minus the two padding spaces). */
function columnWidths(border: string): number[] {
  return border
    .trim()
    .slice(1, -1)
    .split(/[┬┳┯┰╤╥┼╇╋]/)
    .map((seg) => Math.max(0, cellWidth(seg) - 2));
}

function splitCells(line: string): string[] {
  const s = line.trim();
  const parts = s.split(V);
  // `│ a │ b │` splits into '', ' a ', ' b ', ''.
  const cells = parts.slice(1, parts.length - 1);
  return cells.map((c) => {
    let x = c;
    if (x.startsWith(' ')) x = x.slice(1);
    return x.replace(/\s+$/, '');
  });
}

/** A line of a cell that a word longer than the column filled to the edge (rich folded it). */
function folded(line: string, width: number): boolean {
  return width > 0 && !/\s/.test(line) && cellWidth(line) >= width;
}

/** A line rich stretched to the column width (`justify='full'`): its runs of spaces were one space. */
function justified(line: string, width: number): string {
  return width > 0 && cellWidth(line) >= width && / {2,}/.test(line) ? line.replace(/ {2,}/g, ' ') : line;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
const ALNUM = /[A-Za-z0-9]/;
/** Characters that seldom end a word before a space, and that seldom start one after a space. */
const GLUE_AFTER = /[([{</\\_\-@#]/;
const GLUE_BEFORE = /[)\]}>/\\_\-@.,:;!?]/;

/**
 * Whether a line break inside a cell was a wrap with no space at that point. beast-logger patches
 * rich's word splitter (apply_monkey_patch.py): a word is one CJK character, one run of ASCII
 * letters and digits, or one other character, so rich may break a line after `(`, `/`, `_`, `-`
 * and between CJK characters; a space at a break is dropped. A run of letters or digits breaks
 * only when it is longer than the column (folded). The printed text cannot tell every case apart;
 * this keeps names such as `num_pass_n_tasks(pass@1)` and paths whole and keeps other breaks as
 * line breaks (nothing is lost for the eye).
 */
function glued(prev: string, next: string, width: number): boolean {
  const a = [...prev].pop() ?? '';
  const b = [...next][0] ?? '';
  if (!a || !b || /\s/.test(a) || /\s/.test(b)) return false;
  if (CJK.test(a) && CJK.test(b)) return true;
  if (ALNUM.test(a) && ALNUM.test(b)) return folded(prev, width);
  return GLUE_AFTER.test(a) || GLUE_BEFORE.test(b);
}

/** Joins the lines of one cell: wraps inside a word are glued back, other line breaks kept as `\n`. */
export function joinCellLines(lines: readonly string[], width: number): string {
  const ls = [...lines];
  while (ls.length && ls[ls.length - 1] === '') ls.pop();
  while (ls.length && ls[0] === '') ls.shift();
  let out = '';
  ls.forEach((l, i) => {
    const text = i < ls.length - 1 ? justified(l, width) : l;
    const prev = ls[i - 1];
    out += i === 0 ? text : prev !== undefined && glued(prev, l, width) ? text : `\n${text}`;
  });
  return out;
}

/**
 * Reads the first table in `content` (rich box-drawing output, possibly in panels). Returns
 * undefined when there is none. Never throws.
 */
export function readRichTable(content: string): TableGrid | undefined {
  const peeled = peelPanels(content.replace(ANSI_RE, '').replace(/\r/g, '').split('\n'));
  const lines = peeled.lines.map((l) => l.replace(/\s+$/, ''));
  const top = lines.findIndex((l) => TOP.test(l.trim()));
  let widths: number[] | undefined = top >= 0 ? columnWidths(lines[top]!) : undefined;
  // Blocks of cell lines between horizontal rules; `headerBlocks` come before a heavy rule.
  const blocks: { lines: string[][]; header: boolean }[] = [];
  let cur: string[][] = [];
  let sawRule = false;
  let headerEnds = -1;
  const flush = () => {
    if (cur.length) blocks.push({ lines: cur, header: false });
    cur = [];
  };
  for (let i = top >= 0 ? top + 1 : 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t === '') continue;
    if (BOTTOM.test(t)) break;
    if (RULE.test(t)) {
      flush();
      if (HEAVY_RULE.test(t)) headerEnds = blocks.length;
      sawRule = true;
      continue;
    }
    if (TOP.test(t)) continue;
    if (!V.test(t[0] ?? '')) {
      if (top < 0) continue;
      break;
    }
    const cells = splitCells(t);
    if (!cells.length) continue;
    cur.push(cells);
  }
  flush();
  if (!blocks.length) return undefined;
  const ncols = Math.max(...blocks.flatMap((b) => b.lines.map((l) => l.length)));
  if (ncols < 2) return undefined;
  if (!widths || widths.length !== ncols) widths = new Array<number>(ncols).fill(0);
  const w = widths;
  // Without rules between rows (show_lines=False) each block holds several rows: a line whose
  // first cell is empty (or continues a folded first cell) continues the row above.
  const rowsOf = (block: string[][]): string[][][] => {
    if (sawRule && block.length) return [block];
    const rows: string[][][] = [];
    for (const l of block) {
      const prev = rows[rows.length - 1];
      const prevFirst = prev?.[prev.length - 1]?.[0] ?? '';
      if (prev && ((l[0] ?? '') === '' || folded(prevFirst, w[0] ?? 0))) prev.push(l);
      else rows.push([l]);
    }
    return rows;
  };
  const join = (rowLines: string[][]): string[] =>
    Array.from({ length: ncols }, (_, c) =>
      joinCellLines(
        rowLines.map((l) => l[c] ?? ''),
        w[c] ?? 0,
      ),
    );
  const grid: TableGrid = { rows: [] };
  if (peeled.title) grid.title = peeled.title;
  blocks.forEach((b, k) => {
    for (const row of rowsOf(b.lines)) {
      if (k < headerEnds && !grid.header) grid.header = join(row);
      else grid.rows.push(join(row));
    }
  });
  return grid.rows.length || grid.header ? grid : undefined;
}

/** Key/value pairs of a two-column table without header (print_dict); [] for other tables. */
export function keyValueRows(grid: TableGrid | undefined): [string, string][] {
  if (!grid || grid.header || grid.rows.some((r) => r.length !== 2)) return [];
  return grid.rows.map((r) => [r[0]!, r[1]!]);
}

/** A cell as one line (a metric name, a list label): line breaks become spaces. */
export function oneLine(cell: string): string {
  return cell.replace(/\s*\n\s*/g, ' ').trim();
}
