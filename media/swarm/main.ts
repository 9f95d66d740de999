// Swarm overwatch: what `ajet-swarm overwatch` shows for one server, and more (reward curve across
// global steps, episodes by client, the verbose log, the latest LLM call). Everything the server
// sends is inserted as text; the page names no server or path back to the extension.
import { append, clear, el } from '../shared/dom';
import { t } from '../shared/l10n';
import type { HostToOverwatch, LlmCallApi, OverwatchData, OverwatchState, OverwatchToHost } from '../../core/protocol/swarm';

interface VsCodeApi {
  postMessage(msg: OverwatchToHost): void;
  getState(): OverwatchState | undefined;
  setState(state: OverwatchState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;
const SVG = 'http://www.w3.org/2000/svg';

function short(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

function button(label: string, msg: OverwatchToHost, disabled = false): HTMLButtonElement {
  const b = el('button', {}, label);
  b.disabled = disabled;
  b.addEventListener('click', () => vscode.postMessage(msg));
  return b;
}

/** The endpoint the latest call came through (AgentJet after 0.0.4 also serves Responses and Messages). */
function apiLabel(api: LlmCallApi): string {
  if (api === 'responses') return t('Through the OpenAI Responses API (POST /v1/responses)');
  if (api === 'messages') return t('Through the Anthropic Messages API (POST /v1/messages)');
  if (api === 'chat') return t('Through the OpenAI Chat Completions API (POST /v1/chat/completions)');
  return t('Through an API this extension does not know');
}

function section(title: string, ...body: (Node | string)[]): HTMLElement {
  return el('div', { className: 'sw-section' }, el('h3', {}, title), ...body);
}

/** A table; rows flagged in `mine` belong to the client launched from the editor (marked, with a word saying so). */
function table(headers: string[], rows: (string | number)[][], mine: (boolean | undefined)[] = []): HTMLElement {
  if (!rows.length) return el('div', { className: 'sw-muted' }, t('None'));
  const tb = el('tbody');
  rows.forEach((r, i) => {
    const cells = r.map((c) => el('td', {}, String(c)));
    if (mine[i] && cells[0]) cells[0].appendChild(el('span', { className: 'sw-badge' }, t('editor')));
    tb.appendChild(el('tr', mine[i] ? { className: 'sw-mine', attrs: { 'aria-label': t('launched from the editor') } } : {}, ...cells));
  });
  return el('table', { className: 'sw-table' }, el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', {}, h)))), tb);
}

function curve(points: OverwatchData['rewards']): Node {
  if (!points.length) return el('div', { className: 'sw-muted' }, t('No rewards yet: a point appears once a batch has rewarded episodes.'));
  const W = 600;
  const H = 150;
  const pad = 28;
  const xs = points.map((p) => p.step);
  const ys = points.map((p) => p.mean);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const px = (x: number) => pad + (x1 === x0 ? (W - 2 * pad) / 2 : ((x - x0) / (x1 - x0)) * (W - 2 * pad));
  const py = (y: number) => H - pad + 10 - ((y - y0) / (y1 - y0)) * (H - pad - 10);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'sw-curve');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('Mean reward per global step'));
  const mk = (tag: string, attrs: Record<string, string>, text?: string) => {
    const n = document.createElementNS(SVG, tag);
    for (const [k, val] of Object.entries(attrs)) n.setAttribute(k, val);
    if (text !== undefined) n.textContent = text;
    svg.appendChild(n);
    return n;
  };
  mk('line', { class: 'axis', x1: String(pad), y1: String(H - pad + 10), x2: String(W - pad), y2: String(H - pad + 10) });
  mk('polyline', { class: 'line', points: points.map((p) => `${px(p.step)},${py(p.mean)}`).join(' ') });
  for (const p of points) {
    const c = mk('circle', { class: 'dot', cx: String(px(p.step)), cy: String(py(p.mean)), r: '3' });
    const title = document.createElementNS(SVG, 'title');
    title.textContent = t('step {0}: mean reward {1} over {2} episodes', p.step, p.mean.toFixed(3), p.episodes);
    c.appendChild(title);
  }
  mk('text', { x: String(pad), y: String(H - 2) }, String(x0));
  mk('text', { x: String(W - pad), y: String(H - 2), 'text-anchor': 'end' }, String(x1));
  mk('text', { x: '2', y: '12' }, y1.toFixed(2));
  mk('text', { x: '2', y: String(H - pad + 10) }, y0.toFixed(2));
  return svg;
}

function render(d: OverwatchData): void {
  vscode.setState({ url: d.url });
  clear(root);
  const header = el(
    'div',
    { className: 'sw-header' },
    el('div', {}, el('strong', {}, t('Swarm server')), ' ', d.url),
    d.reachability === 'error'
      ? el('div', { className: 'error', attrs: { role: 'alert' } }, t('Cannot connect: {0}', d.error ?? ''))
      : el(
          'div',
          {},
          el('span', { className: 'state' }, d.engineState ?? t('(waiting for the first answer)')),
          d.detail ? ` (${d.detail})` : '',
          d.stateFor ? `  ${d.stateFor}` : '',
          d.globalStep !== undefined ? `  |  ${t('global step {0}', d.globalStep)}` : '',
        ),
    d.model ? el('div', {}, t('Training model: {0}', d.model)) : null,
    d.experimentDir ? el('div', {}, t('Experiment folder: {0}', d.experimentDir)) : null,
    el(
      'div',
      {},
      t('Active clients: {0}', d.activeClients.length),
      d.activeClients.length
        ? `  [${d.activeClients.map((c) => short(c.id) + (c.agreed ? '✓' : '') + (c.mine ? ` (${t('editor')})` : '')).join(', ')}]`
        : '',
    ),
    ...d.editorClients.map((e) =>
      el(
        'div',
        { className: 'sw-editor-client' },
        e.clients.length
          ? t(
              'Launched from the editor: {0}, client {1}; {2} running episodes, marked below.',
              e.session,
              e.clients.map(short).join(', '),
              e.runningEpisodes,
            )
          : t('Launched from the editor: {0}; its client id shows once its SwarmClient starts or claims an episode.', e.session),
      ),
    ),
    d.logs.length
      ? el(
          'div',
          { className: 'sw-muted' },
          `${d.logs[d.logs.length - 1]!.tag ? `<${d.logs[d.logs.length - 1]!.tag}> ` : ''}${d.logs[d.logs.length - 1]!.message}`,
        )
      : null,
  );
  const actions = el(
    'div',
    { className: 'sw-actions' },
    button(t('Refresh'), { type: 'refresh' }),
    button(t('Stop engine…'), { type: 'stopEngine' }, d.reachability !== 'ok' || d.engineState === 'ENGINE.OFFLINE'),
    button(t('Open experiment folder'), { type: 'openExperiment' }, !d.experimentDir),
    button(t('Copy URL'), { type: 'copyUrl' }),
  );
  const prog = el('div', { className: 'sw-progress' });
  for (const p of d.progress) {
    const pct = p.target > 0 ? Math.min(100, Math.round((p.current / p.target) * 100)) : 0;
    const fill = el('div');
    fill.style.width = `${pct}%`;
    append(
      prog,
      el('div', {}, p.label),
      el('div', {}, `${p.current} / ${p.target}`),
      el(
        'div',
        { className: 'sw-bar', attrs: { role: 'progressbar', 'aria-valuenow': String(pct), 'aria-valuemin': '0', 'aria-valuemax': '100' } },
        fill,
      ),
    );
  }
  append(
    root,
    header,
    actions,
    section(t('Progress to the next weight update ({0})', d.method || '-'), prog),
    section(t('Reward per global step'), curve(d.rewards)),
    section(
      t('Tasks in this batch'),
      table(
        [t('Task'), t('Episodes'), t('Reward (mean ± std)'), t('Clients')],
        d.tasks.map((r) => [
          r.taskId,
          r.episodes,
          r.mean === undefined ? '-' : `${r.mean.toFixed(3)} ± ${(r.std ?? 0).toFixed(3)}`,
          r.clients.map(short).join(', '),
        ]),
        d.tasks.map((r) => r.mine),
      ),
    ),
    section(
      t('Episodes by client'),
      table(
        [t('Client'), t('Running'), t('Completed'), t('Tasks'), t('LLM calls (running)'), t('Mean reward'), t('Last reward'), t('Status')],
        d.byClient.map((c) => [
          c.client,
          c.running,
          c.completed ?? t('not reported'),
          c.tasks,
          c.llmCalls,
          c.mean === undefined ? '-' : t('{0} over {1}', c.mean.toFixed(3), c.rewarded),
          c.lastReward === undefined ? '-' : c.lastReward.toFixed(3),
          c.agreed ? t('active, agreed to sync') : c.active ? t('active') : '-',
        ]),
        d.byClient.map((c) => c.mine),
      ),
    ),
    section(
      t('Running episodes'),
      table(
        [t('Episode'), t('Client'), t('Task'), t('LLM calls'), t('Last request / patience')],
        d.running.map((r) => [short(r.episode), short(r.client), r.taskId ?? '-', r.llmCalls, `${r.sinceActivity} / ${r.timeout}`]),
        d.running.map((r) => r.mine),
      ),
    ),
    section(
      t('Verbose log (last 30 s)'),
      table(
        [t('Time'), t('Tag'), t('Message')],
        d.logs.map((l) => [l.time, l.tag, l.message]),
      ),
    ),
    section(
      t('Latest LLM call'),
      d.llmCall
        ? el(
            'div',
            {},
            el('div', { className: 'sw-muted' }, apiLabel(d.llmCall.api)),
            el('div', { className: 'sw-muted' }, t('Input')),
            el('pre', { className: 'sw-pre' }, d.llmCall.input),
            el('div', { className: 'sw-muted' }, t('Output')),
            el('pre', { className: 'sw-pre' }, d.llmCall.output),
          )
        : el('div', { className: 'sw-muted' }, t('No LLM call yet.')),
    ),
  );
}

window.addEventListener('message', (e: MessageEvent<HostToOverwatch>) => {
  const m = e.data;
  if (m && typeof m === 'object' && m.type === 'data' && m.data && typeof m.data === 'object') render(m.data);
});
vscode.postMessage({ type: 'ready' });
