// The group view: every timeline of the current task (and step) side by side, each column a
// light preview of the response with its mask colours; a click opens that timeline.
import { clear, el } from '../shared/dom';
import type { GroupMember } from '../../core/protocol/tokenlog';
import { count, score } from './format';
import type { View } from './view';
import { t } from '../shared/l10n';

export class GroupView {
  members: GroupMember[] = [];

  constructor(private readonly v: View) {}

  /** Asks the host for the group of the record on show. */
  request(): void {
    const r = this.v.detail.current?.record;
    if (this.v.host.state.group && r?.taskId) this.v.host.post({ type: 'group', taskId: r.taskId, step: r.step });
  }

  reset(): void {
    this.members = [];
    this.render();
  }

  setOn(on: boolean): void {
    this.v.host.state.group = on;
    this.v.host.save();
    this.members = [];
    this.render();
    this.request();
  }

  onGroup(taskId: string, members: GroupMember[]): void {
    if (this.v.detail.current?.record.taskId !== taskId) return;
    this.members = members;
    this.render();
  }

  render(): void {
    const { groupPane } = this.v.dom;
    clear(groupPane);
    if (!this.v.host.state.group) {
      groupPane.classList.add('hidden');
      return;
    }
    groupPane.classList.remove('hidden');
    if (this.members.length === 0) {
      groupPane.appendChild(el('div', { className: 'empty' }, t('Loading the group…')));
      return;
    }
    const cols = el('div', { className: 'columns' });
    for (const m of this.members) cols.appendChild(this.column(m));
    groupPane.appendChild(cols);
    this.v.report.schedule();
  }

  private column(m: GroupMember): HTMLElement {
    const lines = [
      t('record {0} · {1}', m.index, m.key),
      t('reward {0} · advantage {1} · outcome {2}', score(m.reward), score(m.advantage), m.outcome),
      t('{0} tokens, {1} trained', count(m.tokens), count(m.trained)),
    ];
    const head = el(
      'button',
      { className: 'col-head', title: `${lines.join('\n')}\n${t('Open this timeline')}`, attrs: { type: 'button' } },
      ...lines.map((l) => el('div', {}, l)),
    );
    head.addEventListener('click', () => {
      this.v.dom.groupBox.checked = false;
      this.setOn(false);
      const cur = this.v.detail.current;
      const k = cur?.index === m.index ? cur.record.timelines.findIndex((x) => x.key === m.key) : -1;
      if (k >= 0) {
        this.v.host.state.timeline = k;
        this.v.detail.showTimeline(true);
      } else this.v.detail.openAt(m.index, m.key);
    });
    // Runs of equal mask become one span: a side-by-side preview stays light.
    const body = el('pre', { className: 'col-body' });
    if (m.promptTokens > 0)
      body.appendChild(el('div', { className: 'prompt-note' }, `(prompt: ${count(m.promptTokens)} tokens, not shown)`));
    let start = 0;
    for (let i = 1; i <= m.text.length; i++) {
      if (i === m.text.length || m.mask[i] !== m.mask[start]) {
        const mk = m.mask[start];
        body.appendChild(el('span', { className: `tok ${mk === 1 ? 'm1' : mk === 0 ? 'm0' : 'mu'}` }, m.text.slice(start, i).join('')));
        start = i;
      }
    }
    if (m.truncated) body.appendChild(el('div', { className: 'warning' }, '… (preview truncated; open the timeline for all tokens)'));
    return el('div', { className: 'col' }, head, body);
  }
}
