// The record list: a virtualised, resizable grid of rows fetched page by page from the host.
// Token records show step, task, reward, outcome and token counts; other records (tables,
// exceptions, text) show their kind, title and time instead of empty token columns.
import { clear, el } from '../shared/dom';
import type { HostToView, Row } from '../../core/protocol/tokenlog';
import { clock, count, score, stamp } from './format';
import { COLUMNS, OTHER_COLUMNS } from './layout';
import type { View } from './view';
import { t } from '../shared/l10n';

export const ROW_H = 24;
const MIN_COL = 24;

type ListMsg = Extract<HostToView, { type: 'list' }>;
type RowsMsg = Extract<HostToView, { type: 'rows' }>;
type HitsMsg = Extract<HostToView, { type: 'searchHits' }>;

/** A record that is not a token record (or not known to be one): a table, exception or text. */
export function isOther(r: Row): boolean {
  if (r.kind) return r.kind !== 'tokens';
  return r.error === undefined && r.taskId === undefined && r.step === undefined && r.title !== undefined && r.tokens === undefined;
}

export class RecordList {
  /** Records in the file (status), and the list as filtered and sorted by the host. */
  records = 0;
  version = -1;
  total = 0;
  searching = false;
  /** The host is still reading records or summaries: a record missing from the list may yet come. */
  private partial = false;
  /** Matches of the current text search in the listed records (host count). */
  hits: number | undefined;
  indexing = false;
  selectedPos = -1;
  private readonly cache = new Map<number, Row>();
  private pendingRows = '';
  private pendingOpenPos = -1;
  /** From a search result: the first match, shown once the record arrives. */
  jumpTo: { timeline: number; token: number } | undefined;
  private widths: number[];
  /** Which columns the list shows: token columns, or those of tables and text when it holds no token record. */
  private mode: 'tokens' | 'other' = 'tokens';
  /** The selected record whose place in a new list was asked for (a list change may exclude it). */
  private checkExcluded: number | undefined;

  constructor(private readonly v: View) {
    const d = v.dom;
    this.widths = COLUMNS.map((c, i) => v.host.state.columns?.[i] ?? c.width);
    this.buildHead();
    this.applyWidths();
    d.listHead.addEventListener('click', (e) => {
      const cell = (e.target as HTMLElement).closest<HTMLElement>('.cell');
      const key = cell && this.mode === 'tokens' ? COLUMNS[Number(cell.dataset.col)]?.sort : undefined;
      if (key) this.v.filters.sortBy(key);
    });
    if (v.host.state.listWidth) d.split.style.setProperty('--list-w', `${v.host.state.listWidth}px`);
    d.listViewport.addEventListener('scroll', () => {
      // The header follows the rows sideways (wide columns scroll horizontally, the pane clips).
      d.listHead.style.transform = `translateX(${-d.listViewport.scrollLeft}px)`;
      if (v.host.state.listScroll === d.listViewport.scrollTop) return;
      v.host.state.listScroll = d.listViewport.scrollTop;
      v.host.save();
      this.render();
    });
    d.listRows.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('.row');
      if (row) this.selectPos(Number(row.dataset.pos));
    });
    d.emptyClear.addEventListener('click', () => v.filters.clearAll());
    this.installSplitter();
  }

  private buildHead(): void {
    const d = this.v.dom;
    clear(d.listHead);
    d.listPane.classList.toggle('mode-other', this.mode === 'other');
    if (this.mode === 'other') {
      for (const c of OTHER_COLUMNS)
        d.listHead.appendChild(el('span', { className: 'cell', title: c.title }, el('span', { className: 'label' }, c.label)));
      return;
    }
    COLUMNS.forEach((c, i) => {
      const grip = el('span', {
        className: 'grip',
        attrs: { role: 'separator', 'aria-orientation': 'vertical', 'aria-label': t('resize column {0}', c.label) },
      });
      const cell = el(
        'span',
        {
          className: `cell${c.sort ? ' sortable' : ''}`,
          title: c.sort ? t('{0} (click to sort)', c.title) : c.title,
          dataset: { col: String(i) },
        },
        el('span', { className: 'label' }, c.label),
        grip,
      );
      d.listHead.appendChild(cell);
      grip.addEventListener('pointerdown', (e) => this.dragColumn(e, i, grip));
      grip.addEventListener('click', (e) => e.stopPropagation());
      grip.addEventListener('dblclick', (e) => {
        e.stopPropagation();
        this.widths[i] = c.width;
        this.applyWidths(true);
      });
    });
  }

  /** Token columns while any token record is listed; the other kinds' own columns otherwise. */
  private setMode(mode: 'tokens' | 'other'): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.buildHead();
    this.applyWidths();
  }

  private dragColumn(e: PointerEvent, i: number, grip: HTMLElement): void {
    e.preventDefault();
    const startX = e.clientX;
    const start = this.widths[i]!;
    grip.setPointerCapture(e.pointerId);
    const move = (ev: PointerEvent) => {
      this.widths[i] = Math.max(MIN_COL, Math.round(start + ev.clientX - startX));
      this.applyWidths(false);
    };
    const up = () => {
      grip.removeEventListener('pointermove', move);
      grip.removeEventListener('pointerup', up);
      this.applyWidths(true);
    };
    grip.addEventListener('pointermove', move);
    grip.addEventListener('pointerup', up);
  }

  /** Column widths go to a CSS variable every row's grid uses; the last column takes the rest. */
  private applyWidths(save = false): void {
    const widths = this.mode === 'other' ? OTHER_COLUMNS.map((c) => c.width) : this.widths;
    const cols = widths.map((w, i) => (i === 2 ? `minmax(${w}px, 1fr)` : `${w}px`)).join(' ');
    this.v.dom.listPane.style.setProperty('--cols', cols);
    // Rows are at least as wide as their columns: past the pane's width the list scrolls sideways.
    const rowMin = widths.reduce((a, b) => a + b, 0) + 4 * (widths.length - 1) + 16;
    this.v.dom.listPane.style.setProperty('--row-min', `${rowMin}px`);
    // Until the user drags the splitter, the list is wide enough for every column (up to 60 %).
    if (!this.v.host.state.listWidth) this.v.dom.split.style.setProperty('--list-w', `minmax(min(${rowMin + 2}px, 60%), 48%)`);
    if (save) {
      this.v.host.state.columns = [...this.widths];
      this.v.host.save();
    }
  }

  private installSplitter(): void {
    const { splitter, split, listPane } = this.v.dom;
    const set = (w: number, save: boolean) => {
      const px = Math.max(240, Math.min(w, split.clientWidth - 240));
      split.style.setProperty('--list-w', `${px}px`);
      if (save) {
        this.v.host.state.listWidth = px;
        this.v.host.save();
      }
    };
    splitter.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      const startX = e.clientX;
      const start = listPane.getBoundingClientRect().width;
      splitter.setPointerCapture(e.pointerId);
      const move = (ev: PointerEvent) => set(start + ev.clientX - startX, false);
      const up = (ev: PointerEvent) => {
        set(start + ev.clientX - startX, true);
        splitter.removeEventListener('pointermove', move);
        splitter.removeEventListener('pointerup', up);
      };
      splitter.addEventListener('pointermove', move);
      splitter.addEventListener('pointerup', up);
    });
    splitter.addEventListener('keydown', (e) => {
      const step = e.key === 'ArrowLeft' ? -32 : e.key === 'ArrowRight' ? 32 : 0;
      if (step) {
        e.preventDefault();
        set(listPane.getBoundingClientRect().width + step, true);
      }
    });
  }

  private cell(text: string, title = text, cls = ''): HTMLElement {
    return el('span', { className: `cell${cls ? ` ${cls}` : ''}`, title }, text);
  }

  private rowEl(pos: number, r: Row | undefined): HTMLElement {
    const sel = r !== undefined && r.index === this.v.host.state.selected;
    const other = r !== undefined && isOther(r);
    const cls = `row${sel ? ' selected' : ''}${r?.error ? ' bad' : ''}${r?.partial ? ' partial' : ''}${other ? ' other-kind' : ''}`;
    const row = el('div', {
      className: cls,
      attrs: { role: 'option', 'aria-selected': String(sel), id: `row-${pos}` },
      dataset: { pos: String(pos) },
    });
    // Right-click: "Debug This Task" (a webview/context menu of the extension) gets the task id.
    if (r?.taskId) row.dataset.vscodeContext = JSON.stringify({ agentjetTaskId: r.taskId });
    if (!r) {
      row.appendChild(this.cell('…', 'loading'));
    } else if (other) {
      const kind = r.kind === 'table' ? 'table' : r.kind === 'text' ? 'text' : 'record';
      const kindWord = kind === 'table' ? t('table') : kind === 'text' ? t('text') : t('record');
      const kindTip =
        kind === 'table'
          ? t('A table record, not token timelines')
          : kind === 'text'
            ? t('A text record, not token timelines')
            : t('A record without token timelines');
      row.append(this.cell(count(r.index)), el('span', { className: `cell kind kind-${kind}`, title: kindTip }, kindWord));
      if (this.mode === 'other')
        row.append(this.cell(r.title ?? '', r.title ?? '', 'wide'), this.cell(clock(r.time), stamp(r.time), 'time'));
      else {
        // Among token records: the time leads the title (no column of its own under "tokens").
        const title = this.cell('', `${stamp(r.time)}\n${r.title ?? ''}`.trim(), 'wide');
        title.append(el('span', { className: 'time' }, clock(r.time)), document.createTextNode(r.title ?? ''));
        row.append(title);
      }
    } else {
      const tokens = r.tokens === undefined ? '' : `${count(r.tokens)}${r.trained !== undefined ? ` (${count(r.trained)})` : ''}`;
      const task = r.taskId ?? r.title ?? '';
      row.append(
        this.cell(count(r.index)),
        this.cell(count(r.step), count(r.step), 'num'),
        this.cell(task, r.title && r.title !== task ? `${task}\n${r.title}` : task),
        this.cell(score(r.reward), r.reward === undefined ? '' : String(r.reward), 'num'),
        this.cell(r.outcome ?? ''),
        this.cell(r.timelines === undefined ? '' : String(r.timelines), 'timelines', 'num'),
        this.cell(tokens, r.tokens === undefined ? '' : `${count(r.tokens)} tokens, ${count(r.trained)} trained`, 'num'),
      );
    }
    row.style.top = `${pos * ROW_H}px`;
    if (r?.error) row.title = r.error;
    return row;
  }

  render(): void {
    const d = this.v.dom;
    d.listSpacer.style.height = `${this.total * ROW_H}px`;
    const top = d.listViewport.scrollTop;
    const h = d.listViewport.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / ROW_H) - 5);
    const last = Math.min(this.total, Math.ceil((top + h) / ROW_H) + 5);
    // Columns per record kind: the token columns only where a token record is listed.
    if (this.cache.size) this.setMode([...this.cache.values()].some((r) => !isOther(r)) ? 'tokens' : 'other');
    clear(d.listRows);
    let missing = false;
    for (let p = first; p < last; p++) {
      const r = this.cache.get(p);
      if (!r) missing = true;
      d.listRows.appendChild(this.rowEl(p, r));
    }
    if (this.selectedPos >= first && this.selectedPos < last)
      d.listViewport.setAttribute('aria-activedescendant', `row-${this.selectedPos}`);
    if (missing) {
      const key = `${this.version}:${first}:${last}`;
      if (this.pendingRows !== key) {
        this.pendingRows = key;
        this.v.host.post({ type: 'rows', version: this.version, offset: Math.max(0, first - 20), count: last - first + 40 });
      }
    }
    this.renderEmpty();
    this.v.filters.renderSummary();
    this.v.report.schedule();
  }

  /** The message shown instead of rows, at the top of the list where it is seen. */
  emptyMessage(): string | undefined {
    if (this.total > 0) return undefined;
    if (this.searching) return t('Searching…');
    if (this.records === 0) return this.indexing ? t('Indexing…') : t('No records in this file.');
    const active = this.v.filters.describe();
    return active.length ? t('No record matches the filters ({0}).', active.join(' · ')) : t('No record matches the filters.');
  }

  private renderEmpty(): void {
    const d = this.v.dom;
    const msg = this.emptyMessage();
    d.listEmpty.classList.toggle('hidden', msg === undefined);
    d.emptyText.textContent = msg ?? '';
    const filtered = msg !== undefined && this.records > 0 && !this.searching && this.v.filters.describe().length > 0;
    d.emptyClear.classList.toggle('hidden', !filtered);
    d.listEmpty.classList.toggle('filtered', filtered);
  }

  selectPos(pos: number): void {
    const d = this.v.dom;
    if (pos < 0 || pos >= this.total) return;
    this.selectedPos = pos;
    const r = this.cache.get(pos);
    const top = pos * ROW_H;
    if (top < d.listViewport.scrollTop) d.listViewport.scrollTop = top;
    else if (top + ROW_H > d.listViewport.scrollTop + d.listViewport.clientHeight)
      d.listViewport.scrollTop = top + ROW_H - d.listViewport.clientHeight;
    if (r) {
      this.jumpTo = r.hit?.token !== undefined ? { timeline: r.hit.timeline ?? 0, token: r.hit.token } : undefined;
      this.v.detail.open(r.index, this.jumpTo?.timeline);
    } else {
      this.pendingOpenPos = pos;
      this.render();
    }
  }

  /** An explicit open: the record is shown even when the list does not hold it. */
  forgetExcludedCheck(): void {
    this.checkExcluded = undefined;
  }

  moveSelection(d: number): void {
    const pos = this.selectedPos >= 0 ? this.selectedPos + d : 0;
    if (pos >= 0 && pos < this.total) this.selectPos(pos);
  }

  onList(m: ListMsg): boolean {
    const d = this.v.dom;
    const host = this.v.host;
    // A new version is a new list; the same version with more entries (streamed search hits)
    // keeps the rows already fetched.
    const changed = m.version !== this.version;
    if (changed) this.cache.clear();
    else {
      // Same list, grown at the end: refetch the old last row (it may have been incomplete)
      // and rows still waiting for their summary.
      this.cache.delete(this.total - 1);
      for (const [k, r] of [...this.cache])
        if (r.title === undefined && r.error === undefined && r.taskId === undefined) this.cache.delete(k);
    }
    this.pendingRows = '';
    this.version = m.version;
    this.total = m.total;
    this.searching = m.searching;
    this.partial = m.partial === true;
    this.hits = m.hits;
    if (host.restoreListScroll) {
      d.listSpacer.style.height = `${this.total * ROW_H}px`;
      d.listViewport.scrollTop = host.restoreListScroll;
      if (d.listViewport.scrollTop > 0 || this.total * ROW_H <= d.listViewport.clientHeight) host.restoreListScroll = 0;
    }
    if (changed || this.selectedPos >= this.total) this.selectedPos = -1;
    if (host.state.selected !== undefined) {
      this.checkExcluded = changed || !m.searching ? host.state.selected : undefined;
      host.post({ type: 'locate', index: host.state.selected });
    }
    this.render();
    return changed;
  }

  /**
   * A batch of streamed search hits for this list: they were appended at `offset`, so the list
   * grows to show them at once (their rows are fetched as they come into view) and the match
   * count goes up; the list message that follows carries the host's totals.
   */
  onSearchHits(m: HitsMsg): void {
    if (m.version !== this.version || !Number.isInteger(m.offset) || m.offset < 0 || !Array.isArray(m.hits)) return;
    const end = m.offset + m.hits.length;
    let matches = 0;
    for (const h of m.hits) if (typeof h.matches === 'number' && Number.isFinite(h.matches)) matches += h.matches;
    this.searching = true;
    if (end > this.total) {
      // Rows fetched at those positions before are not these hits.
      for (let p = m.offset; p < end; p++) this.cache.delete(p);
      this.total = end;
      this.hits = (this.hits ?? 0) + matches;
    }
    this.render();
  }

  onRows(m: RowsMsg): void {
    if (m.version !== this.version) return;
    m.rows.forEach((r, k) => this.cache.set(m.offset + k, r));
    this.pendingRows = '';
    if (this.pendingOpenPos >= 0 && this.cache.has(this.pendingOpenPos)) {
      const p = this.pendingOpenPos;
      this.pendingOpenPos = -1;
      this.selectPos(p);
    }
    this.render();
  }

  /** Where the selected record is in the list; -1 once a finished list excludes it. */
  onLocated(index: number, position: number): void {
    if (index !== this.v.host.state.selected) return;
    this.selectedPos = position;
    const check = this.checkExcluded === index;
    // A list still being read is no verdict: the next list message locates the record again.
    if (check && position < 0 && this.partial) return this.render();
    this.checkExcluded = undefined;
    if (check && position < 0 && !this.searching && !this.v.filters.awaiting) this.v.detail.excluded(index);
    this.render();
  }

  followNewest(): void {
    const s = this.v.host.state;
    if (!s.follow || this.total === 0) return;
    this.v.dom.listViewport.scrollTop = this.total * ROW_H;
    const newestFirst = s.sort.desc && s.sort.key === 'index';
    this.selectPos(newestFirst ? 0 : this.total - 1);
  }
}
