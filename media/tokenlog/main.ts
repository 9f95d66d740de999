// Token log viewer webview: a virtualised record list and a virtualised token timeline. All log
// text reaches the DOM through textContent (the el() helper), never as markup.
import { append, clear, el } from '../shared/dom';
import type { Filter, GroupMember, HostToView, RecordData, Row, SortKey, TimelineData, ViewCommand, ViewReport, ViewState, ViewToHost } from '../../core/protocol/tokenlog';

interface VsCodeApi { postMessage(m: ViewToHost): void; getState(): unknown; setState(s: ViewState): void }
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

const DEFAULT_STATE: ViewState = { filter: {}, sort: { key: 'index' }, timeline: 0, listScroll: 0, tokenScroll: 0, mode: 'mask', whitespace: false, follow: false, threshold: -2, group: false };
const saved = vscode.getState() as Partial<ViewState> | undefined;
const state: ViewState = { ...DEFAULT_STATE, ...(saved ?? {}) };
let restoreListScroll = saved?.listScroll ?? 0;
let restoreTokenScroll = saved?.tokenScroll ?? 0;

function post(m: ViewToHost): void {
  vscode.postMessage(m);
}

let saveTimer: ReturnType<typeof setTimeout> | undefined;
function saveState(): void {
  if (saveTimer) return;
  saveTimer = setTimeout(() => { saveTimer = undefined; vscode.setState(state); }, 200);
}

// ---------------------------------------------------------------- layout

const root = document.getElementById('root')!;
const titleEl = el('span', { className: 'title' });
const statusEl = el('span', { className: 'status', attrs: { role: 'status', 'aria-live': 'polite' } });
const progressBar = el('progress', { attrs: { max: '1', value: '0', 'aria-label': 'indexing progress' } });
const progressLabel = el('span', { className: 'progress-label' });
const cancelBtn = el('button', { attrs: { type: 'button' } }, 'Cancel');
const resumeBtn = el('button', { attrs: { type: 'button' } }, 'Resume indexing');
const progressBox = el('span', { className: 'progress hidden' }, progressBar, progressLabel, cancelBtn);
const followBox = el('input', { attrs: { type: 'checkbox', id: 'follow' } });
const rawBtn = el('button', { attrs: { type: 'button', title: 'Open the file in the text editor' } }, 'Open as text');
const problemsEl = el('div', { className: 'problems hidden', attrs: { role: 'note' } });
const header = el('header', { className: 'bar' }, titleEl, statusEl, progressBox, resumeBtn,
  el('label', { className: 'follow', attrs: { for: 'follow', title: 'Keep showing the newest record while the file grows' } }, followBox, ' Follow'), rawBtn);
resumeBtn.classList.add('hidden');

function numInput(id: string, label: string, step = 'any'): HTMLInputElement {
  return el('input', { attrs: { type: 'number', id, step, 'aria-label': label, placeholder: label.split(' ').pop() ?? '' } });
}
const stepMin = numInput('stepMin', 'step from', '1');
const stepMax = numInput('stepMax', 'step to', '1');
const rewardMin = numInput('rewardMin', 'reward min');
const rewardMax = numInput('rewardMax', 'reward max');
const outcomeSel = el('select', { attrs: { 'aria-label': 'outcome' } }, el('option', { attrs: { value: '' } }, 'any outcome'));
const searchInput = el('input', { attrs: { type: 'search', placeholder: 'Search token text…', 'aria-label': 'search token text' } });
const sortSel = el('select', { attrs: { 'aria-label': 'sort by' } },
  ...(['index', 'step', 'reward', 'task', 'time', 'tokens'] as SortKey[]).map((k) => el('option', { attrs: { value: k } }, k === 'index' ? 'file order' : k)));
const sortDir = el('button', { attrs: { type: 'button', 'aria-label': 'sort direction' } }, '↑');
const clearBtn = el('button', { attrs: { type: 'button' } }, 'Clear');
const filters = el('form', { className: 'filters', attrs: { role: 'search' } },
  el('span', { className: 'group-label' }, 'Step'), stepMin, el('span', {}, '–'), stepMax,
  el('span', { className: 'group-label' }, 'Reward'), rewardMin, el('span', {}, '–'), rewardMax,
  outcomeSel, searchInput, el('span', { className: 'group-label' }, 'Sort'), sortSel, sortDir, clearBtn);

const COLS = ['#', 'step', 'task', 'reward', 'outcome', 'tl', 'tokens'];
const listHead = el('div', { className: 'row head', attrs: { role: 'presentation' } }, ...COLS.map((c) => el('span', {}, c)));
const listSpacer = el('div', { className: 'spacer' });
const listRows = el('div', { className: 'rows' });
const listViewport = el('div', { className: 'viewport', attrs: { role: 'listbox', tabindex: '0', 'aria-label': 'records' } }, listSpacer, listRows);
const listEmpty = el('div', { className: 'empty hidden' });
const listPane = el('section', { className: 'list' }, listHead, listViewport, listEmpty);

const recordHead = el('div', { className: 'record-head' });
const timelineTabs = el('div', { className: 'tabs', attrs: { role: 'tablist', 'aria-label': 'timelines' } });
const modeSel = el('select', { attrs: { 'aria-label': 'colour mode' } },
  el('option', { attrs: { value: 'mask' } }, 'Loss mask'), el('option', { attrs: { value: 'heat' } }, 'Logprob heat map'), el('option', { attrs: { value: 'plain' } }, 'Plain text'));
const wsBox = el('input', { attrs: { type: 'checkbox', id: 'ws' } });
const thresholdInput = el('input', { attrs: { type: 'number', step: '0.5', 'aria-label': 'logprob threshold', title: 'l / L jump to the next / previous token with a logprob below this' } });
const groupBox = el('input', { attrs: { type: 'checkbox', id: 'grp' } });
const copyText = el('button', { attrs: { type: 'button' } }, 'Copy text');
const copyJson = el('button', { attrs: { type: 'button' } }, 'Copy JSON');
const legend = el('span', { className: 'legend', attrs: { 'aria-label': 'legend' } });
const tools = el('div', { className: 'tools' }, modeSel,
  el('label', { attrs: { for: 'ws' } }, wsBox, ' whitespace'),
  el('label', {}, 'low logprob < ', thresholdInput),
  el('label', { attrs: { for: 'grp' }, title: 'All timelines of this task side by side' }, groupBox, ' group'),
  copyText, copyJson, legend);
const tokenSpacerTop = el('div', { className: 'tspacer' });
const tokenBlocks = el('div', { className: 'blocks' });
const tokenSpacerBottom = el('div', { className: 'tspacer' });
const tokenViewport = el('div', { className: 'tokens', attrs: { tabindex: '0', role: 'document', 'aria-label': 'timeline tokens. n / N next or previous trained segment, l / L low-logprob token, arrows move, [ and ] change record' } }, tokenSpacerTop, tokenBlocks, tokenSpacerBottom);
const tokenInfo = el('div', { className: 'token-info', attrs: { 'aria-live': 'polite' } });
const hoverCard = el('div', { className: 'hovercard hidden', attrs: { role: 'tooltip' } });
const groupPane = el('div', { className: 'group hidden' });
const otherPane = el('div', { className: 'other hidden' });
const detailEmpty = el('div', { className: 'empty' }, 'Select a record. Keys: ↑/↓ records, Enter open, n/N trained segments, l/L low-logprob tokens, [ ] previous/next record.');
const timelinePane = el('div', { className: 'timeline hidden' }, timelineTabs, tools, tokenViewport, tokenInfo);
const detail = el('section', { className: 'detail' }, recordHead, detailEmpty, timelinePane, groupPane, otherPane);
append(root, header, problemsEl, filters, el('main', { className: 'split' }, listPane, detail), hoverCard);

// ---------------------------------------------------------------- list

const ROW_H = 24;
let records = 0;
let listVersion = -1;
let listTotal = 0;
let searching = false;
const rowCache = new Map<number, Row>();
let pendingRows = '';
let selectedPos = -1;
let indexing = false;

function fmt(n: number | undefined, digits = 3): string {
  return n === undefined ? '' : Number.isInteger(n) ? String(n) : n.toFixed(digits);
}

function rowEl(pos: number, r: Row | undefined): HTMLElement {
  const sel = r !== undefined && r.index === state.selected;
  const cells = r
    ? [String(r.index), fmt(r.step), r.taskId ?? r.title ?? '', fmt(r.reward), r.outcome ?? '', r.timelines === undefined ? '' : String(r.timelines),
      r.tokens === undefined ? '' : `${r.tokens}${r.trained !== undefined ? ` (${r.trained})` : ''}`]
    : ['…', '', '', '', '', '', ''];
  const row = el('div', { className: `row${sel ? ' selected' : ''}${r?.error ? ' bad' : ''}${r?.partial ? ' partial' : ''}`, attrs: { role: 'option', 'aria-selected': String(sel), id: `row-${pos}` }, dataset: { pos: String(pos) } },
    ...cells.map((c) => el('span', {}, c)));
  row.style.top = `${pos * ROW_H}px`;
  if (r?.error) row.title = r.error;
  else if (r?.title) row.title = r.title;
  return row;
}

function renderList(): void {
  listSpacer.style.height = `${listTotal * ROW_H}px`;
  const top = listViewport.scrollTop;
  const h = listViewport.clientHeight || 400;
  const first = Math.max(0, Math.floor(top / ROW_H) - 5);
  const last = Math.min(listTotal, Math.ceil((top + h) / ROW_H) + 5);
  clear(listRows);
  let missing = false;
  for (let p = first; p < last; p++) {
    const r = rowCache.get(p);
    if (!r) missing = true;
    listRows.appendChild(rowEl(p, r));
  }
  if (selectedPos >= first && selectedPos < last) listViewport.setAttribute('aria-activedescendant', `row-${selectedPos}`);
  if (missing) {
    const key = `${listVersion}:${first}:${last}`;
    if (pendingRows !== key) {
      pendingRows = key;
      post({ type: 'rows', version: listVersion, offset: Math.max(0, first - 20), count: last - first + 40 });
    }
  }
  listEmpty.classList.toggle('hidden', listTotal > 0);
  listEmpty.textContent = searching ? 'Searching…' : records === 0 ? (indexing ? 'Indexing…' : 'No records in this file.') : 'No record matches the filters.';
  scheduleReport();
}

listViewport.addEventListener('scroll', () => { state.listScroll = listViewport.scrollTop; saveState(); renderList(); });
listRows.addEventListener('click', (e) => {
  const row = (e.target as HTMLElement).closest<HTMLElement>('.row');
  if (!row) return;
  selectPos(Number(row.dataset.pos));
});

function selectPos(pos: number): void {
  if (pos < 0 || pos >= listTotal) return;
  selectedPos = pos;
  const r = rowCache.get(pos);
  // Keep the selection in view.
  const top = pos * ROW_H;
  if (top < listViewport.scrollTop) listViewport.scrollTop = top;
  else if (top + ROW_H > listViewport.scrollTop + listViewport.clientHeight) listViewport.scrollTop = top + ROW_H - listViewport.clientHeight;
  if (r) { jumpTo = r.hit?.token !== undefined ? { timeline: r.hit.timeline ?? 0, token: r.hit.token } : undefined; openRecord(r.index, jumpTo?.timeline); }
  else { pendingOpenPos = pos; renderList(); }
}
let pendingOpenPos = -1;
/** From a search result: the first match, shown once the record arrives. */
let jumpTo: { timeline: number; token: number } | undefined;

listViewport.addEventListener('keydown', (e) => {
  const page = Math.max(1, Math.floor(listViewport.clientHeight / ROW_H) - 1);
  const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, j: 1, k: -1, PageDown: page, PageUp: -page };
  if (e.key in moves) { e.preventDefault(); selectPos(Math.min(listTotal - 1, Math.max(0, (selectedPos < 0 ? -1 : selectedPos) + moves[e.key]!))); }
  else if (e.key === 'Home') { e.preventDefault(); selectPos(0); }
  else if (e.key === 'End') { e.preventDefault(); selectPos(listTotal - 1); }
  else if (e.key === 'Enter') { e.preventDefault(); tokenViewport.focus(); }
});

// ---------------------------------------------------------------- filters

function readFilter(): Filter {
  const n = (i: HTMLInputElement) => (i.value.trim() === '' || !Number.isFinite(Number(i.value)) ? undefined : Number(i.value));
  const f: Filter = { stepMin: n(stepMin), stepMax: n(stepMax), rewardMin: n(rewardMin), rewardMax: n(rewardMax) };
  if (outcomeSel.value) f.outcome = outcomeSel.value;
  if (searchInput.value.trim()) f.text = searchInput.value.trim();
  return f;
}

function writeFilter(f: Filter): void {
  const s = (v: number | undefined) => (v === undefined ? '' : String(v));
  stepMin.value = s(f.stepMin); stepMax.value = s(f.stepMax); rewardMin.value = s(f.rewardMin); rewardMax.value = s(f.rewardMax);
  ensureOutcomeOption(f.outcome ?? '');
  outcomeSel.value = f.outcome ?? '';
  searchInput.value = f.text ?? '';
}

function ensureOutcomeOption(o: string): void {
  if (!o || [...outcomeSel.options].some((x) => x.value === o)) return;
  outcomeSel.appendChild(el('option', { attrs: { value: o } }, `outcome ${o}`));
}

/** True from a filter change until its list arrives: the list is aria-busy meanwhile. */
let awaitingQuery = false;
function setBusy(): void {
  listViewport.setAttribute('aria-busy', String(awaitingQuery || searching));
}

function sendQuery(): void {
  awaitingQuery = true;
  setBusy();
  state.filter = readFilter();
  state.sort = { key: sortSel.value as SortKey, desc: sortDir.textContent === '↓' };
  saveState();
  post({ type: 'query', filter: state.filter, sort: state.sort });
}

let queryTimer: ReturnType<typeof setTimeout> | undefined;
function queryLater(): void {
  awaitingQuery = true;
  setBusy();
  if (queryTimer) clearTimeout(queryTimer);
  queryTimer = setTimeout(() => { queryTimer = undefined; sendQuery(); }, 250);
}
for (const i of [stepMin, stepMax, rewardMin, rewardMax]) i.addEventListener('input', queryLater);
searchInput.addEventListener('input', queryLater);
outcomeSel.addEventListener('change', sendQuery);
sortSel.addEventListener('change', sendQuery);
sortDir.addEventListener('click', () => { sortDir.textContent = sortDir.textContent === '↑' ? '↓' : '↑'; sendQuery(); });
clearBtn.addEventListener('click', () => { writeFilter({}); sendQuery(); });
filters.addEventListener('submit', (e) => { e.preventDefault(); sendQuery(); });
listHead.addEventListener('click', (e) => {
  const i = [...listHead.children].indexOf(e.target as Element);
  const key = (['index', 'step', 'task', 'reward', '', '', 'tokens'] as const)[i];
  if (!key) return;
  if (sortSel.value === key) sortDir.textContent = sortDir.textContent === '↑' ? '↓' : '↑';
  sortSel.value = key;
  sendQuery();
});

// ---------------------------------------------------------------- record / timeline

let current: { index: number; record: RecordData } | undefined;
let currentError: string | undefined;
let blocks: { start: number; end: number; boundary: boolean }[] = [];
let heights: number[] = [];
let prefix: number[] = [0];
let cursor = -1;
let hoverText = '';
let groupMembers: GroupMember[] = [];

function openRecord(index: number, timeline?: number): void {
  if (state.selected !== index) { state.timeline = timeline ?? 0; restoreTokenScroll = 0; }
  else if (timeline !== undefined) state.timeline = timeline;
  state.selected = index;
  saveState();
  post({ type: 'open', index });
  post({ type: 'locate', index });
  renderList();
}

function tl(): TimelineData | undefined {
  return current?.record.timelines[state.timeline];
}

const SPECIAL_RE = /^(<\|[^|]{0,64}\|>|<\/?(think|tool_call|tool_response|answer|im_start|im_end)>)$/;
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

function shown(text: string): { s: string; cls: string } {
  let cls = '';
  let s = text;
  if (s === '') return { s: '∅', cls: ' empty-tok' };
  if (SPECIAL_RE.test(s)) cls += ' special';
  if (CONTROL_RE.test(s)) {
    cls += ' ctl';
    s = s.replace(CONTROL_RE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
  }
  CONTROL_RE.lastIndex = 0;
  if (state.whitespace) s = s.replace(/ /g, '·').replace(/\t/g, '→\t');
  if (s.includes('\n')) { s = s.replace(/\r?\n/g, '↵\n'); cls += ' nl'; }
  if (s.length > 2000) s = `${s.slice(0, 2000)}… (${text.length} chars)`;
  return { s, cls };
}

function heatClass(lp: number | null): string {
  if (lp === null) return 'hn';
  const p = Math.exp(lp);
  return `h${Math.min(9, Math.floor(p * 10))}`;
}

function tokenClass(t: TimelineData, i: number): string {
  if (state.mode === 'plain') return 'tok';
  if (state.mode === 'heat') return `tok ${heatClass(t.logprobs[i] ?? null)}`;
  const m = t.mask[i];
  return `tok ${m === 1 ? 'm1' : m === 0 ? 'm0' : 'mu'}`;
}

function buildBlocks(t: TimelineData): void {
  blocks = [];
  const n = t.text.length;
  const boundary = t.lenPrompt !== undefined && t.lenPrompt > 0 && t.lenPrompt < n ? t.lenPrompt : -1;
  let start = 0;
  for (let i = 0; i < n; i++) {
    if (i === boundary && i > start) { blocks.push({ start, end: i, boundary: false }); start = i; }
    if (i === boundary) blocks.push({ start: i, end: i, boundary: true });
    const endsLine = t.text[i]!.includes('\n');
    if (endsLine || i + 1 - start >= 256) { blocks.push({ start, end: i + 1, boundary: false }); start = i + 1; }
  }
  if (start < n) blocks.push({ start, end: n, boundary: false });
  const charsPerLine = Math.max(20, Math.floor((tokenViewport.clientWidth || 800) / 8));
  heights = blocks.map((b) => {
    if (b.boundary) return 26;
    let chars = 0;
    for (let i = b.start; i < b.end; i++) chars += Math.min(t.text[i]!.length, 2000) + 1;
    return 20 * Math.max(1, Math.ceil(chars / charsPerLine));
  });
  recomputePrefix();
}

function recomputePrefix(): void {
  prefix = new Array<number>(heights.length + 1);
  prefix[0] = 0;
  for (let i = 0; i < heights.length; i++) prefix[i + 1] = prefix[i]! + heights[i]!;
}

function blockAt(y: number): number {
  let lo = 0, hi = blocks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (prefix[mid]! <= y) lo = mid; else hi = mid - 1;
  }
  return lo;
}

function blockOfToken(i: number): number {
  let lo = 0, hi = blocks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (blocks[mid]!.start <= i) lo = mid; else hi = mid - 1;
  }
  // A boundary marker block has no tokens; the token is in the block after it.
  while (lo < blocks.length - 1 && blocks[lo]!.boundary) lo++;
  return lo;
}

function renderTokens(): void {
  const t = tl();
  clear(tokenBlocks);
  if (!t || blocks.length === 0) { tokenSpacerTop.style.height = '0px'; tokenSpacerBottom.style.height = '0px'; scheduleReport(); return; }
  const top = tokenViewport.scrollTop;
  const h = tokenViewport.clientHeight || 600;
  const first = blockAt(Math.max(0, top - 400));
  let last = first;
  while (last < blocks.length && prefix[last]! < top + h + 400) last++;
  tokenSpacerTop.style.height = `${prefix[first]}px`;
  const frag = document.createDocumentFragment();
  const rendered: HTMLElement[] = [];
  for (let b = first; b < last; b++) {
    const blk = blocks[b]!;
    if (blk.boundary) {
      const d = el('div', { className: 'boundary', attrs: { role: 'separator' } }, `response starts (token ${blk.start}; prompt ${t.lenPrompt} tokens)`);
      frag.appendChild(d); rendered.push(d); continue;
    }
    const d = el('div', { className: 'block' });
    for (let i = blk.start; i < blk.end; i++) {
      const { s, cls } = shown(t.text[i]!);
      const span = el('span', { className: tokenClass(t, i) + cls + (i === cursor ? ' cursor' : '') }, s);
      span.dataset.i = String(i);
      d.appendChild(span);
    }
    frag.appendChild(d); rendered.push(d);
  }
  tokenBlocks.appendChild(frag);
  // Replace estimates with measured heights of what was rendered.
  let changed = false;
  rendered.forEach((d, k) => {
    const hh = d.offsetHeight;
    if (hh > 0 && Math.abs(hh - heights[first + k]!) > 1) { heights[first + k] = hh; changed = true; }
  });
  if (changed) recomputePrefix();
  tokenSpacerTop.style.height = `${prefix[first]}px`;
  tokenSpacerBottom.style.height = `${prefix[blocks.length]! - prefix[last]!}px`;
  scheduleReport();
}

let tokenRaf = 0;
tokenViewport.addEventListener('scroll', () => {
  state.tokenScroll = tokenViewport.scrollTop;
  saveState();
  hideHover();
  if (!tokenRaf) tokenRaf = requestAnimationFrame(() => { tokenRaf = 0; renderTokens(); });
});

function describe(t: TimelineData, i: number): string {
  const lp = t.logprobs[i] ?? null;
  const m = t.mask[i];
  const where = t.lenPrompt !== undefined ? (i < t.lenPrompt ? 'prompt' : 'response') : '';
  return [
    `token ${i + 1} of ${t.text.length}${where ? ` (${where})` : ''}`,
    `id ${t.ids[i] ?? 'n/a'}`,
    lp === null ? 'logprob n/a' : `logprob ${lp.toFixed(4)}, p ${Math.exp(lp).toFixed(4)}`,
    `mask ${m === 1 ? '1 (trained)' : m === 0 ? '0 (context)' : 'unknown colour'}`,
    `text ${JSON.stringify((t.text[i] ?? '').slice(0, 300))}${(t.text[i] ?? '').length > 300 ? ` … (${t.text[i]!.length} chars)` : ''}`,
  ].join(' · ');
}

function showHover(span: HTMLElement): void {
  const t = tl();
  if (!t) return;
  const i = Number(span.dataset.i);
  hoverText = describe(t, i);
  clear(hoverCard);
  for (const line of hoverText.split(' · ')) hoverCard.appendChild(el('div', {}, line));
  hoverCard.classList.remove('hidden');
  const r = span.getBoundingClientRect();
  const top = r.bottom + 4 + hoverCard.offsetHeight > window.innerHeight ? r.top - hoverCard.offsetHeight - 4 : r.bottom + 4;
  hoverCard.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - hoverCard.offsetWidth - 4))}px`;
  hoverCard.style.top = `${Math.max(4, top)}px`;
  scheduleReport();
}

function hideHover(): void {
  hoverCard.classList.add('hidden');
}

tokenBlocks.addEventListener('mouseover', (e) => {
  const span = (e.target as HTMLElement).closest<HTMLElement>('span[data-i]');
  if (span) showHover(span);
});
tokenBlocks.addEventListener('mouseleave', hideHover);
tokenBlocks.addEventListener('click', (e) => {
  const span = (e.target as HTMLElement).closest<HTMLElement>('span[data-i]');
  if (span) setCursor(Number(span.dataset.i), false);
});

function setCursor(i: number, scroll = true): void {
  const t = tl();
  if (!t || t.text.length === 0) return;
  cursor = Math.max(0, Math.min(t.text.length - 1, i));
  tokenInfo.textContent = describe(t, cursor);
  if (scroll) scrollToToken(cursor);
  else renderTokens();
}

function scrollToToken(i: number): void {
  const b = blockOfToken(i);
  const y = prefix[b]!;
  const h = tokenViewport.clientHeight || 600;
  if (y < tokenViewport.scrollTop || y + heights[b]! > tokenViewport.scrollTop + h) tokenViewport.scrollTop = Math.max(0, y - h / 3);
  renderTokens();
  const span = tokenBlocks.querySelector<HTMLElement>(`span[data-i="${i}"]`);
  span?.scrollIntoView({ block: 'nearest' });
}

function nextTrained(dir: 1 | -1): void {
  const t = tl();
  if (!t) return;
  let i = cursor < 0 ? (dir > 0 ? -1 : t.text.length) : cursor;
  // Leave the current trained run first, then find the start of the next one.
  if (dir > 0) {
    while (i + 1 < t.text.length && i >= 0 && t.mask[i] === 1) i++;
    for (i = i + 1; i < t.text.length; i++) if (t.mask[i] === 1 && (i === 0 || t.mask[i - 1] !== 1)) { setCursor(i); return; }
  } else {
    for (i = i - 1; i >= 0; i--) if (t.mask[i] === 1 && (i === 0 || t.mask[i - 1] !== 1)) { setCursor(i); return; }
  }
  tokenInfo.textContent = 'No further trained segment.';
}

function nextLow(dir: 1 | -1): void {
  const t = tl();
  if (!t) return;
  const th = state.threshold;
  for (let i = (cursor < 0 ? (dir > 0 ? -1 : t.text.length) : cursor) + dir; i >= 0 && i < t.text.length; i += dir) {
    const lp = t.logprobs[i];
    if (lp !== null && lp !== undefined && lp < th) { setCursor(i); return; }
  }
  tokenInfo.textContent = `No further token with logprob below ${th}.`;
}

function moveRecord(d: 1 | -1): void {
  const pos = selectedPos >= 0 ? selectedPos + d : 0;
  if (pos >= 0 && pos < listTotal) selectPos(pos);
}

function onTokenKey(key: string, shift: boolean): boolean {
  const t = tl();
  switch (key) {
    case 'n': nextTrained(1); return true;
    case 'N': nextTrained(-1); return true;
    case 'p': nextTrained(-1); return true;
    case 'l': nextLow(1); return true;
    case 'L': nextLow(-1); return true;
    case ']': moveRecord(1); return true;
    case '[': moveRecord(-1); return true;
    case 'ArrowRight': setCursor(cursor + (shift ? 10 : 1)); return true;
    case 'ArrowLeft': setCursor(cursor - (shift ? 10 : 1)); return true;
    case 'Home': setCursor(0); return true;
    case 'End': if (t) setCursor(t.text.length - 1); return true;
    case 'Escape': hideHover(); return true;
    default: return false;
  }
}

tokenViewport.addEventListener('keydown', (e) => {
  if (onTokenKey(e.key, e.shiftKey)) e.preventDefault();
});
document.addEventListener('keydown', (e) => {
  const target = e.target as HTMLElement;
  if (target.closest('input, select, textarea, .tokens, .viewport')) return;
  if ((e.key === '[' || e.key === ']') && onTokenKey(e.key, false)) e.preventDefault();
});

function renderLegend(): void {
  clear(legend);
  if (state.mode === 'mask') {
    append(legend, el('span', { className: 'tok m1' }, 'trained (loss mask 1)'), el('span', { className: 'tok m0' }, 'context (not trained)'), el('span', { className: 'tok mu' }, 'unknown'));
  } else if (state.mode === 'heat') {
    append(legend, el('span', {}, 'p = e^logprob: '), el('span', { className: 'tok h0' }, '< 0.1'), el('span', { className: 'tok h5' }, '0.5'), el('span', { className: 'tok h9' }, '> 0.9'), el('span', { className: 'tok hn' }, 'no logprob'));
  }
}

function renderRecordHead(index: number, r: RecordData | undefined, row: Row, error?: string): void {
  clear(recordHead);
  const kv = (k: string, v: string | number | undefined) => (v === undefined || v === '' ? null : el('span', { className: 'kv' }, el('b', {}, k), ' ', String(v)));
  append(recordHead,
    el('h2', {}, `Record ${index}`, r?.title ? ` · ${r.title}` : ''),
    el('div', { className: 'meta' }, kv('time', r?.time), kv('level', r?.level), kv('source', r?.source), kv('step', r?.step ?? row.step), kv('task', r?.taskId ?? row.taskId),
      kv('reward', r?.reward ?? row.reward), kv('outcome', r?.outcome ?? row.outcome), kv('kind', r?.kind)));
  if (error) recordHead.appendChild(el('div', { className: 'error', attrs: { role: 'alert' } }, error));
  for (const w of r?.warnings ?? []) recordHead.appendChild(el('div', { className: 'warning' }, w));
}

function renderTabs(r: RecordData): void {
  clear(timelineTabs);
  r.timelines.forEach((t, k) => {
    const b = el('button', { className: k === state.timeline ? 'tab active' : 'tab', attrs: { type: 'button', role: 'tab', 'aria-selected': String(k === state.timeline) } },
      `#${t.index} ${t.outcome ? `outcome ${t.outcome}` : ''} · reward ${fmt(t.rawReward)} · adv ${fmt(t.advantage)} · ${t.text.length} tok`);
    b.addEventListener('click', () => { state.timeline = k; saveState(); showTimeline(true); });
    timelineTabs.appendChild(b);
  });
}

function showTimeline(resetScroll: boolean): void {
  if (!current) return;
  const r = current.record;
  renderTabs(r);
  renderLegend();
  const t = tl();
  cursor = -1;
  tokenInfo.textContent = t ? `${t.text.length} tokens, prompt ${t.lenPrompt ?? '?'}, response ${t.lenResponse ?? '?'}, reward ${fmt(t.rawReward)}, advantage ${fmt(t.advantage)}${Object.entries(t.fields).map(([k, v]) => `, ${k} ${v}`).join('')}` : '';
  if (t) buildBlocks(t);
  else blocks = [];
  tokenViewport.scrollTop = resetScroll ? 0 : restoreTokenScroll;
  restoreTokenScroll = 0;
  renderTokens();
  if (state.group && current.record.taskId) post({ type: 'group', taskId: current.record.taskId, step: current.record.step });
}

function renderOther(r: RecordData): void {
  clear(otherPane);
  if (r.kind === 'table') {
    const table = el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'key'), el('th', {}, 'value'))));
    const body = el('tbody');
    for (const [k, v] of r.table) body.appendChild(el('tr', {}, el('td', {}, k), el('td', {}, v)));
    table.appendChild(body);
    otherPane.appendChild(table);
  } else {
    if (r.content) otherPane.appendChild(el('pre', { className: 'content' }, r.content));
    if (r.attach) append(otherPane, el('h3', {}, 'attach'), el('pre', { className: 'content' }, r.attach));
    if (!r.content && !r.attach) otherPane.appendChild(el('div', { className: 'empty' }, 'This record has no content.'));
  }
}

function renderGroup(): void {
  clear(groupPane);
  if (!state.group) { groupPane.classList.add('hidden'); return; }
  groupPane.classList.remove('hidden');
  if (groupMembers.length === 0) { groupPane.appendChild(el('div', { className: 'empty' }, 'Loading the group…')); return; }
  const cols = el('div', { className: 'columns' });
  for (const m of groupMembers) {
    const head = el('button', { className: 'col-head', attrs: { type: 'button', title: 'Open this timeline' } },
      el('div', {}, `record ${m.index} · ${m.key}`),
      el('div', {}, `reward ${fmt(m.reward)} · advantage ${fmt(m.advantage)} · outcome ${m.outcome}`),
      el('div', {}, `${m.tokens} tokens, ${m.trained} trained`));
    head.addEventListener('click', () => {
      state.group = false; groupBox.checked = false; renderGroup();
      const k = current?.index === m.index ? current.record.timelines.findIndex((x) => x.key === m.key) : -1;
      if (k >= 0) { state.timeline = k; showTimeline(true); } else openRecordAt(m.index, m.key);
    });
    // Runs of equal mask become one span: a side-by-side preview stays light.
    const body = el('pre', { className: 'col-body' });
    if (m.promptTokens > 0) body.appendChild(el('div', { className: 'prompt-note' }, `(prompt: ${m.promptTokens} tokens, not shown)`));
    let start = 0;
    for (let i = 1; i <= m.text.length; i++) {
      if (i === m.text.length || m.mask[i] !== m.mask[start]) {
        const mk = m.mask[start];
        body.appendChild(el('span', { className: `tok ${mk === 1 ? 'm1' : mk === 0 ? 'm0' : 'mu'}` }, m.text.slice(start, i).join('')));
        start = i;
      }
    }
    if (m.truncated) body.appendChild(el('div', { className: 'warning' }, '… (preview truncated; open the timeline for all tokens)'));
    cols.appendChild(el('div', { className: 'col' }, head, body));
  }
  groupPane.appendChild(cols);
  scheduleReport();
}

let wantKey: string | undefined;
function openRecordAt(index: number, key: string): void {
  wantKey = key;
  openRecord(index);
}

function onRecord(m: Extract<HostToView, { type: 'record' }>): void {
  if (m.index !== state.selected) return;
  detailEmpty.classList.add('hidden');
  hideHover();
  if (!m.ok) {
    current = undefined;
    currentError = m.error;
    blocks = [];
    clear(tokenBlocks);
    renderRecordHead(m.index, undefined, m.row, m.error);
    timelinePane.classList.add('hidden');
    otherPane.classList.add('hidden');
    scheduleReport();
    return;
  }
  currentError = undefined;
  current = { index: m.index, record: m.record };
  if (wantKey) { const k = m.record.timelines.findIndex((t) => t.key === wantKey); if (k >= 0) state.timeline = k; wantKey = undefined; }
  if (state.timeline >= m.record.timelines.length) state.timeline = 0;
  renderRecordHead(m.index, m.record, m.row);
  const tokens = m.record.kind === 'tokens';
  timelinePane.classList.toggle('hidden', !tokens);
  otherPane.classList.toggle('hidden', tokens);
  if (tokens) {
    showTimeline(false);
    if (jumpTo && jumpTo.timeline === state.timeline) setCursor(jumpTo.token);
    jumpTo = undefined;
  }
  else { renderOther(m.record); groupMembers = []; renderGroup(); }
  scheduleReport();
}

modeSel.addEventListener('change', () => { state.mode = modeSel.value as ViewState['mode']; saveState(); renderLegend(); renderTokens(); });
wsBox.addEventListener('change', () => { state.whitespace = wsBox.checked; saveState(); if (tl()) { buildBlocks(tl()!); renderTokens(); } });
thresholdInput.addEventListener('change', () => { const v = Number(thresholdInput.value); if (Number.isFinite(v)) { state.threshold = v; saveState(); } });
groupBox.addEventListener('change', () => {
  state.group = groupBox.checked; saveState();
  groupMembers = [];
  renderGroup();
  if (state.group && current?.record.taskId) post({ type: 'group', taskId: current.record.taskId, step: current.record.step });
});
copyText.addEventListener('click', () => { const t = tl(); if (t) post({ type: 'copy', text: t.text.join(''), what: 'timeline text' }); });
copyJson.addEventListener('click', () => {
  const t = tl();
  if (!t || !current) return;
  const r = current.record;
  post({ type: 'copy', what: 'timeline JSON', text: JSON.stringify({ record: current.index, task: t.taskId, step: r.step ?? null, reward: t.rawReward ?? r.reward ?? null, outcome: t.outcome, advantage: t.advantage ?? null, tokens: t.text, ids: t.ids, logprobs: t.logprobs, mask: t.mask }) });
});
followBox.addEventListener('change', () => { state.follow = followBox.checked; saveState(); if (state.follow) followNewest(); scheduleReport(); });
rawBtn.addEventListener('click', () => post({ type: 'openRaw' }));
cancelBtn.addEventListener('click', () => post({ type: 'cancel' }));
resumeBtn.addEventListener('click', () => { resumeBtn.classList.add('hidden'); post({ type: 'resume' }); });

function followNewest(): void {
  if (!state.follow || listTotal === 0) return;
  listViewport.scrollTop = listTotal * ROW_H;
  const newestFirst = state.sort.desc && state.sort.key === 'index';
  selectPos(newestFirst ? 0 : listTotal - 1);
}

// ---------------------------------------------------------------- host messages

function onCommand(c: ViewCommand): void {
  switch (c.kind) {
    case 'filter': writeFilter(c.filter); sendQuery(); break;
    case 'open': openRecord(c.index, c.timeline); break;
    case 'select': selectPos(c.position); break;
    case 'mode': state.mode = c.mode; modeSel.value = c.mode; saveState(); renderLegend(); renderTokens(); break;
    case 'follow': followBox.checked = c.on; followBox.dispatchEvent(new Event('change')); break;
    case 'key': onTokenKey(c.key, c.shiftKey ?? false); break;
    case 'hover': {
      scrollToToken(c.token);
      const span = tokenBlocks.querySelector<HTMLElement>(`span[data-i="${c.token}"]`);
      if (span) showHover(span);
      break;
    }
    case 'group': groupBox.checked = c.on; groupBox.dispatchEvent(new Event('change')); break;
    case 'copy': (c.what === 'json' ? copyJson : copyText).click(); break;
  }
}

window.addEventListener('message', (e: MessageEvent<HostToView>) => {
  const m = e.data;
  switch (m.type) {
    case 'init':
      titleEl.textContent = m.name;
      titleEl.title = m.files.join('\n');
      break;
    case 'progress': {
      indexing = m.phase !== 'search';
      progressBox.classList.remove('hidden');
      progressBar.max = Math.max(1, m.total);
      progressBar.value = m.done;
      const pct = m.total ? Math.floor((m.done / m.total) * 100) : 0;
      progressLabel.textContent = m.phase === 'index' ? `Indexing ${pct}% (${(m.done / 1048576).toFixed(0)} of ${(m.total / 1048576).toFixed(0)} MB)` : m.phase === 'summaries' ? `Reading record headers ${pct}%` : `Searching ${m.done} of ${m.total} records`;
      cancelBtn.classList.toggle('hidden', !m.cancellable);
      break;
    }
    case 'progressEnd':
      if (m.phase !== 'search') indexing = m.phase === 'index' && !m.cancelled;
      if (m.phase !== 'search') indexDone = true;
      if (restoreSelected && indexDone && state.selected !== undefined) { restoreSelected = false; openRecord(state.selected, state.timeline); }
      progressBox.classList.add('hidden');
      if (m.cancelled && m.phase !== 'search') resumeBtn.classList.remove('hidden');
      if (m.cancelled) statusEl.textContent = `${statusEl.textContent ?? ''} · ${m.phase === 'search' ? 'search' : 'indexing'} cancelled`;
      renderList();
      break;
    case 'status': {
      const grew = m.records > records;
      records = m.records;
      const mb = m.bytes / 1048576;
      statusEl.textContent = `${records.toLocaleString()} records · ${mb >= 1 ? `${mb.toFixed(1)} MB` : `${m.bytes} bytes`}${m.partialTail ? ' · last record still being written' : ''}`;
      for (const o of m.outcomes) ensureOutcomeOption(o);
      problemsEl.classList.toggle('hidden', m.problems.length === 0);
      problemsEl.textContent = m.problems.length ? `Unreadable parts: ${m.problems.join('; ')}` : '';
      if (grew && state.follow) pendingFollow = true;
      if (restoreSelected && state.selected !== undefined && (records > state.selected || indexDone)) { restoreSelected = false; openRecord(state.selected, state.timeline); }
      break;
    }
    case 'list': {
      // A new version is a new list; the same version with more entries (streamed search hits)
      // keeps the rows already fetched.
      const changed = m.version !== listVersion;
      if (changed) rowCache.clear();
      else {
        // Same list, grown at the end: refetch the old last row (it may have been incomplete)
        // and rows still waiting for their summary.
        rowCache.delete(listTotal - 1);
        for (const [k, r] of [...rowCache]) if (r.title === undefined && r.error === undefined && r.taskId === undefined) rowCache.delete(k);
      }
      pendingRows = '';
      listVersion = m.version;
      listTotal = m.total;
      searching = m.searching;
      if (changed && !queryTimer) awaitingQuery = false;
      setBusy();
      if (restoreListScroll) { listSpacer.style.height = `${listTotal * ROW_H}px`; listViewport.scrollTop = restoreListScroll; if (listViewport.scrollTop > 0 || listTotal * ROW_H <= listViewport.clientHeight) restoreListScroll = 0; }
      if (changed || selectedPos >= listTotal) selectedPos = -1;
      if (state.selected !== undefined) post({ type: 'locate', index: state.selected });
      renderList();
      if (pendingFollow) { pendingFollow = false; followNewest(); }
      break;
    }
    case 'rows':
      if (m.version !== listVersion) break;
      m.rows.forEach((r, k) => rowCache.set(m.offset + k, r));
      pendingRows = '';
      if (pendingOpenPos >= 0 && rowCache.has(pendingOpenPos)) { const p = pendingOpenPos; pendingOpenPos = -1; selectPos(p); }
      renderList();
      break;
    case 'changed':
      // The open record was incomplete (or the file was replaced): read it again.
      if (state.selected !== undefined && state.selected >= m.from && !pendingFollow) post({ type: 'open', index: state.selected });
      break;
    case 'located':
      if (m.index === state.selected) selectedPos = m.position;
      renderList();
      break;
    case 'record':
      onRecord(m);
      break;
    case 'group':
      if (current?.record.taskId === m.taskId) { groupMembers = m.members; renderGroup(); }
      break;
    case 'error':
      problemsEl.classList.remove('hidden');
      problemsEl.textContent = m.message;
      currentError = m.message;
      scheduleReport();
      break;
    case 'command':
      onCommand(m.command);
      break;
  }
});
let pendingFollow = false;
/** After a reload, the selected record opens once the index reaches it. */
let restoreSelected = state.selected !== undefined;
let indexDone = false;

// ---------------------------------------------------------------- report (tests, a11y)

let reportTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleReport(): void {
  if (reportTimer) return;
  reportTimer = setTimeout(() => {
    reportTimer = undefined;
    const spans = tokenBlocks.querySelectorAll('span[data-i]');
    let text = '';
    for (const s of spans) { if (text.length > 20_000) break; text += s.textContent ?? ''; }
    const report: ViewReport = {
      records, listTotal, listRows: listRows.querySelectorAll('.row').length, selected: state.selected, timeline: current ? state.timeline : undefined,
      timelineTokens: tl()?.text.length ?? 0, domTokens: spans.length, domText: text, cursor: cursor >= 0 ? cursor : undefined,
      hover: hoverCard.classList.contains('hidden') ? undefined : hoverText, injected: root.querySelectorAll('script, img, iframe, object, embed, [onerror], [onload], [onclick], [onmouseover]').length,
      mode: state.mode, follow: state.follow, kind: current?.record.kind, group: state.group ? groupMembers.length : 0, error: currentError, indexing,
    };
    post({ type: 'report', report });
  }, 80);
}

// ---------------------------------------------------------------- start

writeFilter(state.filter);
sortSel.value = state.sort.key;
sortDir.textContent = state.sort.desc ? '↓' : '↑';
modeSel.value = state.mode;
wsBox.checked = state.whitespace;
followBox.checked = state.follow;
groupBox.checked = state.group;
thresholdInput.value = String(state.threshold);
renderLegend();
window.addEventListener('resize', () => { renderList(); renderTokens(); });
post({ type: 'ready', state });
renderList();
