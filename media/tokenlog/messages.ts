// Messages from the extension host: file status, indexing and search progress, list pages,
// records, groups, and the test driver's commands (ViewCommand).
import type { HostToView, ViewCommand } from '../../core/protocol/tokenlog';
import { bytes, count, records } from './format';
import { timelineKey } from './keys';
import type { View } from './view';
import { t } from '../shared/l10n';

export class Messages {
  /** The file grew while following: select the newest record once the new list arrives. */
  private pendingFollow = false;
  private indexDone = false;

  constructor(private readonly v: View) {}

  install(): void {
    window.addEventListener('message', (e: MessageEvent<HostToView>) => this.on(e.data));
  }

  private restoreSelection(ready: boolean): void {
    const host = this.v.host;
    const sel = host.state.selected;
    if (host.restoreSelected && sel !== undefined && ready) {
      host.restoreSelected = false;
      this.v.detail.open(sel, host.state.timeline);
    }
  }

  on(m: HostToView): void {
    const { dom: d, list, filters, detail, group, report } = this.v;
    switch (m.type) {
      case 'init':
        d.titleEl.textContent = m.name;
        d.titleEl.title = m.files.join('\n');
        break;
      case 'progress': {
        list.indexing = m.phase !== 'search';
        d.progressBox.classList.remove('hidden');
        d.progressBar.max = Math.max(1, m.total);
        d.progressBar.value = m.done;
        const pct = m.total ? Math.floor((m.done / m.total) * 100) : 0;
        d.progressLabel.textContent =
          m.phase === 'index'
            ? t('Indexing {0}% ({1} of {2})', pct, bytes(m.done), bytes(m.total))
            : m.phase === 'summaries'
              ? t('Reading record headers {0}%', pct)
              : t('Searching {0} of {1}', count(m.done), records(m.total));
        d.progressBar.setAttribute('aria-label', d.progressLabel.textContent);
        d.cancelBtn.classList.toggle('hidden', !m.cancellable);
        if (m.phase === 'search') {
          filters.progress = { done: m.done, total: m.total };
          filters.renderSummary();
        }
        break;
      }
      case 'progressEnd':
        if (m.phase !== 'search') {
          list.indexing = m.phase === 'index' && !m.cancelled;
          this.indexDone = true;
        } else filters.progress = undefined;
        this.restoreSelection(this.indexDone);
        d.progressBox.classList.add('hidden');
        if (m.cancelled && m.phase !== 'search') d.resumeBtn.classList.remove('hidden');
        if (m.cancelled)
          d.statusEl.textContent = `${d.statusEl.textContent ?? ''} · ${m.phase === 'search' ? t('search cancelled') : t('indexing cancelled')}`;
        list.render();
        break;
      case 'status': {
        const grew = m.records > list.records;
        list.records = m.records;
        d.statusEl.textContent = `${records(m.records)} · ${bytes(m.bytes)}${m.partialTail ? ` · ${t('last record still being written')}` : ''}`;
        for (const o of m.outcomes) filters.ensureOutcome(o);
        d.problemsEl.classList.toggle('hidden', m.problems.length === 0);
        d.problemsEl.textContent = m.problems.length ? t('Unreadable parts: {0}', m.problems.join('; ')) : '';
        if (grew && this.v.host.state.follow) this.pendingFollow = true;
        const sel = this.v.host.state.selected;
        this.restoreSelection(sel !== undefined && (m.records > sel || this.indexDone));
        filters.renderSummary();
        break;
      }
      case 'list': {
        const changed = list.onList(m);
        filters.listArrived(changed);
        if (this.pendingFollow) {
          this.pendingFollow = false;
          list.followNewest();
        }
        break;
      }
      case 'rows':
        list.onRows(m);
        break;
      case 'searchHits':
        list.onSearchHits(m);
        if (m.version === list.version && m.counts && Number.isFinite(m.counts.done) && Number.isFinite(m.counts.total)) {
          filters.progress = { done: m.counts.done, total: m.counts.total };
          d.progressLabel.textContent = t(
            'Searching {0} of {1} records · {2} matches in {3} records',
            count(m.counts.done),
            count(m.counts.total),
            count(list.hits ?? 0),
            count(list.total),
          );
        }
        filters.renderSummary();
        break;
      case 'changed': {
        // The open record was incomplete (or the file was replaced): read it again.
        const sel = this.v.host.state.selected;
        if (sel !== undefined && sel >= m.from && !this.pendingFollow) this.v.host.post({ type: 'open', index: sel });
        break;
      }
      case 'located':
        list.onLocated(m.index, m.position);
        break;
      case 'record':
        detail.onRecord(m);
        break;
      case 'group':
        group.onGroup(m.taskId, m.members);
        break;
      case 'error':
        d.problemsEl.classList.remove('hidden');
        d.problemsEl.textContent = m.message;
        detail.error = m.message;
        report.schedule();
        break;
      case 'command':
        this.command(m.command);
        break;
    }
  }

  /** The test driver (and other features) act as a user would. */
  private command(c: ViewCommand): void {
    const { dom: d, filters, detail, list, timeline } = this.v;
    const act: { [K in ViewCommand['kind']]: (c: Extract<ViewCommand, { kind: K }>) => void } = {
      filter: (c) => {
        filters.write(c.filter);
        filters.send();
      },
      open: (c) => detail.open(c.index, c.timeline),
      select: (c) => list.selectPos(c.position),
      mode: (c) => change(d.modeSel, (s) => (s.value = c.mode)),
      follow: (c) => change(d.followBox, (b) => (b.checked = c.on)),
      key: (c) => timelineKey(this.v, c.key, c.shiftKey ?? false),
      hover: (c) => timeline.hoverToken(c.token),
      group: (c) => change(d.groupBox, (b) => (b.checked = c.on)),
      copy: (c) => (c.what === 'json' ? d.copyJson : d.copyText).click(),
    };
    (act[c.kind] as (c: ViewCommand) => void)(c);
  }
}

/** Sets a control as the user would: its own change handler does the rest. */
function change<T extends HTMLElement>(control: T, set: (control: T) => void): void {
  set(control);
  control.dispatchEvent(new Event('change'));
}
