// `.env` files as python-dotenv reads them (the launcher calls load_dotenv()): KEY=VALUE lines,
// `export ` prefixes, comments, single/double quotes, ${VAR} expansion in unquoted and
// double-quoted values.

export function parseDotenv(text: string, environment: Record<string, string | undefined> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const lookup = (name: string): string => out[name] ?? environment[name] ?? '';
  const expand = (v: string): string =>
    v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, n: string, def?: string) => lookup(n) || (def ?? ''));
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    const key = m[1]!;
    let rest = m[2]!;
    let value: string;
    const q = rest[0];
    if (q === '"' || q === "'") {
      // A quoted value may span lines until the closing quote.
      let body = rest.slice(1);
      let end = findClose(body, q);
      while (end < 0 && i + 1 < lines.length) {
        body += '\n' + lines[++i]!;
        end = findClose(body, q);
      }
      value = end < 0 ? body : body.slice(0, end);
      if (q === '"') value = expand(value.replace(/\\([nrt"\\])/g, (_m, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c));
    } else {
      rest = rest.replace(/\s+#.*$/, '');
      value = expand(rest.trim());
    }
    out[key] = value;
  }
  return out;
}

function findClose(body: string, q: string): number {
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && q === '"') {
      i++;
      continue;
    }
    if (body[i] === q) return i;
  }
  return -1;
}
