// What reading a user's AgentJet may cost. Its facts come from its own files (defaults YAML,
// conversion tables): a file of 1 MB nested a hundred thousand levels deep (`[[[...]]]`,
// `{a: {a: ...}}`) took the YAML library 26-38 s and 0.75-1.2 GB, in the language server and in
// `agentjet lint`, and that broken AgentJet then judged the user's configs. So before anything is
// parsed, each file is measured in one linear pass (size and nesting depth); over the budget, the
// AgentJet is not read, the reason is said, and configs are judged by the bundled facts. Time is
// bounded by the reading deadline (factsgen's ReadLimits.timeoutMs) and by these linear checks.
import { t } from '../l10n';

export interface FactsBudget {
  /** Deepest nesting of a YAML or JSON file (block indentation, `- ` items and flow brackets). */
  maxDepth: number;
  /** Bytes of YAML and JSON read in all. */
  maxDataBytes: number;
}

/** AgentJet 0.0.4's defaults nest 7 levels and weigh 60 KB in all: the budget leaves ample room. */
export const FACTS_BUDGET: FactsBudget = { maxDepth: 64, maxDataBytes: 4 << 20 };

/** In a flow collection a quote starts a scalar only after one of these (the last character that is not a space). */
const QUOTE_OPENERS = new Set([undefined, '[', '{', ',', ':']);

/**
 * The nesting depth of a YAML (or JSON) text, in one pass, stopping early once past `stopAt`.
 * Conservative: brackets inside a quoted scalar that spans lines are counted too.
 */
export function nestingDepth(text: string, stopAt = Infinity): number {
  let max = 0;
  const indents: number[] = [];
  let flow = 0;
  /** In a flow collection: the last character outside quotes that is not a space (across lines). */
  let prevSig: string | undefined;
  const n = text.length;
  let i = 0;
  while (i < n && max <= stopAt) {
    let j = i;
    let base = indents.length;
    if (flow === 0) {
      let ind = 0;
      while (j < n && text[j] === ' ') {
        j++;
        ind++;
      }
      const c = text[j];
      if (j >= n || c === '\n' || c === '\r' || c === '#') {
        const nl = text.indexOf('\n', j);
        i = nl < 0 ? n : nl + 1;
        continue;
      }
      while (indents.length && indents[indents.length - 1]! >= ind) indents.pop();
      indents.push(ind);
      // `- - x`: each item marker opens a level, and what follows it sits one column further in,
      // so the lines below it that belong to the item nest inside it.
      while (text[j] === '-' && (text[j + 1] === ' ' || text[j + 1] === '\t')) {
        j += 2;
        while (text[j] === ' ' || text[j] === '\t') j++;
        indents.push(j - i);
      }
      base = indents.length;
      if (base > max) max = base;
    }
    let quote: string | undefined;
    // In block context a bracket or quote opens something only where a value starts: at the
    // line's content, or after `: `. Elsewhere (`${x}`, `A {`, `it's`) it is text of a plain scalar.
    let valueStart = flow === 0;
    for (; j < n && text[j] !== '\n' && max <= stopAt; j++) {
      const c = text[j]!;
      if (quote) {
        // A double-quoted string (YAML's and JSON's) escapes with a backslash: `\"` does not end it.
        if (quote === '"' && c === '\\' && text[j + 1] !== '\n') j++;
        else if (c === quote) {
          quote = undefined;
          prevSig = c;
        }
        continue;
      }
      if (c === ' ' || c === '\t') continue;
      // In a flow collection a quote inside a plain scalar (`( '`) is text, not a string.
      const opens = flow > 0 ? QUOTE_OPENERS.has(prevSig) : valueStart;
      if (c === '#' && (j === i || text[j - 1] === ' ' || text[j - 1] === '\t')) {
        while (j < n && text[j] !== '\n') j++;
        break;
      }
      // `:` is an indicator before a space or a flow indicator, or after a quoted key (JSON's
      // `"a":"b"`); otherwise (`:'`) it is text of a plain scalar.
      if (c === ':' && flow > 0 && !(prevSig === '"' || prevSig === "'" || /^[\s,[\]{}]?$/.test(text[j + 1] ?? ''))) prevSig = 'x';
      else prevSig = c;
      valueStart = false;
      if ((c === '"' || c === "'") && opens) quote = c;
      else if ((c === '[' || c === '{') && (flow > 0 || opens)) {
        flow++;
        if (base + flow > max) max = base + flow;
      } else if ((c === ']' || c === '}') && flow > 0) flow--;
      else if (c === ':' && flow === 0 && (text[j + 1] === ' ' || text[j + 1] === '\t' || text[j + 1] === '\n' || text[j + 1] === '\r'))
        valueStart = true;
    }
    i = j + 1;
  }
  return max;
}

/** Why a package's data files are over the budget (in words, naming the file), or undefined. */
export function overBudget(texts: ReadonlyMap<string, string>, budget: FactsBudget = FACTS_BUDGET): string | undefined {
  let total = 0;
  for (const [file, text] of texts) {
    if (!/\.(ya?ml|jsonc?)$/.test(file)) continue;
    total += text.length;
    if (total > budget.maxDataBytes)
      return t('its YAML and JSON files hold more than {0} MB (at most {0} MB are read)', String(budget.maxDataBytes / (1024 * 1024)));
    const depth = nestingDepth(text, budget.maxDepth);
    if (depth > budget.maxDepth) return t('{0} nests more than {1} levels deep (at most {1} are read)', file, String(budget.maxDepth));
  }
  return undefined;
}

/**
 * How long a key path read from a user's AgentJet may be, and how many it may give. A key is read
 * with all its prefixes (`a`, `a.b`, `a.b.c`), so one chain of n links costs n² characters unless
 * it is cut: `config.ajet` + `.a` x 64,000 (128 KB of Python) took `agentjet lint` to 3.7 GB. AgentJet
 * 0.0.4 reads 161 keys, the longest 78 characters and 6 links deep; past these bounds a chain is cut
 * (its first links are still keys) and a source gives no more keys.
 */
export const KEY_BUDGET = { maxSegments: 16, maxChars: 256, maxKeys: 20_000 } as const;

/**
 * Collects dotted key paths with their prefixes in linear time, within KEY_BUDGET: `push` adds one
 * link to the current chain (false once the chain or the whole set is over the budget), `reset`
 * starts the next chain.
 */
export class KeyChains {
  readonly keys = new Set<string>();
  private prefix = '';
  private links = 0;
  /** Whether any chain was cut or a key left out (the result is bounded, not whole). */
  cut = false;

  reset(): void {
    this.prefix = '';
    this.links = 0;
  }

  push(segment: string): boolean {
    const k = this.links ? `${this.prefix}.${segment}` : segment;
    if (this.links >= KEY_BUDGET.maxSegments || k.length > KEY_BUDGET.maxChars || this.keys.size >= KEY_BUDGET.maxKeys) {
      this.cut = true;
      return false;
    }
    this.prefix = k;
    this.links++;
    this.keys.add(k);
    return true;
  }
}
