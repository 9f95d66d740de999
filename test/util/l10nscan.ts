// Finds the localisable string literals in sources: `vscode.l10n.t('…')` (extension) and
// `t('…')` / `coreT('…')` of core/l10n (CLI, language server, core). Only literal first
// arguments count; a message built at run time cannot be translated and is reported as such.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Found {
  file: string;
  line: number;
  text: string;
}

function unescape(body: string): string {
  return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_m, e: string) => {
    if (e === 'n') return '\n';
    if (e === 't') return '\t';
    if (e === 'r') return '\r';
    if (e.startsWith('u{')) return String.fromCodePoint(parseInt(e.slice(2, -1), 16));
    if (e[0] === 'u' && e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (e[0] === 'x' && e.length === 3) return String.fromCharCode(parseInt(e.slice(1), 16));
    return e;
  });
}

export function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Calls of `callee` (a regex source matching the function name) with a literal first argument, and non-literal ones. */
export function scan(files: readonly string[], callee: string, memberCall = false): { literals: Found[]; dynamic: Found[] } {
  const re = new RegExp(
    `${memberCall ? '(?<![\\w$])' : '(?<![\\w.$])'}(?:${callee})\\(\\s*(?:'((?:[^'\\\\\\n]|\\\\.)*)'|"((?:[^"\\\\\\n]|\\\\.)*)"|\`((?:[^\`\\\\$]|\\\\.|\\$(?!\\{))*)\`|([^'"\`\\s)][^,)]*))`,
    'g',
  );
  const literals: Found[] = [];
  const dynamic: Found[] = [];
  for (const file of files) {
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(re)) {
      const line = src.slice(0, m.index).split('\n').length;
      const body = m[1] ?? m[2] ?? m[3];
      if (body !== undefined) literals.push({ file, line, text: unescape(body) });
      else dynamic.push({ file, line, text: (m[4] ?? '').trim() });
    }
  }
  return { literals, dynamic };
}

/**
 * English words left in text shown in another language: ASCII words of three letters or more that
 * are neither kept on purpose (`allowed`: the technical names the translations themselves keep,
 * and the words of the data shown) nor parts of identifiers, paths, flags or numbers.
 */
export function untranslatedWords(text: string, allowed: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const token of text.split(/[\s，。：；、（）()“”"'`[\]{}<>|·…,:;!?]+/)) {
    // Identifiers, paths, file names, flags, URLs, numbers with units: shown as written.
    if (!token || /[_/\\.=@#$%+\d-]/.test(token) || /^[A-Z]{2,}$/.test(token)) continue;
    for (const w of token.match(/[A-Za-z]{3,}/g) ?? []) if (!allowed.has(w) && !allowed.has(w.toLowerCase())) out.add(w);
  }
  return [...out];
}

/** The ASCII words the Chinese translations keep (AgentJet, rollout, token…): shown untranslated on purpose. */
export function keptWords(catalogue: Readonly<Record<string, string>>): Set<string> {
  const out = new Set<string>();
  for (const v of Object.values(catalogue)) for (const w of v.match(/[A-Za-z]{3,}/g) ?? []) out.add(w);
  return out;
}
