// Run dashboard: reward, success rate and response length per training step, evaluation metrics,
// and exceptions, for one or several runs overlaid. Charts by uPlot (bundled, no CDN); colours
// come from the VS Code theme; untrusted text (exception messages, table values) only as text.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { append, clear, el } from '../shared/dom';
import { fmtNum, fmtPct, tickLabels, yRange, type AxisKind } from './scale';
import { countsText, emptyPanelText, noEvaluationsText, statusWord } from './text';
import type { DashboardRun, DashboardState, DashboardToHost, HostToDashboard } from '../../core/protocol/dashboard';
import { t } from '../shared/l10n';
import { DEFAULT_TABLE, TasksTable } from './tasks';
import { DEFAULT_METRICS, MetricsSection } from './metrics';
import { cssVar, runColor } from './colors';

interface VsCodeApi {
  postMessage(msg: DashboardToHost): void;
  getState(): DashboardState | undefined;
  setState(state: DashboardState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;
let runs: DashboardRun[] = [];
let state: DashboardState = vscode.getState() ?? { runs: [] };
const charts: { u: uPlot; data: () => uPlot.AlignedData }[] = [];
const tasks = new TasksTable({
  post: (m) => vscode.postMessage(m),
  state: () => state.taskTable ?? DEFAULT_TABLE,
  save: (s) => {
    state = { ...state, taskTable: s };
    vscode.setState(state);
  },
});
const training = new MetricsSection({
  post: (m) => vscode.postMessage(m),
  state: () => state.metrics ?? DEFAULT_METRICS,
  save: (s) => {
    state = { ...state, metrics: s };
    vscode.setState(state);
  },
  color: (run) =>
    runColor(
      Math.max(
        0,
        runs.findIndex((r) => r.id === run),
      ),
    ),
  cssVar,
});
/** What the charts are built for; when only the numbers change, charts get new data in place. */
let layout = '';

type StepMetric = 'meanReward' | 'successRate' | 'meanResponseLength';

/** Aligns several runs' per-step values on the union of their steps (gaps are null). */
function stepData(metric: StepMetric): uPlot.AlignedData {
  const xs = [...new Set(runs.flatMap((r) => r.steps.map((s) => s.step)))].sort((a, b) => a - b);
  const series = runs.map((r) => {
    const by = new Map(r.steps.map((s) => [s.step, s[metric]]));
    return xs.map((x) => {
      const v = by.get(x);
      return v === undefined ? null : v;
    });
  });
  return [xs, ...series] as uPlot.AlignedData;
}

function evalMetrics(): string[] {
  const keys = new Set<string>();
  for (const r of runs) for (const e of r.evals) for (const k of Object.keys(e.metrics)) keys.add(k);
  const preferred = ['TGC@1', 'mean_reward'];
  const rank = (k: string) => {
    const i = preferred.indexOf(k);
    return i < 0 ? preferred.length : i;
  };
  return [...keys].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function evalData(metric: string): uPlot.AlignedData {
  const n = Math.max(0, ...runs.map((r) => r.evals.length));
  const xs = Array.from({ length: n }, (_, i) => i + 1);
  const series = runs.map((r) =>
    xs.map((x) => {
      const v = r.evals[x - 1]?.metrics[metric];
      return v === undefined ? null : v;
    }),
  );
  return [xs, ...series] as uPlot.AlignedData;
}

function chart(host: HTMLElement, title: string, xLabel: string, dataFn: () => uPlot.AlignedData, fmt: (v: number) => string): void {
  const kind: AxisKind = fmt === fmtPct ? 'rate' : 'number';
  const data = dataFn();
  const fg = cssVar('--vscode-foreground', '#ccc');
  const grid = cssVar('--vscode-editorWidget-border', 'rgba(128,128,128,0.35)');
  const width = Math.max(240, host.clientWidth || 420);
  const opts: uPlot.Options = {
    title,
    width,
    height: 220,
    scales: { x: { time: false }, y: { range: (_u, min, max) => yRange(kind, min, max) } },
    legend: { show: true },
    cursor: { drag: { x: true, y: false } },
    axes: [
      // Steps and evaluation numbers are integers: no 1.25 ticks.
      {
        stroke: fg,
        grid: { stroke: grid, width: 1 },
        ticks: { stroke: grid },
        label: xLabel,
        labelSize: 18,
        incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000],
        values: (_u, vals) => vals.map((v) => (v === null ? '' : String(v))),
      },
      {
        stroke: fg,
        grid: { stroke: grid, width: 1 },
        ticks: { stroke: grid },
        values: (_u, vals) => (kind === 'rate' ? vals.map((v) => (v === null ? '' : fmt(v))) : tickLabels(vals)),
        size: 56,
      },
    ],
    series: [
      { label: xLabel },
      ...runs.map((r, i) => ({
        label: r.label,
        stroke: runColor(i),
        width: 2,
        spanGaps: true,
        points: { show: true, size: 5, fill: runColor(i) },
        value: (_u: uPlot, v: number | null) => (v === null ? '-' : fmt(v)),
      })),
    ],
  };
  const u = new uPlot(opts, data, host);
  charts.push({ u, data: dataFn });
}

function hasValues(d: uPlot.AlignedData): boolean {
  return d.slice(1).some((series) => (series as (number | null | undefined)[]).some((v) => v !== null && v !== undefined));
}

function layoutKey(): string {
  const stepsShown = (['meanReward', 'successRate', 'meanResponseLength'] as const).map((m) => hasValues(stepData(m)));
  return JSON.stringify([runs.map((r) => r.id), stepsShown, evalMetrics(), state.evalMetric]);
}

/** New numbers for the same layout: update charts in place (keeps zoom and cursor), redraw the lists. */
function update(): void {
  const key = layoutKey();
  if (key !== layout) {
    render();
    return;
  }
  for (const c of charts) c.u.setData(c.data());
  const legend = root.querySelector('ul.runs');
  if (legend) legend.replaceWith(runList());
  const ex = root.querySelector('section.exceptions');
  if (ex) ex.replaceWith(exceptionsTable(false));
  const notes = root.querySelector('section.notes');
  if (notes) notes.replaceWith(exceptionsTable(true));
}

function runList(): HTMLElement {
  const legend = el('ul', { className: 'runs' });
  runs.forEach((r, i) => {
    const swatch = el('span', { className: 'swatch' });
    swatch.style.background = runColor(i);
    const read = r.stepsRead;
    const pending =
      read && read.total > 0
        ? el(
            'span',
            { className: 'pending', attrs: { role: 'status' } },
            ` · ${t('reading rollout records, {0}% ({1} of {2})', String(Math.floor((Math.min(read.done, read.total) / read.total) * 100)), read.done.toLocaleString(), read.total.toLocaleString())}`,
          )
        : r.pendingBytes > 0
          ? el('span', { className: 'pending' }, ` · ${t('reading, {0} MB left', (r.pendingBytes / 1048576).toFixed(1))}`)
          : null;
    append(
      legend,
      el(
        'li',
        { dataset: { id: r.id } },
        swatch,
        el('span', { className: 'label', title: r.id }, r.label),
        el('span', { className: `status status-${r.status}` }, statusWord(r.status)),
        r.health && r.health.state !== 'progressing'
          ? el('span', { className: `health health-${r.health.state}`, attrs: { role: 'status' } }, ` · ${r.health.text}`)
          : null,
        el(
          'span',
          { className: 'counts' },
          ` · ${countsText(r.steps.length, r.evals.length, r.exceptions.filter((e) => !e.harmless).length, r.exceptions.filter((e) => e.harmless).length)}`,
        ),
        pending,
        r.error ? el('span', { className: 'error' }, ` · ${r.error}`) : null,
        ...(r.causes ?? []).map((c) =>
          el(
            'div',
            { className: 'cause', attrs: { role: 'status' }, title: c.place },
            el('strong', {}, c.code),
            ` ${c.message} ${t('Fix: {0}', c.fix)}`,
          ),
        ),
        el(
          'button',
          {
            className: 'remove',
            attrs: { type: 'button', 'aria-label': t('Remove {0}', r.label) },
            dataset: { remove: r.id },
            title: t('Remove from the dashboard'),
          },
          '×',
        ),
      ),
    );
  });
  return legend;
}

function render(): void {
  for (const c of charts.splice(0)) c.u.destroy();
  const refocus = tasks.hadFocus();
  clear(root);
  layout = layoutKey();
  const header = el(
    'header',
    { className: 'bar' },
    el('h1', {}, runs.length === 1 ? runs[0]!.label : t('{0} runs', runs.length)),
    el('button', { className: 'add', attrs: { type: 'button' }, title: t('Add runs to compare') }, t('Add runs…')),
  );
  append(root, header);
  append(root, runList());
  if (!runs.length) {
    append(root, el('p', { className: 'empty' }, t('No runs on this dashboard. Use “Add runs…” or open it from the Runs view.')));
    return;
  }
  const grid = el('section', { className: 'grid' });
  append(root, grid);
  const hasSteps = runs.some((r) => r.steps.length);
  const panels: [string, string, () => uPlot.AlignedData, (v: number) => string][] = hasSteps
    ? [
        [t('Mean reward per step'), t('step'), () => stepData('meanReward'), fmtNum],
        [t('Success rate per step'), t('step'), () => stepData('successRate'), fmtPct],
        [t('Response length per step (tokens)'), t('step'), () => stepData('meanResponseLength'), (v) => v.toFixed(0)],
      ]
    : [];
  for (const [title, x, data, fmt] of panels) {
    if (!hasValues(data())) {
      append(
        grid,
        el(
          'p',
          { className: 'empty' },
          emptyPanelText(
            title,
            runs.map((r) => r.status),
          ),
        ),
      );
      continue;
    }
    const box = el('div', { className: 'chart', dataset: { chart: title } });
    append(grid, box);
    chart(box, title, x, data, fmt);
  }
  if (!hasSteps) append(grid, el('p', { className: 'empty' }, t('No rollout records yet (rollout/rollout.json.log).')));
  const metrics = evalMetrics();
  if (metrics.length) {
    const metric = state.evalMetric && metrics.includes(state.evalMetric) ? state.evalMetric : metrics[0]!;
    const select = el('select', { className: 'metric', attrs: { 'aria-label': t('Evaluation metric') } });
    for (const m of metrics) {
      const o = el('option', { attrs: { value: m } }, m);
      if (m === metric) o.selected = true;
      append(select, o);
    }
    const box = el('div', { className: 'chart', dataset: { chart: 'evaluation' } });
    append(grid, el('div', { className: 'chart-wrap' }, el('label', {}, t('Evaluation metric'), ' ', select), box));
    chart(box, t('Evaluation: {0}', metric), t('evaluation #'), () => evalData(metric), fmtNum);
  } else {
    append(grid, el('p', { className: 'empty' }, noEvaluationsText(runs.map((r) => r.status))));
  }
  // The same metrics and table elements across renders: their charts, rows, filter text and focus stay.
  append(root, training.section);
  append(root, tasks.section);
  if (refocus) tasks.focus();
  append(root, exceptionsTable(false));
  append(root, exceptionsTable(true));
}

/**
 * Exceptions (errors, in the error colour), or the harmless notes AgentJet writes beside them and
 * carries on after (listed apart, in the plain colour, as the Runs tree counts them).
 */
function exceptionsTable(notes: boolean): HTMLElement {
  const rows = runs
    .flatMap((r, i) => r.exceptions.filter((e) => !!e.harmless === notes).map((e) => ({ run: r, i, e })))
    .sort((a, b) => a.e.time.localeCompare(b.e.time));
  const heading = notes ? t('Harmless notes ({0})', rows.length) : t('Exceptions ({0})', rows.length);
  const section = el('section', { className: notes ? 'exceptions notes' : 'exceptions' }, el('h2', {}, heading));
  if (notes) {
    if (!rows.length) section.hidden = true;
    else
      append(
        section,
        el('p', { className: 'hint' }, t('AgentJet wrote these to exception.json.log and carried on (prompt token mismatch): not errors.')),
      );
  }
  if (!rows.length) {
    append(section, el('p', { className: 'empty' }, t('None recorded.')));
    return section;
  }
  const table = el(
    'table',
    {},
    el('thead', {}, el('tr', {}, el('th', {}, t('time')), el('th', {}, t('run')), el('th', {}, t('what')), el('th', {}, ''))),
  );
  const body = el('tbody');
  for (const { run, i, e } of rows.slice(-500)) {
    const swatch = el('span', { className: 'swatch' });
    swatch.style.background = runColor(i);
    append(
      body,
      el(
        'tr',
        {},
        el('td', { className: 'time' }, e.time),
        el('td', {}, swatch, run.label),
        el('td', {}, el('div', { className: 'title' }, e.title), e.detail ? el('pre', {}, e.detail) : null),
        el('td', {}, el('button', { className: 'open', attrs: { type: 'button' }, dataset: { file: e.file }, title: e.file }, t('open'))),
      ),
    );
  }
  append(table, body);
  append(section, table);
  return section;
}

root.addEventListener('click', (ev) => {
  const target = ev.target as HTMLElement | null;
  if (!target) return;
  if (target.classList.contains('add')) vscode.postMessage({ type: 'addRuns' });
  const remove = target.dataset.remove;
  if (remove) vscode.postMessage({ type: 'removeRun', id: remove });
  const file = target.dataset.file;
  if (file) vscode.postMessage({ type: 'openFile', path: file });
});
root.addEventListener('change', (ev) => {
  const target = ev.target as HTMLSelectElement | null;
  if (target?.classList.contains('metric')) {
    state = { ...state, evalMetric: target.value };
    vscode.setState(state);
    render();
  }
});

window.addEventListener('message', (ev: MessageEvent<HostToDashboard>) => {
  const m = ev.data;
  if (m.type === 'tasks') {
    tasks.page(m);
    return;
  }
  if (m.type === 'metrics' || m.type === 'plot') {
    if (m.type === 'metrics') training.update(m);
    else training.plot(m.plot);
    document.body.dataset.metrics = String(root.querySelectorAll('.metric-card .uplot').length);
    return;
  }
  if (m.type === 'runs') runs = m.runs;
  else if (m.type === 'run') {
    const i = runs.findIndex((r) => r.id === m.run.id);
    if (i >= 0) runs[i] = m.run;
    else runs.push(m.run);
  } else return;
  state = { ...state, runs: runs.map((r) => r.id) };
  vscode.setState(state);
  if (m.type === 'runs') render();
  else update();
  tasks.update(runs);
  document.body.dataset.rendered = String(runs.reduce((a, r) => a + r.steps.length, 0));
});

// Theme switches change the CSS variables: draw again with the new colours.
new MutationObserver(() => {
  render();
  training.redraw();
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  if (resizeTimer) clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    for (const c of charts) c.u.setSize({ width: Math.max(240, c.u.root.parentElement?.clientWidth ?? 420), height: 220 });
    training.resize();
  }, 100);
});

vscode.postMessage({ type: 'ready' });
