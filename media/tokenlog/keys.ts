// Keyboard: the record list (arrows, j/k, pages, Home/End, Enter), the timeline (n/N/p trained
// segments, l/L low-logprob tokens, arrows, Home/End, Escape) and [ ] for the previous / next
// record from anywhere outside an input.
import type { View } from './view';
import { ROW_H } from './list';

/** One key of the timeline; true when it was handled. Also used by the host's test driver. */
export function timelineKey(v: View, key: string, shift: boolean): boolean {
  const tl = v.timeline;
  const t = tl.current();
  switch (key) {
    case 'n':
      tl.nextTrained(1);
      return true;
    case 'N':
    case 'p':
      tl.nextTrained(-1);
      return true;
    case 'l':
      tl.nextLow(1);
      return true;
    case 'L':
      tl.nextLow(-1);
      return true;
    case ']':
      v.list.moveSelection(1);
      return true;
    case '[':
      v.list.moveSelection(-1);
      return true;
    case 'ArrowRight':
      tl.setCursor(tl.cursor + (shift ? 10 : 1));
      return true;
    case 'ArrowLeft':
      tl.setCursor(tl.cursor - (shift ? 10 : 1));
      return true;
    case 'Home':
      tl.setCursor(0);
      return true;
    case 'End':
      if (t) tl.setCursor(t.text.length - 1);
      return true;
    case 'Escape':
      tl.hideHover();
      return true;
    default:
      return false;
  }
}

export function installKeys(v: View): void {
  const d = v.dom;
  d.listViewport.addEventListener('keydown', (e) => {
    const list = v.list;
    const page = Math.max(1, Math.floor(d.listViewport.clientHeight / ROW_H) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, j: 1, k: -1, PageDown: page, PageUp: -page };
    const move = moves[e.key];
    if (move !== undefined) {
      e.preventDefault();
      list.selectPos(Math.min(list.total - 1, Math.max(0, (list.selectedPos < 0 ? -1 : list.selectedPos) + move)));
    } else if (e.key === 'Home') {
      e.preventDefault();
      list.selectPos(0);
    } else if (e.key === 'End') {
      e.preventDefault();
      list.selectPos(list.total - 1);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      d.tokenViewport.focus();
    }
  });
  d.tokenViewport.addEventListener('keydown', (e) => {
    if (timelineKey(v, e.key, e.shiftKey)) e.preventDefault();
  });
  document.addEventListener('keydown', (e) => {
    const target = e.target as HTMLElement;
    if (target.closest('input, select, textarea, .tokens, .viewport')) return;
    if ((e.key === '[' || e.key === ']') && timelineKey(v, e.key, false)) e.preventDefault();
  });
}
