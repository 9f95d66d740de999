// The phase timeline of a run's training steps (core/metrics/phases.ts computes it from the
// `timing_s/*` keys): per step a stacked bar of its phases, each phase's share, the slowest phase
// named in a sentence, and the `perf/*` keys (throughput, memory) beside it. SVG built through the
// DOM; phase names are the run's text and go in as text only.
import { append, clear, el } from '../shared/dom';
import { t } from '../shared/l10n';
import type { PhaseTimeline, RunMetricsInfo } from '../../core/protocol/dashboard';

const SVG = 'http://www.w3.org/2000/svg';
const COLORS: [string, string][] = [
  ['--vscode-charts-red', '#f14c4c'],
  ['--vscode-charts-blue', '#3794ff'],
  ['--vscode-charts-yellow', '#cca700'],
  ['--vscode-charts-green', '#89d185'],
  ['--vscode-charts-purple', '#b180d7'],
  ['--vscode-charts-orange', '#d18616'],
];
/** Runs whose timelines are drawn, at most. */
const MAX_RUNS = 6;

const pct = (v: number) => `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`;
const secs = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const num = (v: number | null) =>
  v === null ? '–' : Math.abs(v) >= 1000 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : Number(v.toPrecision(3)).toString();

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

export class PhasesView {
  readonly section = el('section', { className: 'phases', attrs: { 'aria-label': t('Phase timeline') } });

  constructor(private readonly cssVar: (name: string, fallback: string) => string) {
    this.section.hidden = true;
  }

  private color(i: number): { fill: string; opacity: string } {
    const [name, fallback] = COLORS[i % COLORS.length]!;
    return { fill: this.cssVar(name, fallback), opacity: i < COLORS.length ? '0.9' : '0.5' };
  }

  update(runs: readonly RunMetricsInfo[], runColor: (run: string) => string): void {
    clear(this.section);
    const timed = runs.filter((r) => r.phases).slice(0, MAX_RUNS);
    this.section.hidden = !timed.length;
    if (!timed.length) return;
    append(this.section, el('h3', {}, t('Phase timeline (timing_s/*)')));
    for (const r of timed) this.run(r, r.phases!, timed.length > 1 ? runColor(r.run) : undefined);
  }

  private run(r: RunMetricsInfo, tl: PhaseTimeline, swatch: string | undefined): void {
    const label = r.run.split(/[\\/]/).pop() ?? r.run;
    const block = el('div', { className: 'phase-run', dataset: { run: r.run } });
    if (swatch) {
      const s = el('span', { className: 'swatch' });
      s.style.background = swatch;
      append(block, el('h4', {}, s, label));
    }
    const sentence = tl.slowest
      ? t('{0} takes {1} of a step (mean step {2} s over {3} steps).', tl.slowest.phase, pct(tl.slowest.share), secs(tl.meanStep), tl.steps)
      : t('No phase took any time ({0} steps).', tl.steps);
    append(block, el('p', { className: 'phase-summary', attrs: { role: 'status' } }, sentence));
    // The bars: one column per step (or per group of steps), phases stacked from the bottom.
    const maxTotal = Math.max(...tl.columns.map((c) => c.total), 1e-9);
    const W = 10;
    const H = 100;
    const chart = svg('svg', {
      class: 'phase-bars',
      viewBox: `0 0 ${tl.columns.length * W} ${H}`,
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-label': sentence,
    });
    tl.columns.forEach((c, i) => {
      const g = svg('g', { 'data-step': c.stepFrom });
      const title = document.createElementNS(SVG, 'title');
      const head =
        c.stepFrom === c.stepTo
          ? t('step {0}: {1} s', c.stepFrom, secs(c.total))
          : t('steps {0}–{1}: {2} s', c.stepFrom, c.stepTo, secs(c.total));
      const lines = tl.phases.map((p, k) => `${p}: ${secs(c.parts[k]!)} s (${pct(c.total > 0 ? c.parts[k]! / c.total : 0)})`);
      if (c.other > 0) lines.push(`${t('other (not timed)')}: ${secs(c.other)} s`);
      title.textContent = [head, ...lines].join('\n');
      g.appendChild(title);
      let y = H;
      const stack = [...c.parts.map((v, k) => ({ v, k })), { v: c.other, k: -1 }];
      for (const { v, k } of stack) {
        const h = (v / maxTotal) * H;
        if (h <= 0) continue;
        y -= h;
        const col = k < 0 ? { fill: this.cssVar('--vscode-descriptionForeground', '#888'), opacity: '0.3' } : this.color(k);
        g.appendChild(svg('rect', { x: i * W + 1, y, width: W - 2, height: h, fill: col.fill, 'fill-opacity': col.opacity }));
      }
      chart.appendChild(g);
    });
    const first = tl.columns[0]!;
    const last = tl.columns[tl.columns.length - 1]!;
    const axis = el(
      'div',
      { className: 'phase-axis' },
      el('span', {}, t('step {0}', first.stepFrom)),
      el('span', {}, t('highest bar: {0} s', secs(maxTotal))),
      el('span', {}, t('step {0}', last.stepTo)),
    );
    const legend = el('ul', { className: 'phase-legend' });
    const order = tl.phases.map((p, k) => ({ p, k, share: tl.shares[k]! })).sort((a, b) => b.share - a.share);
    for (const { p, k, share } of order) {
      const s = el('span', { className: 'swatch' });
      const col = this.color(k);
      s.style.background = col.fill;
      s.style.opacity = col.opacity;
      append(legend, el('li', { dataset: { phase: p } }, s, el('span', { className: 'phase-name' }, p), ` ${pct(share)}`));
    }
    if (tl.otherShare > 0.0005) {
      const s = el('span', { className: 'swatch other' });
      append(legend, el('li', {}, s, el('span', { className: 'phase-name' }, t('other (not timed)')), ` ${pct(tl.otherShare)}`));
    }
    if (!tl.hasStepKey) append(legend, el('li', { className: 'hint' }, t('No timing_s/step: a step is the sum of its phases.')));
    const perf = el('table', { className: 'perf' }, el('caption', {}, t('Throughput and memory (perf/*)')));
    append(
      perf,
      el('thead', {}, el('tr', {}, el('th', {}, t('key')), el('th', {}, t('last')), el('th', {}, t('mean')), el('th', {}, t('max')))),
    );
    const body = el('tbody');
    for (const p of tl.perf)
      append(body, el('tr', {}, el('td', {}, p.tag), el('td', {}, num(p.last)), el('td', {}, num(p.mean)), el('td', {}, num(p.max))));
    if (!tl.perf.length) append(body, el('tr', {}, el('td', { attrs: { colspan: '4' } }, t('This run logs no perf/* keys.'))));
    append(perf, body);
    append(block, el('div', { className: 'phase-row' }, el('div', { className: 'phase-chart' }, chart, axis, legend), perf));
    append(this.section, block);
  }
}
