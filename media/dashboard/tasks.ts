// The dashboard's per-task table: one row per task id of a run, a page at a time (the host keeps
// the table and its sort orders; the page asks for the rows it shows). Sorted by mean reward,
// lowest first, until the user picks another column; filtered by task id text. Task ids are
// untrusted log text: they only ever become text nodes and data attributes.
import { append, clear, el } from '../shared/dom';
import { t } from '../shared/l10n';
import { fmtPct } from './scale';
import type { DashboardRun, DashboardState, DashboardToHost, TaskRow, TaskSortKey } from '../../core/protocol/dashboard';

export const TASK_PAGE = 100;

type TableState = NonNullable<DashboardState['taskTable']>;

export const DEFAULT_TABLE: TableState = { sort: 'meanReward', desc: false, text: '', offset: 0 };

interface Column {
  key: TaskSortKey;
  label: () => string;
  cell: (r: TaskRow) => string;
  numeric: boolean;
}

/** Rewards as AgentJet writes them in a record's title (3 decimals). */
const reward = (v: number | undefined): string => (v === undefined ? '–' : Math.abs(v) >= 1e6 ? v.toExponential(3) : v.toFixed(3));

/** "0, 1, 2" or "0–3, 7" for the steps of a row (the count when only the first are listed). */
export function stepsText(r: TaskRow): string {
  const parts: string[] = [];
  let i = 0;
  while (i < r.steps.length) {
    let j = i;
    while (j + 1 < r.steps.length && r.steps[j + 1] === r.steps[j]! + 1) j++;
    parts.push(j - i >= 2 ? `${r.steps[i]}–${r.steps[j]}` : r.steps.slice(i, j + 1).join(', '));
    i = j + 1;
  }
  const text = parts.join(', ');
  return r.stepCount > r.steps.length ? `${text}, … (${r.stepCount})` : text || '–';
}

const COLUMNS: Column[] = [
  { key: 'id', label: () => t('task id'), cell: (r) => (r.id === '' ? t('(empty id)') : r.id), numeric: false },
  { key: 'rollouts', label: () => t('rollouts'), cell: (r) => String(r.rollouts), numeric: true },
  { key: 'meanReward', label: () => t('mean reward'), cell: (r) => reward(r.meanReward), numeric: true },
  { key: 'minReward', label: () => t('min'), cell: (r) => reward(r.minReward), numeric: true },
  { key: 'maxReward', label: () => t('max'), cell: (r) => reward(r.maxReward), numeric: true },
  { key: 'lastReward', label: () => t('last'), cell: (r) => reward(r.lastReward), numeric: true },
  {
    key: 'successRate',
    label: () => t('success rate'),
    cell: (r) => (r.successRate === undefined ? '–' : fmtPct(r.successRate)),
    numeric: true,
  },
  { key: 'step', label: () => t('steps'), cell: stepsText, numeric: false },
];

export interface TasksHost {
  post(m: DashboardToHost): void;
  state(): TableState;
  save(s: TableState): void;
}

/** The table section; `update` gives it the dashboard's runs, `page` the host's answers. */
export class TasksTable {
  readonly section: HTMLElement;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private readonly pager: HTMLElement;
  private readonly runSelect: HTMLSelectElement;
  private readonly filter: HTMLInputElement;
  private readonly head: HTMLTableRowElement;
  private runs: DashboardRun[] = [];
  private seq = 0;
  private asked: { run: string; version: number | undefined } | undefined;
  private filterTimer: ReturnType<typeof setTimeout> | undefined;
  private total = 0;

  constructor(private readonly host: TasksHost) {
    this.runSelect = el('select', { className: 'task-run', attrs: { 'aria-label': t('Run of the task table') } });
    this.filter = el('input', {
      className: 'task-filter',
      attrs: { type: 'search', placeholder: t('Filter by task id'), 'aria-label': t('Filter by task id') },
    });
    this.filter.value = host.state().text;
    this.head = el('tr');
    this.body = el('tbody');
    this.status = el('p', { className: 'task-status', attrs: { role: 'status' } });
    this.pager = el('div', { className: 'task-pager' });
    this.section = el(
      'section',
      { className: 'tasks' },
      el('h2', {}, t('Tasks')),
      el(
        'p',
        { className: 'hint' },
        t('One row per task id in the rollout records; sort by reward to find the failing ones, then debug one.'),
      ),
      el('div', { className: 'task-controls' }, this.runSelect, this.filter),
      el('table', {}, el('thead', {}, this.head), this.body),
      this.status,
      this.pager,
    );
    this.renderHead();
    this.section.addEventListener('click', (ev) => this.onClick(ev));
    this.runSelect.addEventListener('change', () => {
      this.host.save({ ...this.host.state(), run: this.runSelect.value, offset: 0 });
      this.ask(true);
    });
    this.filter.addEventListener('input', () => {
      if (this.filterTimer) clearTimeout(this.filterTimer);
      this.filterTimer = setTimeout(() => {
        this.host.save({ ...this.host.state(), text: this.filter.value, offset: 0 });
        this.ask(true);
      }, 150);
    });
  }

  /** The run the table shows: the saved one when it is still on the dashboard, else the first. */
  private run(): DashboardRun | undefined {
    const want = this.host.state().run;
    return this.runs.find((r) => r.id === want) ?? this.runs[0];
  }

  private renderHead(): void {
    const s = this.host.state();
    clear(this.head);
    for (const c of COLUMNS) {
      const active = s.sort === c.key;
      const arrow = active ? (s.desc ? ' ▼' : ' ▲') : '';
      append(
        this.head,
        el(
          'th',
          { className: c.numeric ? 'num' : '', attrs: { 'aria-sort': active ? (s.desc ? 'descending' : 'ascending') : 'none' } },
          el(
            'button',
            { className: 'sort', attrs: { type: 'button' }, dataset: { sort: c.key }, title: t('Sort by {0}', c.label()) },
            c.label() + arrow,
          ),
        ),
      );
    }
    append(this.head, el('th', {}, ''));
  }

  /** New run data: keeps the run list current and asks again when the shown run's table changed. */
  update(runs: DashboardRun[]): void {
    this.runs = runs;
    this.section.hidden = runs.length === 0;
    const current = this.run();
    const ids = runs.map((r) => r.id).join('\n');
    if (this.runSelect.dataset.ids !== ids) {
      this.runSelect.dataset.ids = ids;
      clear(this.runSelect);
      for (const r of runs) {
        const o = el('option', { attrs: { value: r.id } }, r.label);
        if (r.id === current?.id) o.selected = true;
        append(this.runSelect, o);
      }
    }
    this.runSelect.hidden = runs.length < 2;
    if (!current) return;
    if (!this.asked || this.asked.run !== current.id || this.asked.version !== current.tasksVersion) this.ask(false);
  }

  /** Asks the host for the page the state says; `reset` clears the rows shown meanwhile. */
  ask(reset: boolean): void {
    const run = this.run();
    if (!run) return;
    const s = this.host.state();
    this.asked = { run: run.id, version: run.tasksVersion };
    if (reset) this.status.textContent = t('Loading…');
    this.seq++;
    this.host.post({
      type: 'tasks',
      run: run.id,
      seq: this.seq,
      query: { sort: s.sort, desc: s.desc, text: s.text, offset: s.offset, limit: TASK_PAGE },
    });
  }

  /** The host's answer; answers to older questions are dropped. */
  page(m: { run: string; seq: number; total: number; offset: number; rows: TaskRow[]; reading: boolean }): void {
    if (m.seq !== this.seq) return;
    const s = this.host.state();
    if (m.offset !== s.offset) this.host.save({ ...s, offset: m.offset });
    this.total = m.total;
    clear(this.body);
    for (const r of m.rows) {
      const tr = el('tr', { dataset: { task: r.id } });
      for (const c of COLUMNS) append(tr, el('td', { className: c.numeric ? 'num' : c.key === 'id' ? 'task-id' : '' }, c.cell(r)));
      append(
        tr,
        el(
          'td',
          { className: 'actions' },
          el(
            'button',
            {
              className: 'debug-task',
              attrs: { type: 'button', 'aria-label': t('Debug task {0}', r.id) },
              dataset: { debugTask: r.id },
              title: t('Start the debug backbone on this task only, stopping at your breakpoints'),
            },
            t('Debug this task'),
          ),
          ' ',
          el(
            'button',
            {
              className: 'open-task-log',
              attrs: { type: 'button', 'aria-label': t('Open task {0} in the token log', r.id) },
              dataset: { openTaskLog: r.id },
            },
            t('Open in token log'),
          ),
        ),
      );
      append(this.body, tr);
    }
    const run = this.runs.find((r) => r.id === m.run);
    const all = run?.tasks ?? m.total;
    this.status.textContent =
      m.total === 0
        ? s.text
          ? t('No task id contains “{0}”.', s.text)
          : m.reading
            ? t('Reading rollout records…')
            : t('No rollout records with a task id.')
        : t('Tasks {0}–{1} of {2}', m.offset + 1, m.offset + m.rows.length, m.total) +
          (m.total !== all ? ` ${t('(filtered from {0})', all)}` : '') +
          (m.reading ? ` · ${t('still reading')}` : '');
    clear(this.pager);
    if (m.total > TASK_PAGE) {
      append(
        this.pager,
        el('button', { className: 'page-prev', attrs: { type: 'button', ...(m.offset === 0 ? { disabled: '' } : {}) } }, t('Previous')),
        ' ',
        el(
          'button',
          { className: 'page-next', attrs: { type: 'button', ...(m.offset + TASK_PAGE >= m.total ? { disabled: '' } : {}) } },
          t('Next'),
        ),
      );
    }
    document.body.dataset.tasks = String(m.total);
  }

  private onClick(ev: Event): void {
    const target = (ev.target as HTMLElement | null)?.closest('button');
    if (!target) return;
    const run = this.run();
    if (!run) return;
    const s = this.host.state();
    const sort = target.dataset.sort as TaskSortKey | undefined;
    if (sort) {
      // A new column starts ascending (lowest reward first); the same column flips.
      this.host.save({ ...s, sort, desc: s.sort === sort ? !s.desc : false, offset: 0 });
      this.renderHead();
      this.ask(true);
      return;
    }
    if (target.classList.contains('page-prev') || target.classList.contains('page-next')) {
      const offset = target.classList.contains('page-prev')
        ? Math.max(0, s.offset - TASK_PAGE)
        : Math.min(s.offset + TASK_PAGE, Math.max(0, this.total - 1));
      this.host.save({ ...s, offset });
      this.ask(false);
      return;
    }
    const debug = target.dataset.debugTask;
    if (debug !== undefined) {
      this.host.post({ type: 'debugTask', run: run.id, taskId: debug });
      return;
    }
    const open = target.dataset.openTaskLog;
    if (open !== undefined) this.host.post({ type: 'openTaskLog', run: run.id, taskId: open });
  }

  /** After a full re-render the section is put back; the filter keeps focus if it had it. */
  hadFocus(): boolean {
    return document.activeElement === this.filter;
  }
  focus(): void {
    this.filter.focus();
  }
}
