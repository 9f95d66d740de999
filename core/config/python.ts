// A small static reader of Python source: top-level classes (with bases, docstring and the
// signature of `execute`) and names re-exported through `from X import Y`. No Python needed.

export interface PyClass {
  name: string;
  line: number;
  character: number;
  bases: string[];
  docstring?: string;
  /** `async def execute(self, workflow_task, tuner) -> WorkflowOutput` as written. */
  execute?: string;
  executeLine?: number;
}

export interface PyImport {
  /** Module as written: `.mod`, `..pkg.mod`, `pkg.mod`. */
  module: string;
  name: string;
  alias: string;
  line: number;
}

export interface PyModule {
  classes: Map<string, PyClass>;
  imports: PyImport[];
  /** Modules re-exported with `from X import *`. */
  starImports: string[];
  /** Other top-level names (assignments, functions) with their line. */
  names: Map<string, number>;
}

/** Replaces string literal contents and comments with spaces so scanning cannot be fooled. */
function blankStrings(src: string): string {
  const out = src.split('');
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '#') {
      while (i < n && src[i] !== '\n') out[i++] = ' ';
      continue;
    }
    if (c === '"' || c === "'") {
      const triple = src.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      let j = i + q.length;
      while (j < n) {
        if (src[j] === '\\') {
          j += 2;
          continue;
        }
        if (src.startsWith(q, j)) break;
        if (!triple && src[j] === '\n') break;
        j++;
      }
      const end = Math.min(n, j + q.length);
      for (let k = i + q.length; k < Math.min(j, n); k++) if (out[k] !== '\n') out[k] = ' ';
      i = end;
      continue;
    }
    i++;
  }
  return out.join('');
}

function docstringAt(src: string, from: number): string | undefined {
  const m = /^\s*(?:[rRuU]?)("""|''')([\s\S]*?)\1/.exec(src.slice(from, from + 20000));
  if (m) return dedent(m[2] ?? '');
  const s = /^\s*(?:[rRuU]?)(["'])((?:\\.|(?!\1).)*)\1/.exec(src.slice(from, from + 2000));
  return s ? s[2] : undefined;
}

function dedent(s: string): string {
  const lines = s.replace(/^\n/, '').split('\n');
  const ind = Math.min(...lines.filter((l) => l.trim()).map((l) => (/^\s*/.exec(l) as RegExpExecArray)[0].length));
  return lines
    .map((l) => l.slice(Number.isFinite(ind) ? ind : 0))
    .join('\n')
    .trim();
}

/** Longest source parsePython reads (ClassResolver scans larger files for the class header only). */
export const MAX_PYTHON_CHARS = 4_000_000;

export function parsePython(src: string): PyModule {
  const mod: PyModule = { classes: new Map(), imports: [], starImports: [], names: new Map() };
  if (src.length > MAX_PYTHON_CHARS) return mod;
  const blank = blankStrings(src);
  const lines = blank.split('\n');
  const offsets: number[] = [];
  let acc = 0;
  for (const l of lines) {
    offsets.push(acc);
    acc += l.length + 1;
  }
  let current: PyClass | undefined;
  let depth = 0; // open brackets carried over from earlier lines: those lines continue a statement
  for (let li = 0; li < lines.length; li++) {
    const line = lines[li] ?? '';
    const carried = depth;
    for (const ch of line) {
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth = Math.max(0, depth - 1);
    }
    if (carried > 0 || !line.trim()) continue;
    const indent = (/^[ \t]*/.exec(line) as RegExpExecArray)[0].length;
    if (indent > 0) {
      if (current && !current.execute) {
        const m = /^\s+(async\s+def|def)\s+execute\s*\(/.exec(line);
        if (m) {
          // Collect the signature up to the colon that ends it (may span lines).
          let sig = '';
          let depth = 0;
          for (let k = li; k < Math.min(lines.length, li + 30); k++) {
            const start = offsets[k] ?? 0;
            const raw = src.slice(start, start + (lines[k] ?? '').length);
            for (const ch of raw) {
              if (ch === '(') depth++;
              if (ch === ')') depth--;
            }
            sig += (sig ? ' ' : '') + raw.trim();
            if (depth <= 0 && /:\s*(#.*)?$/.test(raw.trim())) break;
          }
          current.execute = sig
            .replace(/:\s*(#.*)?$/, '')
            .replace(/\s+/g, ' ')
            .replace(/\(\s+/g, '(')
            .replace(/,?\s*\)/g, ')');
          current.executeLine = li;
        }
      }
      continue;
    }
    current = undefined;
    const cls = /^class\s+([A-Za-z_]\w*)\s*(\(([^)]*)\)?)?/.exec(line);
    if (cls) {
      const [head, name = '', paren, basesText = ''] = cls;
      let bases = basesText;
      if (paren && !paren.endsWith(')')) {
        // bases over several lines
        for (let k = li + 1; k < Math.min(lines.length, li + 20); k++) {
          const l = lines[k] ?? '';
          const end = l.indexOf(')');
          bases += ' ' + (end >= 0 ? l.slice(0, end) : l);
          if (end >= 0) break;
        }
      }
      const colon = blank.indexOf(':', (offsets[li] ?? 0) + head.length);
      const c: PyClass = {
        name,
        line: li,
        character: 6,
        bases: bases
          .split(',')
          .map((b) => b.trim())
          .filter((b) => b && !b.includes('=')),
        docstring: colon >= 0 ? docstringAt(src, colon + 1) : undefined,
      };
      mod.classes.set(name, c);
      current = c;
      continue;
    }
    const from = /^from\s+([.\w]+)\s+import\s+(.*)$/.exec(line);
    if (from) {
      const [, fromModule = '', imported = ''] = from;
      let names = imported;
      if (names.includes('(') && !names.includes(')')) {
        for (let k = li + 1; k < Math.min(lines.length, li + 200); k++) {
          const next = lines[k] ?? '';
          names += ' ' + next;
          if (next.includes(')')) break;
        }
      } else {
        let k = li;
        while (names.trimEnd().endsWith('\\') && k + 1 < lines.length) names = names.trimEnd().slice(0, -1) + ' ' + (lines[++k] ?? '');
      }
      names = names.replace(/[()]/g, ' ');
      for (const part of names.split(',')) {
        const p = part.trim();
        if (!p) continue;
        if (p === '*') {
          mod.starImports.push(fromModule);
          continue;
        }
        const m = /^(\w+)(?:\s+as\s+(\w+))?$/.exec(p);
        const [, name, alias] = m ?? [];
        if (name) mod.imports.push({ module: fromModule, name, alias: alias ?? name, line: li });
      }
      continue;
    }
    const def = /^(?:async\s+)?def\s+(\w+)|^(\w+)\s*(?::[^=]*)?=(?!=)/.exec(line);
    const defined = def?.[1] ?? def?.[2];
    if (defined) mod.names.set(defined, li);
  }
  return mod;
}
