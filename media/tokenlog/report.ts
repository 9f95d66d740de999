// What the view reports to the host after it renders (tests read it; nothing else depends on it).
import type { ViewReport } from '../../core/protocol/tokenlog';
import type { View } from './view';

export class Reporter {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly v: View) {}

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.v.host.post({ type: 'report', report: this.build() });
    }, 80);
  }

  private build(): ViewReport {
    const { host, dom, list, detail, timeline, group, filters } = this.v;
    const s = host.state;
    const tokens = timeline.domTokens();
    const report: ViewReport = {
      records: list.records,
      listTotal: list.total,
      listRows: dom.listRows.querySelectorAll('.row').length,
      selected: s.selected,
      timeline: detail.current ? s.timeline : undefined,
      timelineTokens: timeline.current()?.text.length ?? 0,
      domTokens: tokens.spans,
      domText: tokens.text,
      cursor: timeline.cursor >= 0 ? timeline.cursor : undefined,
      hover: timeline.hoverShown() ? timeline.hoverText : undefined,
      injected: dom.root.querySelectorAll('script, img, iframe, object, embed, [onerror], [onload], [onclick], [onmouseover]').length,
      mode: s.mode,
      follow: s.follow,
      kind: detail.current?.record.kind,
      group: s.group ? group.members.length : 0,
      error: detail.error,
      indexing: list.indexing,
    };
    const search = filters.searchState();
    if (search) report.search = search;
    const empty = list.emptyMessage();
    if (empty) report.emptyMessage = empty;
    return report;
  }
}
