// Trajectory viewer webview: one chat transcript per timeline (roles, tool calls, tool results).
import { append, clear, el } from '../shared/dom';
import type { TrajectoryHostToView, TrajectoryMessage, TrajectoryViewToHost } from '../../core/protocol/tokenlog';
import { t } from '../shared/l10n';

interface VsCodeApi {
  postMessage(m: TrajectoryViewToHost): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();
const saved = (vscode.getState() as { timeline?: number; scroll?: number } | undefined) ?? {};

const root = document.getElementById('root')!;
const head = el('header', { className: 'bar' });
const tabs = el('div', { className: 'tabs', attrs: { role: 'tablist', 'aria-label': t('timelines') } });
const transcript = el('div', { className: 'transcript', attrs: { role: 'log', 'aria-label': t('transcript'), tabindex: '0' } });
append(root, head, tabs, transcript);

let timeline = saved.timeline ?? 0;
transcript.addEventListener('scroll', () => vscode.setState({ timeline, scroll: transcript.scrollTop }));

function messageEl(m: TrajectoryMessage, resultsById: Map<string, TrajectoryMessage>): HTMLElement {
  const box = el(
    'article',
    { className: `msg role-${m.role.replace(/[^a-z_-]/gi, '')}`, attrs: { 'aria-label': t('{0} message', m.role) } },
    el('div', { className: 'role' }, m.role, m.name ? ` (${m.name})` : '', m.toolCallId ? ` · ${t('result of {0}', m.toolCallId)}` : ''),
  );
  if (m.content) box.appendChild(el('pre', { className: 'content' }, m.content));
  for (const c of m.toolCalls) {
    const call = el(
      'div',
      { className: 'tool-call' },
      el('div', { className: 'tool-name' }, `→ ${c.name}`, c.id ? ` [${c.id}]` : ''),
      el('pre', {}, c.arguments),
    );
    const res = c.id ? resultsById.get(c.id) : undefined;
    if (res) call.appendChild(el('div', { className: 'tool-ref' }, t('result below')));
    box.appendChild(call);
  }
  return box;
}

let messages = 0;
function render(msg: Extract<TrajectoryHostToView, { type: 'trajectory' }>): void {
  clear(head);
  clear(tabs);
  clear(transcript);
  const raw = el('button', { attrs: { type: 'button' } }, t('Open as JSON'));
  raw.addEventListener('click', () => vscode.postMessage({ type: 'openRaw' }));
  if (!msg.ok) {
    append(head, el('span', { className: 'title' }, msg.name), raw);
    transcript.appendChild(el('div', { className: 'error', attrs: { role: 'alert' } }, msg.error));
    vscode.postMessage({ type: 'report', messages: 0, timelines: 0, error: msg.error });
    return;
  }
  const d = msg.data;
  // Right-click anywhere in the view: "Debug This Task" (webview/context menu) gets the task id.
  document.body.dataset.vscodeContext = JSON.stringify({ agentjetTaskId: d.taskId });
  append(
    head,
    el('span', { className: 'title' }, t('Task {0}', d.taskId)),
    d.tag ? el('span', { className: `tag tag-${d.tag.replace(/[^a-z_-]/gi, '')}` }, d.tag) : null,
    ...d.rewards.map(([k, v]) => el('span', { className: 'kv' }, el('b', {}, k), ' ', v)),
    raw,
  );
  if (timeline >= d.timelines.length) timeline = 0;
  d.timelines.forEach((tl, k) => {
    const b = el(
      'button',
      { className: k === timeline ? 'tab active' : 'tab', attrs: { type: 'button', role: 'tab', 'aria-selected': String(k === timeline) } },
      t('timeline {0} ({1} messages)', k, tl.length),
    );
    b.addEventListener('click', () => {
      timeline = k;
      vscode.setState({ timeline, scroll: 0 });
      render(msg);
    });
    tabs.appendChild(b);
  });
  const msgs = d.timelines[timeline] ?? [];
  const results = new Map<string, TrajectoryMessage>();
  for (const m of msgs) if (m.toolCallId) results.set(m.toolCallId, m);
  for (const m of msgs) transcript.appendChild(messageEl(m, results));
  if (msgs.length === 0) transcript.appendChild(el('div', { className: 'empty' }, t('This timeline has no messages.')));
  messages = msgs.length;
  transcript.scrollTop = saved.scroll ?? 0;
  saved.scroll = 0;
  vscode.postMessage({ type: 'report', messages, timelines: d.timelines.length });
}

window.addEventListener('message', (e: MessageEvent<TrajectoryHostToView>) => {
  if (e.data.type === 'trajectory') render(e.data);
});
vscode.postMessage({ type: 'ready' });
