// The dashboard's training metrics: every scalar key the runs' trainers logged (TensorBoard event
// files, console lines), grouped by prefix, searchable, pinnable; a chart per key on show with
// TensorBoard's smoothing, a step / wall-time / relative-time axis, the dashboard's runs overlaid;
// CSV and PNG export. The host computes what is drawn (core/metrics/plot.ts: smoothed, thinned per
// pixel column), so a 100,000-point key costs the page a few thousand points. Key names are
// untrusted text: only ever text nodes.
import uPlot from 'uplot';
import { append, clear, el } from '../shared/dom';
import { t } from '../shared/l10n';
import { tickLabels } from './scale';
import { PhasesView } from './phases';
import { chartPng } from './png';
import {
  keyMatches,
  type DashboardState,
  type DashboardToHost,
  type HostToDashboard,
  type MetricAxis,
  type MetricPlot,
} from '../../core/protocol/dashboard';

type MetricsState = NonNullable<DashboardState['metrics']>;
type MetricsMessage = Extract<HostToDashboard, { type: 'metrics' }>;

export const DEFAULT_METRICS: MetricsState = { pinned: [], query: '', smoothing: 0.6, axis: 'step' };
const HEIGHT = 220;
const MAX_KEYS_LISTED = 2000;
/** Tick spacings of the step axis: 1, 2, 5, 10, 20, 50, ... */
const STEP_INCRS = Array.from({ length: 27 }, (_, i) => [1, 2, 5][i % 3]! * 10 ** Math.floor(i / 3));

export interface MetricsHost {
  post(m: DashboardToHost): void;
  state(): MetricsState;
  save(s: MetricsState): void;
  /** The colour of a run on this dashboard (the same as in its other charts). */
  color(run: string): string;
  cssVar(name: string, fallback: string): string;
}

interface Card {
  key: string;
  box: HTMLElement;
  u?: uPlot;
  seq: number;
  /** Zoomed x range, when the user dragged one. */
  range?: [number, number];
}

const fmt = (v: number | null): string =>
  v === null ? '–' : Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0) ? v.toPrecision(4) : String(Number(v.toFixed(4)));

export class MetricsSection {
  readonly section = el('section', { className: 'metrics', attrs: { 'aria-label': t('Training metrics') } });
  private readonly list = el('div', { className: 'keys' });
  private readonly charts = el('div', { className: 'metric-charts' });
  private readonly note = el('p', { className: 'hint' });
  private readonly phases: PhasesView;
  private data: MetricsMessage | undefined;
  private cards: Card[] = [];
  private seq = 0;

  constructor(private readonly host: MetricsHost) {
    const st = host.state();
    const search = el('input', {
      className: 'metric-search',
      attrs: { type: 'search', placeholder: t('Search keys'), 'aria-label': t('Search keys'), value: st.query },
    });
    search.value = st.query;
    search.addEventListener('input', () => {
      this.save({ query: search.value });
      this.renderList();
    });
    const smooth = el('input', {
      className: 'smoothing',
      attrs: { type: 'range', min: '0', max: '0.99', step: '0.01', 'aria-label': t('Smoothing') },
    });
    smooth.value = String(st.smoothing);
    const smoothValue = el('span', { className: 'smoothing-value' }, st.smoothing.toFixed(2));
    smooth.addEventListener('input', () => {
      smoothValue.textContent = Number(smooth.value).toFixed(2);
    });
    smooth.addEventListener('change', () => {
      this.save({ smoothing: Math.min(0.99, Math.max(0, Number(smooth.value) || 0)) });
      this.requestAll();
    });
    const axis = el('select', { className: 'axis', attrs: { 'aria-label': t('X axis') } });
    const axes: [MetricAxis, string][] = [
      ['step', t('step')],
      ['relative', t('hours since start')],
      ['wall', t('wall time')],
    ];
    for (const [v, label] of axes) {
      const o = el('option', { attrs: { value: v } }, label);
      if (v === st.axis) o.selected = true;
      append(axis, o);
    }
    axis.addEventListener('change', () => {
      this.save({ axis: axis.value as MetricAxis });
      for (const c of this.cards) c.range = undefined;
      this.renderCharts(true);
    });
    this.phases = new PhasesView(host.cssVar);
    append(
      this.section,
      el('h2', {}, t('Training metrics')),
      this.note,
      el(
        'div',
        { className: 'metric-bar' },
        search,
        el('label', {}, t('Smoothing'), ' ', smooth, ' ', smoothValue),
        el('label', {}, t('X axis'), ' ', axis),
      ),
      el('div', { className: 'metric-body' }, this.list, this.charts),
      this.phases.section,
    );
    this.list.addEventListener('click', (ev) => this.onListClick(ev));
    this.charts.addEventListener('click', (ev) => this.onChartClick(ev));
    this.section.hidden = true;
  }

  private save(patch: Partial<MetricsState>): void {
    this.host.save({ ...this.host.state(), ...patch });
  }

  private allKeys(): string[] {
    return this.data ? this.data.groups.flatMap((g) => g.keys) : [];
  }

  /** The keys drawn: the pinned ones, then the selected one (the host's first key until the user picks one). */
  private shown(): string[] {
    const st = this.host.state();
    const keys = new Set(this.allKeys());
    const out = st.pinned.filter((k) => keys.has(k));
    const selected = st.selected && keys.has(st.selected) ? st.selected : this.data?.defaultKey;
    if (selected && !out.includes(selected)) out.push(selected);
    return out;
  }

  update(m: MetricsMessage): void {
    const grew = this.data?.version !== m.version;
    this.data = m;
    const keys = this.allKeys().length;
    this.section.hidden = !m.runs.length;
    clear(this.note);
    const sources = m.runs.flatMap((r) => r.sources.map((s) => `${s.kind}: ${s.path}`));
    const issues = m.runs.flatMap((r) => r.issues);
    if (!keys) {
      const looked = m.runs.flatMap((r) => r.looked);
      append(
        this.note,
        t('No training metrics found for these runs (TensorBoard event files or verl console lines).'),
        looked.length ? ` ${t('Looked in: {0}', looked.join(', '))}` : '',
      );
    } else append(this.note, t('{0} keys from {1}', keys, sources.join(', ')));
    for (const i of issues) append(this.note, el('br'), el('span', { className: 'error' }, i));
    this.renderList();
    this.renderCharts(grew);
    this.phases.update(m.runs, (run) => this.host.color(run));
  }

  private renderList(): void {
    clear(this.list);
    if (!this.data) return;
    const st = this.host.state();
    const shown = new Set(this.shown());
    let listed = 0;
    for (const g of this.data.groups) {
      const keys = g.keys.filter((k) => keyMatches(k, st.query));
      if (!keys.length || listed >= MAX_KEYS_LISTED) continue;
      const group = el('details', { className: 'group', dataset: { group: g.name } });
      group.open = true;
      append(group, el('summary', {}, g.name ? `${g.name}/` : t('other'), el('span', { className: 'count' }, ` ${keys.length}`)));
      for (const k of keys.slice(0, MAX_KEYS_LISTED - listed)) {
        const pinned = st.pinned.includes(k);
        append(
          group,
          el(
            'div',
            { className: `key${shown.has(k) ? ' shown' : ''}`, dataset: { key: k } },
            el(
              'button',
              {
                className: `pin${pinned ? ' pinned' : ''}`,
                attrs: { type: 'button', 'aria-pressed': String(pinned), 'aria-label': pinned ? t('Unpin {0}', k) : t('Pin {0}', k) },
                dataset: { pin: k },
                title: pinned ? t('Unpin') : t('Pin: keep this chart on show'),
              },
              pinned ? '★' : '☆',
            ),
            el(
              'button',
              { className: 'name', attrs: { type: 'button' }, dataset: { show: k }, title: k },
              g.name ? k.slice(g.name.length + 1) : k,
            ),
          ),
        );
        listed++;
      }
      append(this.list, group);
    }
    if (!listed && this.allKeys().length) append(this.list, el('p', { className: 'empty' }, t('No key matches “{0}”.', st.query)));
  }

  private onListClick(ev: Event): void {
    const target = (ev.target as HTMLElement | null)?.closest('button');
    if (!target) return;
    const st = this.host.state();
    const pin = target.dataset.pin;
    if (pin !== undefined) {
      const pinned = st.pinned.includes(pin) ? st.pinned.filter((k) => k !== pin) : [...st.pinned, pin];
      this.save({ pinned: pinned.slice(-200) });
    }
    const show = target.dataset.show;
    if (show !== undefined) this.save({ selected: show });
    this.renderList();
    this.renderCharts(false);
  }

  private onChartClick(ev: Event): void {
    const target = (ev.target as HTMLElement | null)?.closest('button');
    const key = target?.closest<HTMLElement>('.metric-card')?.dataset.key;
    if (!target || key === undefined) return;
    if (target.classList.contains('csv')) this.host.post({ type: 'exportCsv', key, smoothing: this.host.state().smoothing });
    if (target.classList.contains('png')) {
      const card = this.cards.find((c) => c.key === key);
      if (card?.u) this.host.post({ type: 'exportPng', key, dataUrl: chartPng(card.u, key, this.host.cssVar) });
    }
  }

  /** Draws a card per shown key (keeping the cards of keys still shown); `refresh` asks every card's data again. */
  private renderCharts(refresh: boolean): void {
    const keys = this.shown();
    for (const c of this.cards.filter((c) => !keys.includes(c.key))) {
      c.u?.destroy();
      c.box.closest('.metric-card')?.remove();
    }
    const kept = new Map(this.cards.filter((c) => keys.includes(c.key)).map((c) => [c.key, c]));
    this.cards = keys.map((key) => kept.get(key) ?? this.card(key));
    clear(this.charts);
    for (const c of this.cards) {
      this.charts.appendChild(c.box.closest('.metric-card')!);
      if (refresh || !kept.has(c.key)) this.request(c);
    }
  }

  private card(key: string): Card {
    const box = el('div', { className: 'metric-chart' });
    const pinned = this.host.state().pinned.includes(key);
    append(
      this.charts,
      el(
        'div',
        { className: 'metric-card', dataset: { key } },
        el(
          'div',
          { className: 'card-bar' },
          el('span', { className: 'key-title', title: key }, pinned ? `★ ${key}` : key),
          el('button', { className: 'csv', attrs: { type: 'button' }, title: t('Save every point of this key as CSV') }, t('CSV')),
          el('button', { className: 'png', attrs: { type: 'button' }, title: t('Save this chart as PNG') }, t('PNG')),
        ),
        box,
      ),
    );
    box.addEventListener('dblclick', () => {
      const c = this.cards.find((x) => x.key === key);
      if (c?.range) {
        c.range = undefined;
        this.request(c);
      }
    });
    return { key, box, seq: -1 };
  }

  private width(c: Card): number {
    return Math.max(240, c.box.clientWidth || this.charts.clientWidth || 600);
  }

  private request(c: Card): void {
    const st = this.host.state();
    c.seq = ++this.seq;
    const query = {
      key: c.key,
      axis: st.axis,
      smoothing: Math.min(0.99, st.smoothing),
      width: Math.min(8192, Math.round(this.width(c) * devicePixelRatio)),
      ...(c.range ? { xMin: c.range[0], xMax: c.range[1] } : {}),
    };
    this.host.post({ type: 'plot', seq: c.seq, query });
  }

  requestAll(): void {
    for (const c of this.cards) this.request(c);
  }

  /** A chart's data from the host: drawn when it answers the card's latest query. */
  plot(p: MetricPlot): void {
    const c = this.cards.find((x) => x.seq === p.seq && x.key === p.key);
    if (!c) return;
    const data = [p.x, ...p.series.flatMap((s) => (s.smooth ? [s.raw, s.smooth] : [s.raw]))] as uPlot.AlignedData;
    const shape = JSON.stringify([p.axis, p.series.map((s) => [s.run, !!s.smooth])]);
    if (c.u && c.box.dataset.shape === shape) {
      c.u.setData(data, !c.range);
      if (c.range) c.u.setScale('x', { min: c.range[0], max: c.range[1] });
    } else {
      c.u?.destroy();
      clear(c.box);
      c.box.dataset.shape = shape;
      c.u = new uPlot(this.options(p, c), data, c.box);
      // The faint raw lines behind the smoothed ones stay out of the legend.
      const raw = new Set(p.series.flatMap((s, i) => (s.smooth ? [1 + i * 2] : [])));
      c.u.root.querySelectorAll<HTMLElement>('.u-legend .u-series').forEach((row, i) => {
        if (raw.has(i)) row.classList.add('raw');
      });
    }
    const drawn = p.series.reduce((a, s) => a + s.drawn, 0);
    const total = p.series.reduce((a, s) => a + s.points, 0);
    c.box.dataset.points = String(total);
    c.box.dataset.drawn = String(drawn);
    c.box.title = drawn < total ? t('{0} points, {1} drawn (each pixel column keeps its lowest and highest)', total, drawn) : '';
  }

  private options(p: MetricPlot, c: Card): uPlot.Options {
    const fg = this.host.cssVar('--vscode-foreground', '#ccc');
    const grid = this.host.cssVar('--vscode-editorWidget-border', 'rgba(128,128,128,0.35)');
    const xLabel = p.axis === 'step' ? t('step') : p.axis === 'relative' ? t('hours since start') : t('wall time');
    const series: uPlot.Series[] = [{ label: xLabel }];
    for (const s of p.series) {
      const color = this.host.color(s.run);
      if (s.smooth) {
        series.push({ label: t('{0} (raw)', s.label), stroke: color, width: 1, alpha: 0.3, spanGaps: true, points: { show: false } });
        series.push({ label: s.label, stroke: color, width: 2, spanGaps: true, points: { show: false }, value: (_u, v) => fmt(v) });
      } else
        series.push({ label: s.label, stroke: color, width: 2, spanGaps: true, points: { show: s.drawn < 60 }, value: (_u, v) => fmt(v) });
    }
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    return {
      width: this.width(c),
      height: HEIGHT,
      scales: { x: { time: p.axis === 'wall' } },
      legend: { show: true },
      cursor: { drag: { x: true, y: false } },
      axes: [
        // Steps are integers: no 2.5 ticks.
        { ...axis, label: xLabel, labelSize: 18, ...(p.axis === 'step' ? { incrs: STEP_INCRS } : {}) },
        { ...axis, size: 60, values: (_u, vals) => tickLabels(vals.map((v) => (v === null ? null : Number(v.toPrecision(6))))) },
      ],
      series,
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 2) return;
            const lo = u.posToVal(u.select.left, 'x');
            const hi = u.posToVal(u.select.left + u.select.width, 'x');
            // The zoomed range gets its own columns: thinned again for the new width of each pixel.
            c.range = [lo, hi];
            this.request(c);
          },
        ],
      },
    };
  }

  /** New theme colours or a new width: draw again. */
  redraw(): void {
    for (const c of this.cards) {
      c.u?.destroy();
      c.u = undefined;
      delete c.box.dataset.shape;
      this.request(c);
    }
    if (this.data) this.phases.update(this.data.runs, (run) => this.host.color(run));
  }

  resize(): void {
    for (const c of this.cards) c.u?.setSize({ width: this.width(c), height: HEIGHT });
  }
}
