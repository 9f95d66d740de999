// The detail pane: the selected record's head (title, time, step, reward ...), then its token
// timelines (tabs + timeline), or its table / text for other records. Cleared when the filters
// exclude the record it shows.
import { append, clear, el } from '../shared/dom';
import type { HostToView, RecordData, Row, TableGrid } from '../../core/protocol/tokenlog';
import { count, score } from './format';
import type { View } from './view';
import { t } from '../shared/l10n';

type RecordMsg = Extract<HostToView, { type: 'record' }>;

const HINT = (): string =>
  t('Select a record. Keys: ↑/↓ records, Enter open, n/N trained segments, l/L low-logprob tokens, [ ] previous/next record.');

export class Detail {
  current: { index: number; record: RecordData } | undefined;
  error: string | undefined;
  /** Timeline key to show once the record arrives (from the group view). */
  private wantKey: string | undefined;

  constructor(private readonly v: View) {
    v.dom.detailEmpty.textContent = HINT();
  }

  /** Opens record `index` (asks the host for it, and for its place in the list). */
  open(index: number, timeline?: number): void {
    const host = this.v.host;
    const s = host.state;
    if (s.selected !== index) {
      s.timeline = timeline ?? 0;
      host.restoreTokenScroll = 0;
    } else if (timeline !== undefined) s.timeline = timeline;
    s.selected = index;
    host.save();
    this.v.list.forgetExcludedCheck();
    host.post({ type: 'open', index });
    host.post({ type: 'locate', index });
    this.v.list.render();
  }

  openAt(index: number, key: string): void {
    this.wantKey = key;
    this.open(index);
  }

  /** The filters no longer list the record on show: empty the pane and say why. */
  excluded(index: number): void {
    const d = this.v.dom;
    const host = this.v.host;
    if (host.state.selected !== index) return;
    host.state.selected = undefined;
    host.save();
    this.current = undefined;
    this.error = undefined;
    this.v.timeline.build(undefined);
    this.v.timeline.hideHover();
    clear(d.recordHead);
    d.timelinePane.classList.add('hidden');
    d.otherPane.classList.add('hidden');
    this.v.group.reset();
    d.detailEmpty.classList.remove('hidden');
    d.detailEmpty.textContent = t('Record {0} is hidden by the filters. {1}', index, HINT());
    this.v.timeline.render();
    this.v.report.schedule();
  }

  onRecord(m: RecordMsg): void {
    const d = this.v.dom;
    const s = this.v.host.state;
    if (m.index !== s.selected) return;
    d.detailEmpty.classList.add('hidden');
    this.v.timeline.hideHover();
    if (!m.ok) {
      this.current = undefined;
      this.error = m.error;
      this.v.timeline.build(undefined);
      this.v.timeline.render();
      this.renderHead(m.index, undefined, m.row, m.error);
      d.timelinePane.classList.add('hidden');
      d.otherPane.classList.add('hidden');
      this.v.report.schedule();
      return;
    }
    this.error = undefined;
    this.current = { index: m.index, record: m.record };
    if (this.wantKey) {
      const k = m.record.timelines.findIndex((t) => t.key === this.wantKey);
      if (k >= 0) s.timeline = k;
      this.wantKey = undefined;
    }
    if (s.timeline >= m.record.timelines.length) s.timeline = 0;
    this.renderHead(m.index, m.record, m.row);
    const tokens = m.record.kind === 'tokens';
    d.timelinePane.classList.toggle('hidden', !tokens);
    d.otherPane.classList.toggle('hidden', tokens);
    const list = this.v.list;
    if (tokens) {
      this.showTimeline(false);
      if (list.jumpTo && list.jumpTo.timeline === s.timeline) this.v.timeline.setCursor(list.jumpTo.token);
      list.jumpTo = undefined;
    } else {
      this.renderOther(m.record);
      this.v.group.reset();
    }
    this.v.report.schedule();
  }

  private renderHead(index: number, r: RecordData | undefined, row: Row, error?: string): void {
    const d = this.v.dom;
    clear(d.recordHead);
    const kv = (k: string, val: string | undefined) =>
      val === undefined || val === '' ? null : el('span', { className: 'kv' }, el('b', {}, k), ' ', val);
    const step = r?.step ?? row.step;
    const reward = r?.reward ?? row.reward;
    append(
      d.recordHead,
      el('h2', {}, t('Record {0}', index), r?.title ? ` · ${r.title}` : ''),
      el(
        'div',
        { className: 'meta' },
        kv(t('time'), r?.time),
        kv(t('level'), r?.level),
        kv(t('source'), r?.source),
        kv(t('step'), step === undefined ? undefined : count(step)),
        kv(t('task'), r?.taskId ?? row.taskId),
        kv(t('reward'), score(reward)),
        kv(t('outcome'), r?.outcome ?? row.outcome),
        kv(t('kind'), r?.kind),
      ),
    );
    if (error) d.recordHead.appendChild(el('div', { className: 'error', attrs: { role: 'alert' } }, error));
    for (const w of r?.warnings ?? []) d.recordHead.appendChild(el('div', { className: 'warning' }, w));
  }

  private renderTabs(r: RecordData): void {
    const d = this.v.dom;
    const s = this.v.host.state;
    clear(d.timelineTabs);
    r.timelines.forEach((tl, k) => {
      const label = tl.outcome
        ? t(
            '#{0} outcome {1} · reward {2} · adv {3} · {4} tok',
            tl.index,
            tl.outcome,
            score(tl.rawReward),
            score(tl.advantage),
            count(tl.text.length),
          )
        : t('#{0} · reward {1} · adv {2} · {3} tok', tl.index, score(tl.rawReward), score(tl.advantage), count(tl.text.length));
      const b = el(
        'button',
        {
          className: k === s.timeline ? 'tab active' : 'tab',
          title: `${tl.key}\n${label}`,
          attrs: { type: 'button', role: 'tab', 'aria-selected': String(k === s.timeline) },
        },
        label,
      );
      b.addEventListener('click', () => {
        s.timeline = k;
        this.v.host.save();
        this.showTimeline(true);
      });
      d.timelineTabs.appendChild(b);
    });
  }

  /** Shows the selected timeline of the current record (tabs, legend, tokens; the group if on). */
  showTimeline(resetScroll: boolean): void {
    if (!this.current) return;
    const d = this.v.dom;
    const host = this.v.host;
    const tl = this.v.timeline;
    const r = this.current.record;
    this.renderTabs(r);
    tl.renderLegend();
    const t = tl.current();
    d.tokenInfo.textContent = tl.info(t);
    tl.build(t);
    d.tokenViewport.scrollTop = resetScroll ? 0 : host.restoreTokenScroll;
    host.restoreTokenScroll = 0;
    tl.render();
    if (host.state.group) this.v.group.request();
  }

  private renderOther(r: RecordData): void {
    const d = this.v.dom;
    clear(d.otherPane);
    if (r.kind === 'table') {
      d.otherPane.appendChild(tableEl(r.grid ?? { rows: r.table.map(([k, val]) => [k, val]) }));
    } else {
      if (r.content) d.otherPane.appendChild(el('pre', { className: 'content' }, r.content));
      if (r.attach) append(d.otherPane, el('h3', {}, 'attach'), el('pre', { className: 'content' }, r.attach));
      if (!r.content && !r.attach) d.otherPane.appendChild(el('div', { className: 'empty' }, t('This record has no content.')));
    }
  }
}

/** A table as read from the log: header row when there is one, every cell's lines kept. */
export function tableEl(grid: TableGrid): HTMLElement {
  const width = Math.max(grid.header?.length ?? 0, ...grid.rows.map((r) => r.length));
  const head = grid.header ?? (width === 2 ? ['key', 'value'] : undefined);
  const table = el('table', { className: 'grid' });
  if (grid.title) table.appendChild(el('caption', {}, grid.title));
  if (head) table.appendChild(el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { title: h }, h)))));
  const body = el('tbody');
  for (const row of grid.rows)
    body.appendChild(el('tr', {}, ...row.map((c, i) => el(i === 0 ? 'th' : 'td', { attrs: i === 0 ? { scope: 'row' } : {} }, c))));
  table.appendChild(body);
  return table;
}
