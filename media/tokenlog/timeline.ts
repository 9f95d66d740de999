// The token timeline: a virtualised view of one timeline's tokens in blocks (lines, or 256 tokens),
// coloured by loss mask or logprob, with a hover card, a keyboard cursor and jumps to trained
// segments and low-logprob tokens.
import { append, clear, el } from '../shared/dom';
import type { TimelineData } from '../../core/protocol/tokenlog';
import { score } from './format';
import type { View } from './view';
import { t as tr } from '../shared/l10n';

const SPECIAL_RE = /^(<\|[^|]{0,64}\|>|<\/?(think|tool_call|tool_response|answer|im_start|im_end)>)$/;
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

interface Block {
  start: number;
  end: number;
  boundary: boolean;
}

/**
 * The heat map's tint of p = e^logprob in ten buckets (0: p < 0.1 … 9: p ≥ 0.9): the less likely a
 * token, the stronger the `--low` tint; the top bucket is tinted green (`.tok.heat`, `.tok.likely`).
 */
const HEAT_TINT = [80, 70, 60, 50, 42, 34, 26, 18, 10, 18];

function heat<T extends HTMLElement>(span: T, bucket: number): T {
  span.classList.add(bucket >= 9 ? 'likely' : 'heat');
  span.style.setProperty('--tint', `${HEAT_TINT[bucket] ?? 0}%`);
  return span;
}

/** The last k in [0, n) whose `key(k)` (ascending in k) is at most `x`; 0 when none is. */
function lastAtMost(n: number, key: (k: number) => number, x: number): number {
  let lo = 0,
    hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (key(mid) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export class TokenTimeline {
  private blocks: Block[] = [];
  private heights: number[] = [];
  private prefix: number[] = [0];
  cursor = -1;
  hoverText = '';
  private raf = 0;
  /** Where hoverToken scrolled to: the scroll event of that move must not hide the card it shows. */
  private ownScrollTop: number | undefined;

  constructor(private readonly v: View) {
    const d = v.dom;
    d.tokenViewport.addEventListener('scroll', () => {
      v.host.state.tokenScroll = d.tokenViewport.scrollTop;
      v.host.save();
      // A scroll made to show a hovered token (hoverToken) keeps its card; any other scroll hides it.
      if (this.ownScrollTop === undefined || Math.abs(d.tokenViewport.scrollTop - this.ownScrollTop) >= 1) {
        this.ownScrollTop = undefined;
        this.hideHover();
      }
      if (!this.raf)
        this.raf = requestAnimationFrame(() => {
          this.raf = 0;
          this.render();
        });
    });
    d.tokenBlocks.addEventListener('mouseover', (e) => {
      const span = (e.target as HTMLElement).closest<HTMLElement>('span[data-i]');
      if (span) this.showHover(span);
    });
    d.tokenBlocks.addEventListener('mouseleave', () => this.hideHover());
    d.tokenBlocks.addEventListener('click', (e) => {
      const span = (e.target as HTMLElement).closest<HTMLElement>('span[data-i]');
      if (span) this.setCursor(Number(span.dataset.i), false);
    });
  }

  /** The timeline on show, if any. */
  current(): TimelineData | undefined {
    return this.v.detail.current?.record.timelines[this.v.host.state.timeline];
  }

  private shown(text: string): { s: string; cls: string } {
    let cls = '';
    let s = text;
    if (s === '') return { s: '∅', cls: ' empty-tok' };
    if (SPECIAL_RE.test(s)) cls += ' special';
    if (CONTROL_RE.test(s)) {
      cls += ' ctl';
      s = s.replace(CONTROL_RE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
    }
    CONTROL_RE.lastIndex = 0;
    if (this.v.host.state.whitespace) s = s.replace(/ /g, '·').replace(/\t/g, '→\t');
    if (s.includes('\n')) {
      s = s.replace(/\r?\n/g, '↵\n');
      cls += ' nl';
    }
    if (s.length > 2000) s = `${s.slice(0, 2000)}… (${text.length} chars)`;
    return { s, cls };
  }

  /** Colours a token span by the mode: its loss mask, its logprob (heat map), or not at all. */
  private paint(span: HTMLElement, t: TimelineData, i: number): void {
    const mode = this.v.host.state.mode;
    if (mode === 'heat') {
      const lp = t.logprobs[i] ?? null;
      if (lp === null) span.classList.add('hn');
      else heat(span, Math.min(9, Math.floor(Math.exp(lp) * 10)));
    } else if (mode === 'mask') {
      const m = t.mask[i];
      span.classList.add(m === 1 ? 'm1' : m === 0 ? 'm0' : 'mu');
    }
  }

  /** Splits the timeline into blocks and estimates their heights (measured when rendered). */
  build(t: TimelineData | undefined): void {
    this.blocks = [];
    this.cursor = -1;
    if (!t) {
      this.heights = [];
      this.recomputePrefix();
      return;
    }
    const n = t.text.length;
    const boundary = t.lenPrompt !== undefined && t.lenPrompt > 0 && t.lenPrompt < n ? t.lenPrompt : -1;
    let start = 0;
    for (let i = 0; i < n; i++) {
      if (i === boundary && i > start) {
        this.blocks.push({ start, end: i, boundary: false });
        start = i;
      }
      if (i === boundary) this.blocks.push({ start: i, end: i, boundary: true });
      const endsLine = t.text[i]!.includes('\n');
      if (endsLine || i + 1 - start >= 256) {
        this.blocks.push({ start, end: i + 1, boundary: false });
        start = i + 1;
      }
    }
    if (start < n) this.blocks.push({ start, end: n, boundary: false });
    const charsPerLine = Math.max(20, Math.floor((this.v.dom.tokenViewport.clientWidth || 800) / 8));
    this.heights = this.blocks.map((b) => {
      if (b.boundary) return 26;
      let chars = 0;
      for (let i = b.start; i < b.end; i++) chars += Math.min(t.text[i]!.length, 2000) + 1;
      return 20 * Math.max(1, Math.ceil(chars / charsPerLine));
    });
    this.recomputePrefix();
  }

  /** Rebuilds the blocks of the timeline on show (whitespace display changed the text). */
  rebuild(): void {
    const c = this.cursor;
    this.build(this.current());
    this.cursor = c;
    this.render();
  }

  private recomputePrefix(): void {
    this.prefix = new Array<number>(this.heights.length + 1);
    this.prefix[0] = 0;
    for (let i = 0; i < this.heights.length; i++) this.prefix[i + 1] = this.prefix[i]! + this.heights[i]!;
  }

  private blockAt(y: number): number {
    return lastAtMost(this.blocks.length, (k) => this.prefix[k]!, y);
  }

  private blockOfToken(i: number): number {
    let b = lastAtMost(this.blocks.length, (k) => this.blocks[k]!.start, i);
    // A boundary marker block has no tokens; the token is in the block after it.
    while (b < this.blocks.length - 1 && this.blocks[b]!.boundary) b++;
    return b;
  }

  render(): void {
    const d = this.v.dom;
    const t = this.current();
    clear(d.tokenBlocks);
    if (!t || this.blocks.length === 0) {
      d.tokenSpacerTop.style.height = '0px';
      d.tokenSpacerBottom.style.height = '0px';
      this.v.report.schedule();
      return;
    }
    const top = d.tokenViewport.scrollTop;
    const h = d.tokenViewport.clientHeight || 600;
    const first = this.blockAt(Math.max(0, top - 400));
    let last = first;
    while (last < this.blocks.length && this.prefix[last]! < top + h + 400) last++;
    const frag = document.createDocumentFragment();
    const rendered: HTMLElement[] = [];
    for (let b = first; b < last; b++) {
      const blk = this.blocks[b]!;
      if (blk.boundary) {
        const sep = el(
          'div',
          { className: 'boundary', attrs: { role: 'separator' } },
          tr('response starts (token {0}; prompt {1} tokens)', blk.start, t.lenPrompt ?? '?'),
        );
        frag.appendChild(sep);
        rendered.push(sep);
        continue;
      }
      const div = el('div', { className: 'block' });
      for (let i = blk.start; i < blk.end; i++) {
        const { s, cls } = this.shown(t.text[i]!);
        const span = el('span', { className: 'tok' + cls + (i === this.cursor ? ' cursor' : '') }, s);
        this.paint(span, t, i);
        span.dataset.i = String(i);
        div.appendChild(span);
      }
      frag.appendChild(div);
      rendered.push(div);
    }
    d.tokenBlocks.appendChild(frag);
    // Replace estimates with measured heights of what was rendered.
    let changed = false;
    rendered.forEach((node, k) => {
      const hh = node.offsetHeight;
      if (hh > 0 && Math.abs(hh - this.heights[first + k]!) > 1) {
        this.heights[first + k] = hh;
        changed = true;
      }
    });
    if (changed) this.recomputePrefix();
    d.tokenSpacerTop.style.height = `${this.prefix[first]}px`;
    d.tokenSpacerBottom.style.height = `${this.prefix[this.blocks.length]! - this.prefix[last]!}px`;
    this.v.report.schedule();
  }

  describe(t: TimelineData, i: number): string {
    const lp = t.logprobs[i] ?? null;
    const m = t.mask[i];
    const text = t.text[i] ?? '';
    return [
      t.lenPrompt === undefined
        ? tr('token {0} of {1}', i + 1, t.text.length)
        : i < t.lenPrompt
          ? tr('token {0} of {1} (prompt)', i + 1, t.text.length)
          : tr('token {0} of {1} (response)', i + 1, t.text.length),
      `id ${t.ids[i] ?? 'n/a'}`,
      lp === null ? 'logprob n/a' : `logprob ${lp.toFixed(4)}, p ${Math.exp(lp).toFixed(4)}`,
      m === 1 ? tr('mask 1 (trained)') : m === 0 ? tr('mask 0 (context)') : tr('mask unknown colour'),
      text.length > 300
        ? tr('text {0} … ({1} chars)', JSON.stringify(text.slice(0, 300)), text.length)
        : tr('text {0}', JSON.stringify(text)),
    ].join(' · ');
  }

  showHover(span: HTMLElement): void {
    const d = this.v.dom;
    const t = this.current();
    if (!t) return;
    this.hoverText = this.describe(t, Number(span.dataset.i));
    clear(d.hoverCard);
    for (const line of this.hoverText.split(' · ')) d.hoverCard.appendChild(el('div', {}, line));
    d.hoverCard.classList.remove('hidden');
    const r = span.getBoundingClientRect();
    const top = r.bottom + 4 + d.hoverCard.offsetHeight > window.innerHeight ? r.top - d.hoverCard.offsetHeight - 4 : r.bottom + 4;
    d.hoverCard.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - d.hoverCard.offsetWidth - 4))}px`;
    d.hoverCard.style.top = `${Math.max(4, top)}px`;
    this.v.report.schedule();
  }

  hoverToken(i: number): void {
    this.scrollToToken(i);
    this.ownScrollTop = this.v.dom.tokenViewport.scrollTop;
    const span = this.v.dom.tokenBlocks.querySelector<HTMLElement>(`span[data-i="${i}"]`);
    if (span) this.showHover(span);
  }

  hideHover(): void {
    this.v.dom.hoverCard.classList.add('hidden');
  }

  hoverShown(): boolean {
    return !this.v.dom.hoverCard.classList.contains('hidden');
  }

  setCursor(i: number, scroll = true): void {
    const t = this.current();
    if (!t || t.text.length === 0) return;
    this.cursor = Math.max(0, Math.min(t.text.length - 1, i));
    this.v.dom.tokenInfo.textContent = this.describe(t, this.cursor);
    if (scroll) this.scrollToToken(this.cursor);
    else this.render();
  }

  scrollToToken(i: number): void {
    const d = this.v.dom;
    const b = this.blockOfToken(i);
    const h = d.tokenViewport.clientHeight || 600;
    // Place the block by the heights known now, render, and place again while rendering replaced
    // estimates with measured heights (a far jump, `n` across 2,500 tokens, left the pane blank).
    const place = (): boolean => {
      const y = this.prefix[b] ?? 0;
      if (y >= d.tokenViewport.scrollTop && y + (this.heights[b] ?? 0) <= d.tokenViewport.scrollTop + h) return false;
      const before = d.tokenViewport.scrollTop;
      d.tokenViewport.scrollTop = Math.max(0, y - h / 3);
      return d.tokenViewport.scrollTop !== before;
    };
    place();
    this.render();
    for (let k = 0; k < 4 && place(); k++) this.render();
    d.tokenBlocks.querySelector<HTMLElement>(`span[data-i="${i}"]`)?.scrollIntoView({ block: 'nearest' });
  }

  nextTrained(dir: 1 | -1): void {
    const t = this.current();
    if (!t) return;
    let i = this.cursor < 0 ? (dir > 0 ? -1 : t.text.length) : this.cursor;
    // Leave the current trained run first, then find the start of the next one.
    if (dir > 0) {
      while (i + 1 < t.text.length && i >= 0 && t.mask[i] === 1) i++;
      for (i = i + 1; i < t.text.length; i++)
        if (t.mask[i] === 1 && (i === 0 || t.mask[i - 1] !== 1)) {
          this.setCursor(i);
          return;
        }
    } else {
      for (i = i - 1; i >= 0; i--)
        if (t.mask[i] === 1 && (i === 0 || t.mask[i - 1] !== 1)) {
          this.setCursor(i);
          return;
        }
    }
    this.v.dom.tokenInfo.textContent = tr('No further trained segment.');
  }

  nextLow(dir: 1 | -1): void {
    const t = this.current();
    if (!t) return;
    const th = this.v.host.state.threshold;
    for (let i = (this.cursor < 0 ? (dir > 0 ? -1 : t.text.length) : this.cursor) + dir; i >= 0 && i < t.text.length; i += dir) {
      const lp = t.logprobs[i];
      if (lp !== null && lp !== undefined && lp < th) {
        this.setCursor(i);
        return;
      }
    }
    this.v.dom.tokenInfo.textContent = tr('No further token with logprob below {0}.', th);
  }

  /** The tokens line under the timeline: counts and scores of the timeline on show. */
  info(t: TimelineData | undefined): string {
    if (!t) return '';
    const fields = Object.entries(t.fields)
      .map(([k, val]) => `, ${k} ${val}`)
      .join('');
    return (
      tr(
        '{0} tokens, prompt {1}, response {2}, reward {3}, advantage {4}',
        t.text.length,
        t.lenPrompt ?? '?',
        t.lenResponse ?? '?',
        score(t.rawReward),
        score(t.advantage),
      ) + fields
    );
  }

  renderLegend(): void {
    const { legend } = this.v.dom;
    clear(legend);
    const mode = this.v.host.state.mode;
    if (mode === 'mask') {
      append(
        legend,
        el('span', { className: 'tok m1' }, tr('trained (loss mask 1)')),
        el('span', { className: 'tok m0' }, tr('context (not trained)')),
        el('span', { className: 'tok mu' }, tr('unknown')),
      );
    } else if (mode === 'heat') {
      append(
        legend,
        el('span', {}, 'p = e^logprob: '),
        heat(el('span', { className: 'tok' }, '< 0.1'), 0),
        heat(el('span', { className: 'tok' }, '0.5'), 5),
        heat(el('span', { className: 'tok' }, '> 0.9'), 9),
        el('span', { className: 'tok hn' }, tr('no logprob')),
      );
    }
  }

  /** Number of token spans in the DOM and their text (first 20,000 characters), for the report. */
  domTokens(): { spans: number; text: string } {
    const spans = this.v.dom.tokenBlocks.querySelectorAll('span[data-i]');
    let text = '';
    for (const s of spans) {
      if (text.length > 20_000) break;
      text += s.textContent ?? '';
    }
    return { spans: spans.length, text };
  }
}
