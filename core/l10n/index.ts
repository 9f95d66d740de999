// The message catalogue of the CLI and the language server (the extension uses vscode.l10n).
// Keys are the English messages themselves, with {0} {1}… placeholders, exactly like
// vscode.l10n.t and l10n/bundle.l10n.*.json, so one guide covers both (CONTRIBUTING.md).
import zhCn from './zh-cn.json';
import webviewZhCn from './webview.zh-cn.json';
import { splitLangFlag } from './langFlag';

export type Locale = 'en' | 'zh-cn';

const CATALOGUES: Record<Locale, Readonly<Record<string, string>>> = { en: {}, 'zh-cn': zhCn };

let current: Locale = 'en';

/** Maps any locale tag (zh, zh-CN, zh_CN.UTF-8, zh-Hans…) to a supported locale; English otherwise. */
export function normalizeLocale(tag: string | undefined | null): Locale {
  if (!tag) return 'en';
  const t = tag.trim().toLowerCase().replace(/_/g, '-').replace(/\..*$/, '');
  if (t === 'zh' || t === 'zh-cn' || t === 'zh-sg' || t.startsWith('zh-hans')) return 'zh-cn';
  return 'en';
}

/**
 * The CLI's locale: `--lang X` / `--lang=X` wins, then LANGUAGE, LC_ALL, LC_MESSAGES, LANG
 * (first non-empty, as gettext does). Returns the arguments with --lang removed.
 */
export function localeFromCli(argv: readonly string[], env: NodeJS.ProcessEnv): { locale: Locale; rest: string[] } {
  const { flag, rest } = splitLangFlag(argv);
  if (flag !== undefined) return { locale: normalizeLocale(flag), rest };
  const fromEnv = [env.LANGUAGE?.split(':')[0], env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v && v !== 'C' && v !== 'POSIX');
  return { locale: normalizeLocale(fromEnv), rest };
}

/** The language server's locale: `initializationOptions.locale`, else the client's `params.locale`. */
export function localeFromInitialize(params: { locale?: string; initializationOptions?: unknown }): Locale {
  const opts = params.initializationOptions;
  const fromOpts =
    opts && typeof opts === 'object' && 'locale' in opts && typeof (opts as { locale: unknown }).locale === 'string'
      ? (opts as { locale: string }).locale
      : undefined;
  return normalizeLocale(fromOpts ?? params.locale);
}

export function setLocale(locale: Locale): void {
  current = locale;
}
export function getLocale(): Locale {
  return current;
}

/** Translates an English message (the key) and fills {0}, {1}… from args. */
export function t(message: string, ...args: Array<string | number | boolean>): string {
  const translated = CATALOGUES[current][message] ?? message;
  return translated.replace(/\{(\d+)\}/g, (m, i: string) => {
    const v = args[Number(i)];
    return v === undefined ? m : String(v);
  });
}

/** Every key of a catalogue (for the completeness test). */
export function catalogueKeys(locale: Locale): string[] {
  return Object.keys(CATALOGUES[locale]);
}

/**
 * The webviews' catalogue for a display language (`vscode.env.language`): what the extension embeds
 * in a webview page for media/shared/l10n.ts. English needs none (the keys are the English text).
 */
export function webviewCatalogue(language: string | undefined): Readonly<Record<string, string>> {
  return normalizeLocale(language) === 'zh-cn' ? webviewZhCn : {};
}

/** The keys of the webviews' zh-cn catalogue (for the completeness test). */
export function webviewCatalogueKeys(): string[] {
  return Object.keys(webviewZhCn);
}
