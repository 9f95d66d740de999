// Filters and sort: the form above the list, the query sent to the host, and the summary line
// that says what the list shows (how many records, which filters are on, search matches and
// progress).
import { clear, el } from '../shared/dom';
import type { Filter, SortKey } from '../../core/protocol/tokenlog';
import { count, matches, records } from './format';
import type { View } from './view';
import { t } from '../shared/l10n';

export class Filters {
  /** True from a filter change until its list arrives: the list is aria-busy meanwhile. */
  awaiting = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Search progress (records searched of total) while a text search runs. */
  progress: { done: number; total: number } | undefined;

  constructor(private readonly v: View) {
    const d = v.dom;
    for (const i of [d.stepMin, d.stepMax, d.rewardMin, d.rewardMax]) i.addEventListener('input', () => this.queryLater());
    d.searchInput.addEventListener('input', () => this.queryLater());
    d.outcomeSel.addEventListener('change', () => this.send());
    d.sortSel.addEventListener('change', () => this.send());
    d.sortDir.addEventListener('click', () => {
      d.sortDir.textContent = d.sortDir.textContent === '↑' ? '↓' : '↑';
      this.send();
    });
    d.clearBtn.addEventListener('click', () => this.clearAll());
    d.filterForm.addEventListener('submit', (e) => {
      e.preventDefault();
      this.send();
    });
  }

  read(): Filter {
    const d = this.v.dom;
    const n = (i: HTMLInputElement) => (i.value.trim() === '' || !Number.isFinite(Number(i.value)) ? undefined : Number(i.value));
    const f: Filter = { stepMin: n(d.stepMin), stepMax: n(d.stepMax), rewardMin: n(d.rewardMin), rewardMax: n(d.rewardMax) };
    if (d.outcomeSel.value) f.outcome = d.outcomeSel.value;
    if (d.searchInput.value.trim()) f.text = d.searchInput.value.trim();
    return f;
  }

  write(f: Filter): void {
    const d = this.v.dom;
    const s = (v: number | undefined) => (v === undefined ? '' : String(v));
    d.stepMin.value = s(f.stepMin);
    d.stepMax.value = s(f.stepMax);
    d.rewardMin.value = s(f.rewardMin);
    d.rewardMax.value = s(f.rewardMax);
    this.ensureOutcome(f.outcome ?? '');
    d.outcomeSel.value = f.outcome ?? '';
    d.searchInput.value = f.text ?? '';
  }

  ensureOutcome(o: string): void {
    const sel = this.v.dom.outcomeSel;
    if (!o || [...sel.options].some((x) => x.value === o)) return;
    sel.appendChild(el('option', { attrs: { value: o } }, `outcome ${o}`));
  }

  setBusy(): void {
    this.v.dom.listViewport.setAttribute('aria-busy', String(this.awaiting || this.v.list.searching));
  }

  send(): void {
    const d = this.v.dom;
    const s = this.v.host.state;
    this.awaiting = true;
    this.setBusy();
    s.filter = this.read();
    s.sort = { key: d.sortSel.value as SortKey, desc: d.sortDir.textContent === '↓' };
    if (!s.filter.text) this.progress = undefined;
    this.v.host.save();
    this.v.host.post({ type: 'query', filter: s.filter, sort: s.sort });
    this.renderSummary();
  }

  queryLater(): void {
    this.awaiting = true;
    this.setBusy();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send();
    }, 250);
  }

  /** A list arrived: a new one ends the wait for the query (unless another is pending). */
  listArrived(changed: boolean): void {
    if (changed && !this.timer) this.awaiting = false;
    this.setBusy();
    this.renderSummary();
  }

  clearAll(): void {
    this.write({});
    this.send();
  }

  sortBy(key: SortKey): void {
    const d = this.v.dom;
    if (d.sortSel.value === key) d.sortDir.textContent = d.sortDir.textContent === '↑' ? '↓' : '↑';
    d.sortSel.value = key;
    this.send();
  }

  /** The filters in force, in words ("step 1–3", "text “abc”"); [] when none. */
  describe(): string[] {
    const f = this.v.host.state.filter;
    const out: string[] = [];
    const range = (what: string, lo: number | undefined, hi: number | undefined) => {
      if (lo !== undefined && hi !== undefined) out.push(lo === hi ? `${what} ${lo}` : `${what} ${lo}–${hi}`);
      else if (lo !== undefined) out.push(`${what} ≥ ${lo}`);
      else if (hi !== undefined) out.push(`${what} ≤ ${hi}`);
    };
    range(t('step'), f.stepMin, f.stepMax);
    range(t('reward'), f.rewardMin, f.rewardMax);
    if (f.outcome) out.push(t('outcome {0}', f.outcome));
    if (f.text) out.push(t('text “{0}”', f.text));
    return out;
  }

  /** Search counts for the report and the summary: records matched, matches, finished. */
  searchState(): { records: number; hits: number; done: boolean } | undefined {
    if (!this.v.host.state.filter.text) return undefined;
    const list = this.v.list;
    return { records: list.total, hits: list.hits ?? 0, done: !list.searching && !this.awaiting };
  }

  /** "12 of 51 records · Filters: step 1 · text “abc” · 37 matches, searching 40 of 51". */
  renderSummary(): void {
    const d = this.v.dom;
    const list = this.v.list;
    const active = this.describe();
    d.summaryCount.textContent = active.length ? t('{0} of {1}', count(list.total), records(list.records)) : records(list.records);
    clear(d.summaryFilters);
    if (active.length) {
      d.summaryFilters.append(
        el('span', { className: 'label' }, t('Filters:')),
        ...active.map((a) => el('span', { className: 'chip', title: a }, a)),
      );
      const x = el('button', { className: 'link', attrs: { type: 'button', title: t('Clear every filter') } }, t('clear'));
      x.addEventListener('click', () => this.clearAll());
      d.summaryFilters.appendChild(x);
    }
    const s = this.searchState();
    let search = '';
    if (s) {
      search = t('{0} in {1}', matches(s.hits), records(s.records));
      if (!s.done)
        search += ` · ${this.progress ? t('searching {0} of {1}…', count(this.progress.done), count(this.progress.total)) : t('searching…')}`;
    }
    d.summarySearch.textContent = search;
    d.summary.classList.toggle('filtered', active.length > 0);
  }
}
