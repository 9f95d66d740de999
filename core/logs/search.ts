// Text search over token timelines: a match may span tokens; positions map back to the token.

/**
 * Counts non-overlapping matches of `needle` (lower case) in each timeline's joined, lowercased
 * token text; the first match's timeline, token and offset inside that token.
 */
export function findInTokens(
  texts: string[][],
  needle: string,
): { matches: number; first?: { timeline: number; token: number; char: number } } {
  let matches = 0;
  let first: { timeline: number; token: number; char: number } | undefined;
  texts.forEach((text, ti) => {
    const joined = text.join('').toLowerCase();
    let pos = joined.indexOf(needle);
    if (pos < 0) return;
    if (!first) {
      // Map the first hit's offset (in the lowercased text, whose length may differ: 'İ' becomes
      // two characters) back to its token.
      let acc = 0;
      for (let k = 0; k < text.length; k++) {
        const next = acc + text[k]!.toLowerCase().length;
        if (next > pos || k === text.length - 1) {
          first = { timeline: ti, token: k, char: Math.min(pos - acc, text[k]!.length) };
          break;
        }
        acc = next;
      }
    }
    while (pos >= 0) {
      matches++;
      pos = joined.indexOf(needle, pos + Math.max(1, needle.length));
    }
  });
  return { matches, first };
}
