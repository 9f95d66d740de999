// The indentation step of a config's text, for completion's snippets.

/**
 * One indentation step of the file: the smallest indentation of any line (a tab when lines are
 * tab-indented), two spaces when nothing is indented yet.
 */
export function indentUnit(text: string): string {
  // As /^([ \t]+)\S/gm would find them, without a match object per line (it runs on every keystroke).
  let min = Infinity;
  const n = text.length;
  let i = 0;
  while (i < n) {
    let j = i;
    while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
    if (j > i && j < n && !WHITE.test(text.charAt(j))) {
      if (text.charCodeAt(i) === 9) return '\t';
      if (j - i < min) min = j - i;
    }
    // On to the next line (after any of the line terminators a multi-line `^` starts after).
    while (j < n && !isLineEnd(text.charCodeAt(j))) j++;
    i = j + 1;
  }
  return Number.isFinite(min) ? ' '.repeat(min) : '  ';
}

const WHITE = /\s/;
const isLineEnd = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
