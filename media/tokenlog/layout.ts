// The viewer's static DOM: built once, the modules keep references to the parts they own.
import { append, el } from '../shared/dom';
import type { SortKey } from '../../core/protocol/tokenlog';

function numInput(id: string, label: string, step = 'any'): HTMLInputElement {
  return el('input', { attrs: { type: 'number', id, step, 'aria-label': label, placeholder: label.split(' ').pop() ?? '' } });
}

/** Columns of the record list: label, sort key (if the header sorts), default width in px. */
export const COLUMNS: { label: string; title: string; sort?: SortKey; width: number }[] = [
  { label: '#', title: 'Record number in the file', sort: 'index', width: 48 },
  { label: 'step', title: 'Training step', sort: 'step', width: 44 },
  { label: 'task / title', title: 'Task id (token records) or record title', sort: 'task', width: 150 },
  { label: 'reward', title: 'Reward', sort: 'reward', width: 62 },
  { label: 'outcome', title: 'Outcome of the first timeline', width: 60 },
  { label: 'tl', title: 'Timelines (training samples) in the record', width: 24 },
  { label: 'tokens', title: 'Tokens (trained tokens)', sort: 'tokens', width: 84 },
];

export function buildLayout(root: HTMLElement) {
  const titleEl = el('span', { className: 'title' });
  const statusEl = el('span', { className: 'status' });
  const progressBar = el('progress', { attrs: { max: '1', value: '0', 'aria-label': 'progress' } });
  const progressLabel = el('span', { className: 'progress-label' });
  const cancelBtn = el('button', { attrs: { type: 'button' } }, 'Cancel');
  const resumeBtn = el('button', { className: 'hidden', attrs: { type: 'button' } }, 'Resume indexing');
  const progressBox = el('span', { className: 'progress hidden', attrs: { role: 'status', 'aria-live': 'polite' } }, progressBar, progressLabel, cancelBtn);
  const followBox = el('input', { attrs: { type: 'checkbox', id: 'follow' } });
  const rawBtn = el('button', { attrs: { type: 'button', title: 'Open the file in the text editor' } }, 'Open as text');
  const problemsEl = el('div', { className: 'problems hidden', attrs: { role: 'note' } });
  const header = el('header', { className: 'bar' }, titleEl, statusEl, progressBox, resumeBtn,
    el('label', { className: 'follow', attrs: { for: 'follow', title: 'Keep showing the newest record while the file grows' } }, followBox, ' Follow'), rawBtn);

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
  const filterForm = el('form', { className: 'filters', attrs: { role: 'search' } },
    el('span', { className: 'group-label' }, 'Step'), stepMin, el('span', {}, '–'), stepMax,
    el('span', { className: 'group-label' }, 'Reward'), rewardMin, el('span', {}, '–'), rewardMax,
    outcomeSel, searchInput, el('span', { className: 'group-label' }, 'Sort'), sortSel, sortDir, clearBtn);
  // What the list shows: "12 of 51 records", the active filters, search matches and progress.
  const summaryCount = el('span', { className: 'count' });
  const summaryFilters = el('span', { className: 'active-filters' });
  const summarySearch = el('span', { className: 'search-info' });
  const summary = el('div', { className: 'summary', attrs: { role: 'status', 'aria-live': 'polite' } }, summaryCount, summaryFilters, summarySearch);

  const listHead = el('div', { className: 'row head', attrs: { role: 'presentation' } });
  const listSpacer = el('div', { className: 'spacer' });
  const listRows = el('div', { className: 'rows' });
  const listViewport = el('div', { className: 'viewport', attrs: { role: 'listbox', tabindex: '0', 'aria-label': 'records' } }, listSpacer, listRows);
  const emptyText = el('div', { className: 'notice-text' });
  const emptyClear = el('button', { className: 'hidden', attrs: { type: 'button' } }, 'Clear filters');
  const listEmpty = el('div', { className: 'notice hidden', attrs: { role: 'alert' } }, emptyText, emptyClear);
  const listPane = el('section', { className: 'list' }, listHead, listEmpty, listViewport);
  const splitter = el('div', { className: 'splitter', attrs: { role: 'separator', 'aria-orientation': 'vertical', 'aria-label': 'resize the record list', tabindex: '0' } });

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
  const detailEmpty = el('div', { className: 'empty' });
  const timelinePane = el('div', { className: 'timeline hidden' }, timelineTabs, tools, tokenViewport, tokenInfo);
  const detail = el('section', { className: 'detail' }, recordHead, detailEmpty, timelinePane, groupPane, otherPane);
  const split = el('main', { className: 'split' }, listPane, splitter, detail);
  append(root, header, problemsEl, filterForm, summary, split, hoverCard);

  return {
    root, titleEl, statusEl, progressBar, progressLabel, cancelBtn, resumeBtn, progressBox, followBox, rawBtn, problemsEl,
    stepMin, stepMax, rewardMin, rewardMax, outcomeSel, searchInput, sortSel, sortDir, clearBtn, filterForm,
    summary, summaryCount, summaryFilters, summarySearch,
    listHead, listSpacer, listRows, listViewport, listEmpty, emptyText, emptyClear, listPane, splitter, split,
    recordHead, timelineTabs, modeSel, wsBox, thresholdInput, groupBox, copyText, copyJson, legend,
    tokenSpacerTop, tokenBlocks, tokenSpacerBottom, tokenViewport, tokenInfo, hoverCard, groupPane, otherPane, detailEmpty, timelinePane,
  };
}

export type Dom = ReturnType<typeof buildLayout>;
