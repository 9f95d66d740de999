// The webviews' message catalogue. The extension embeds it in the page (webviewHtml: a JSON data
// block, never executed) for the display language: `{}` in English, the Simplified Chinese
// strings of core/l10n/webview.zh-cn.json in Chinese. Keys are the English messages with {0} {1}…
// placeholders, as everywhere else (CONTRIBUTING.md); test/unit/l10n.test.ts checks that every
// t('…') here has its Chinese.

let catalogue: Readonly<Record<string, string>> | undefined;

function load(): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  // Through globalThis: the pure helpers that use t() also run in unit tests, without a DOM.
  const doc = (globalThis as { document?: { getElementById(id: string): { textContent: string | null } | null } }).document;
  const text = doc?.getElementById('agentjet-l10n')?.textContent ?? '';
  if (!text) return out;
  try {
    const data: unknown = JSON.parse(text);
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      // Only string → string entries: anything else in the block is ignored.
      for (const [k, v] of Object.entries(data)) if (typeof v === 'string') out[k] = v;
    }
  } catch {
    /* a broken block means English */
  }
  return out;
}

/** Translates an English message (the key) and fills {0}, {1}… from args. */
export function t(message: string, ...args: Array<string | number | boolean>): string {
  catalogue ??= load();
  const translated = catalogue[message] ?? message;
  return translated.replace(/\{(\d+)\}/g, (m, i: string) => {
    const v = args[Number(i)];
    return v === undefined ? m : String(v);
  });
}
