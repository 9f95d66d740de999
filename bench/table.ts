// One table layout for every bench: what was measured, our figure, the baseline's figure measured in
// the same run, and how that baseline was measured, so no figure is read without its comparison.

export interface BenchRow {
  what: string;
  ours: string;
  baseline: string;
  how: string;
}

/** Prints rows as a Markdown table (readable in a terminal, pasteable into a note). */
export function printBenchTable(rows: BenchRow[], heads: Partial<Record<keyof BenchRow, string>> = {}): void {
  const head = [heads.what ?? 'what', heads.ours ?? 'ours', heads.baseline ?? 'baseline', heads.how ?? 'how the baseline was measured'];
  const cells = [head, ...rows.map((r) => [r.what, r.ours, r.baseline, r.how])];
  const w = head.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => '| ' + c.map((x, i) => x.padEnd(w[i]!)).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + w.map((x) => '-'.repeat(x + 2)).join('|') + '|');
  for (const c of cells.slice(1)) console.log(line(c));
}
