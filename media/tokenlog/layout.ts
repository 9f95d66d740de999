// The viewer's static DOM: built once, the modules keep references to the parts they own.
import { append, el } from '../shared/dom';
import type { SortKey } from '../../core/protocol/tokenlog';
import { t } from '../shared/l10n';

function numInput(id: string, label: string, placeholder: string, step = 'any'): HTMLInputElement {
  return el('input', { attrs: { type: 'number', id, step, 'aria-label': label, placeholder } });
}

/** Columns of the record list: label, sort key (if the header sorts), default width in px. */
export const COLUMNS: { label: string; title: string; sort?: SortKey; width: number }[] = [
  { label: '#', title: t('Record number in the file'), sort: 'index', width: 48 },
  // Wide enough for a long training's step numbers: "123,456".
  { label: t('step'), title: t('Training step'), sort: 'step', width: 60 },
  { label: t('task / title'), title: t('Task id (token records) or record title'), sort: 'task', width: 150 },
  { label: t('reward'), title: t('Reward'), sort: 'reward', width: 62 },
  { label: t('outcome'), title: t('Outcome of the first timeline'), width: 72 },
  { label: t('tl'), title: t('Timelines (training samples) in the record'), width: 24 },
  // Wide enough for AgentJet's long contexts: "99,999 (99,999)".
  { label: t('tokens'), title: t('Tokens (trained tokens)'), sort: 'tokens', width: 116 },
];

/**
 * The columns of a list that holds no token records (tables, exceptions, text): what such a record
 * has — kind, title, time — under headers of its own, not under the token columns' headers.
 */
export const OTHER_COLUMNS: { label: string; title: string; width: number }[] = [
  { label: '#', title: t('Record number in the file'), width: 48 },
  { label: t('kind'), title: t('Record kind: table, text or another record'), width: 64 },
  { label: t('title'), title: t('Record title'), width: 150 },
  { label: t('time'), title: t('Time the record was written'), width: 72 },
];

/** A `<select>` of fixed choices: value and label of each option, in order. */
function choices<V extends string>(label: string, options: [value: V, text: string][]): HTMLSelectElement {
  return el('select', { attrs: { 'aria-label': label } }, ...options.map(([value, text]) => el('option', { attrs: { value } }, text)));
}

/** A region screen readers announce politely when it changes (progress, the list summary). */
function liveStatus(tag: 'span' | 'div', className: string, ...children: HTMLElement[]): HTMLElement {
  return el(tag, { className, attrs: { role: 'status', 'aria-live': 'polite' } }, ...children);
}

/** The bar on top: file name, status, indexing progress, Follow, Open as text; problems below it. */
function headerBar() {
  const titleEl = el('span', { className: 'title' });
  const statusEl = el('span', { className: 'status' });
  const progressBar = el('progress', { attrs: { max: '1', value: '0', 'aria-label': t('progress') } });
  const progressLabel = el('span', { className: 'progress-label' });
  const cancelBtn = el('button', { attrs: { type: 'button' } }, t('Cancel'));
  const resumeBtn = el('button', { className: 'hidden', attrs: { type: 'button' } }, t('Resume indexing'));
  const progressBox = liveStatus('span', 'progress hidden', progressBar, progressLabel, cancelBtn);
  const followBox = el('input', { attrs: { type: 'checkbox', id: 'follow' } });
  const rawBtn = el('button', { attrs: { type: 'button', title: t('Open the file in the text editor') } }, t('Open as text'));
  const problemsEl = el('div', { className: 'problems hidden', attrs: { role: 'note' } });
  const header = el(
    'header',
    { className: 'bar' },
    titleEl,
    statusEl,
    progressBox,
    resumeBtn,
    el(
      'label',
      { className: 'follow', attrs: { for: 'follow', title: t('Keep showing the newest record while the file grows') } },
      followBox,
      ' ',
      t('Follow'),
    ),
    rawBtn,
  );
  return { header, titleEl, statusEl, progressBar, progressLabel, cancelBtn, resumeBtn, progressBox, followBox, rawBtn, problemsEl };
}

/** The filter form: step and reward ranges, outcome, text search, sort. */
function filterBar() {
  const stepMin = numInput('stepMin', t('step from'), t('from'), '1');
  const stepMax = numInput('stepMax', t('step to'), t('to'), '1');
  const rewardMin = numInput('rewardMin', t('reward min'), t('min'));
  const rewardMax = numInput('rewardMax', t('reward max'), t('max'));
  const outcomeSel = el('select', { attrs: { 'aria-label': t('outcome') } }, el('option', { attrs: { value: '' } }, t('any outcome')));
  const searchInput = el('input', {
    attrs: { type: 'search', placeholder: t('Search token text…'), 'aria-label': t('search token text') },
  });
  const sortSel = choices<SortKey>(t('sort by'), [
    ['index', t('file order')],
    ['step', t('step')],
    ['reward', t('reward')],
    ['task', t('task')],
    ['time', t('time')],
    ['tokens', t('tokens')],
  ]);
  const sortDir = el('button', { attrs: { type: 'button', 'aria-label': t('sort direction') } }, '↑');
  const clearBtn = el('button', { attrs: { type: 'button' } }, t('Clear'));
  const filterForm = el(
    'form',
    { className: 'filters', attrs: { role: 'search' } },
    el('span', { className: 'group-label' }, t('Step')),
    stepMin,
    el('span', {}, '–'),
    stepMax,
    el('span', { className: 'group-label' }, t('Reward')),
    rewardMin,
    el('span', {}, '–'),
    rewardMax,
    outcomeSel,
    searchInput,
    el('span', { className: 'group-label' }, t('Sort')),
    sortSel,
    sortDir,
    clearBtn,
  );
  return { stepMin, stepMax, rewardMin, rewardMax, outcomeSel, searchInput, sortSel, sortDir, clearBtn, filterForm };
}

function summaryLine() {
  // What the list shows: "12 of 51 records", the active filters, search matches and progress.
  const summaryCount = el('span', { className: 'count' });
  const summaryFilters = el('span', { className: 'active-filters' });
  const summarySearch = el('span', { className: 'search-info' });
  const summary = liveStatus('div', 'summary', summaryCount, summaryFilters, summarySearch);
  return { summary, summaryCount, summaryFilters, summarySearch };
}

/** The record list on the left (virtualized rows, list.ts) and the splitter that resizes it. */
function recordList() {
  const listHead = el('div', { className: 'row head', attrs: { role: 'presentation' } });
  const listSpacer = el('div', { className: 'spacer' });
  const listRows = el('div', { className: 'rows' });
  const listViewport = el(
    'div',
    { className: 'viewport', attrs: { role: 'listbox', tabindex: '0', 'aria-label': t('records') } },
    listSpacer,
    listRows,
  );
  const emptyText = el('div', { className: 'notice-text' });
  const emptyClear = el('button', { className: 'hidden', attrs: { type: 'button' } }, t('Clear filters'));
  const listEmpty = el('div', { className: 'notice hidden', attrs: { role: 'alert' } }, emptyText, emptyClear);
  const listPane = el('section', { className: 'list' }, listHead, listEmpty, listViewport);
  const splitter = el('div', {
    className: 'splitter',
    attrs: { role: 'separator', 'aria-orientation': 'vertical', 'aria-label': t('resize the record list'), tabindex: '0' },
  });
  return { listHead, listSpacer, listRows, listViewport, listEmpty, emptyText, emptyClear, listPane, splitter };
}

/** The record on the right: its head, then the token timeline, the group view or another record's content. */
function recordDetail() {
  const recordHead = el('div', { className: 'record-head' });
  const timelineTabs = el('div', { className: 'tabs', attrs: { role: 'tablist', 'aria-label': t('timelines') } });
  const modeSel = choices(t('colour mode'), [
    ['mask', t('Loss mask')],
    ['heat', t('Logprob heat map')],
    ['plain', t('Plain text')],
  ]);
  const wsBox = el('input', { attrs: { type: 'checkbox', id: 'ws' } });
  const thresholdInput = el('input', {
    attrs: {
      type: 'number',
      step: '0.5',
      'aria-label': t('logprob threshold'),
      title: t('l / L jump to the next / previous token with a logprob below this'),
    },
  });
  const groupBox = el('input', { attrs: { type: 'checkbox', id: 'grp' } });
  const copyText = el('button', { attrs: { type: 'button' } }, t('Copy text'));
  const copyJson = el('button', { attrs: { type: 'button' } }, t('Copy JSON'));
  const legend = el('span', { className: 'legend', attrs: { 'aria-label': t('legend') } });
  const tools = el(
    'div',
    { className: 'tools' },
    modeSel,
    el('label', { attrs: { for: 'ws' } }, wsBox, ' ', t('whitespace')),
    el('label', {}, t('low logprob <'), ' ', thresholdInput),
    el('label', { attrs: { for: 'grp' }, title: t('All timelines of this task side by side') }, groupBox, ' ', t('group')),
    copyText,
    copyJson,
    legend,
  );
  const tokenSpacerTop = el('div', { className: 'tspacer' });
  const tokenBlocks = el('div', { className: 'blocks' });
  const tokenSpacerBottom = el('div', { className: 'tspacer' });
  const tokenViewport = el(
    'div',
    {
      className: 'tokens',
      attrs: {
        tabindex: '0',
        role: 'document',
        'aria-label': t(
          'timeline tokens. n / N next or previous trained segment, l / L low-logprob token, arrows move, [ and ] change record',
        ),
      },
    },
    tokenSpacerTop,
    tokenBlocks,
    tokenSpacerBottom,
  );
  const tokenInfo = el('div', { className: 'token-info', attrs: { 'aria-live': 'polite' } });
  const groupPane = el('div', { className: 'group hidden' });
  const otherPane = el('div', { className: 'other hidden' });
  const detailEmpty = el('div', { className: 'empty' });
  const timelinePane = el('div', { className: 'timeline hidden' }, timelineTabs, tools, tokenViewport, tokenInfo);
  const detail = el('section', { className: 'detail' }, recordHead, detailEmpty, timelinePane, groupPane, otherPane);
  return {
    detail,
    recordHead,
    timelineTabs,
    modeSel,
    wsBox,
    thresholdInput,
    groupBox,
    copyText,
    copyJson,
    legend,
    tokenSpacerTop,
    tokenBlocks,
    tokenSpacerBottom,
    tokenViewport,
    tokenInfo,
    groupPane,
    otherPane,
    detailEmpty,
    timelinePane,
  };
}

export function buildLayout(root: HTMLElement) {
  const { header, ...head } = headerBar();
  const filters = filterBar();
  const summary = summaryLine();
  const list = recordList();
  const { detail, ...record } = recordDetail();
  const hoverCard = el('div', { className: 'hovercard hidden', attrs: { role: 'tooltip' } });
  const split = el('main', { className: 'split' }, list.listPane, list.splitter, detail);
  append(root, header, head.problemsEl, filters.filterForm, summary.summary, split, hoverCard);
  return { root, ...head, ...filters, ...summary, ...list, split, ...record, hoverCard };
}

export type Dom = ReturnType<typeof buildLayout>;
