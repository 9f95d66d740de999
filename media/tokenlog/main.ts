// Token log viewer webview: a virtualised record list and a virtualised token timeline. All log
// text reaches the DOM through textContent (the el() helper), never as markup. Each part lives in
// its own module with its own state (list, filters, detail, timeline, group, keys, messages); this
// file builds them and wires the controls that belong to no single part.
import { buildLayout } from './layout';
import { Host } from './host';
import { RecordList } from './list';
import { Filters } from './filters';
import { Detail } from './detail';
import { TokenTimeline } from './timeline';
import { GroupView } from './group';
import { Reporter } from './report';
import { installKeys } from './keys';
import { Messages } from './messages';
import type { View } from './view';

const host = new Host();
const dom = buildLayout(document.getElementById('root')!);
// The parts refer to each other through `view`; they are constructed in dependency order and
// none calls another from its constructor.
const parts: { -readonly [K in keyof View]?: View[K] } = { host, dom };
const view = parts as View;
parts.report = new Reporter(view);
parts.filters = new Filters(view);
parts.timeline = new TokenTimeline(view);
parts.group = new GroupView(view);
parts.detail = new Detail(view);
parts.list = new RecordList(view);
installKeys(view);
new Messages(view).install();

const { state } = host;
dom.modeSel.addEventListener('change', () => {
  state.mode = dom.modeSel.value as typeof state.mode;
  host.save();
  view.timeline.renderLegend();
  view.timeline.render();
});
dom.wsBox.addEventListener('change', () => {
  state.whitespace = dom.wsBox.checked;
  host.save();
  view.timeline.rebuild();
});
dom.thresholdInput.addEventListener('change', () => {
  const n = Number(dom.thresholdInput.value);
  if (Number.isFinite(n)) {
    state.threshold = n;
    host.save();
  }
});
dom.groupBox.addEventListener('change', () => view.group.setOn(dom.groupBox.checked));
dom.copyText.addEventListener('click', () => {
  const t = view.timeline.current();
  if (t) host.post({ type: 'copy', text: t.text.join(''), what: 'timeline text' });
});
dom.copyJson.addEventListener('click', () => {
  const t = view.timeline.current();
  const cur = view.detail.current;
  if (!t || !cur) return;
  const r = cur.record;
  host.post({
    type: 'copy',
    what: 'timeline JSON',
    text: JSON.stringify({
      record: cur.index,
      task: t.taskId,
      step: r.step ?? null,
      reward: t.rawReward ?? r.reward ?? null,
      outcome: t.outcome,
      advantage: t.advantage ?? null,
      tokens: t.text,
      ids: t.ids,
      logprobs: t.logprobs,
      mask: t.mask,
    }),
  });
});
dom.followBox.addEventListener('change', () => {
  state.follow = dom.followBox.checked;
  host.save();
  if (state.follow) view.list.followNewest();
  view.report.schedule();
});
dom.rawBtn.addEventListener('click', () => host.post({ type: 'openRaw' }));
dom.cancelBtn.addEventListener('click', () => host.post({ type: 'cancel' }));
dom.resumeBtn.addEventListener('click', () => {
  dom.resumeBtn.classList.add('hidden');
  host.post({ type: 'resume' });
});

// Start: the controls show the saved state, then the host is told we are ready.
view.filters.write(state.filter);
dom.sortSel.value = state.sort.key;
dom.sortDir.textContent = state.sort.desc ? '↓' : '↑';
dom.modeSel.value = state.mode;
dom.wsBox.checked = state.whitespace;
dom.followBox.checked = state.follow;
dom.groupBox.checked = state.group;
dom.thresholdInput.value = String(state.threshold);
view.timeline.renderLegend();
window.addEventListener('resize', () => {
  view.list.render();
  view.timeline.render();
});
host.post({ type: 'ready', state });
view.list.render();
