// One object the language server and the CLI share: caches, resolver and the per-document parse.
import { dirname } from 'node:path';
import { ClassResolver } from './classref';
import { CachedFs } from './fs';
import { PythonLocator } from './pythonenv';
import { parseConfig, looksLikeConfig, MAX_SEMANTIC_BYTES, type ParsedConfig } from './parse';
import { validateParsed } from './validate';
import type { ConfigDiagnostic } from './diagnostics';
import type { FeatureContext } from './features';

export interface ServiceOptions {
  pythonPath?: string;
  roots?: string[];
  /** False when another YAML extension (Red Hat's) already reports syntax errors. */
  reportSyntaxErrors?: boolean;
}

export class ConfigService {
  readonly fs = new CachedFs();
  readonly resolver: ClassResolver;
  private roots: string[];
  private cache = new Map<string, { version: number; text: string; parsed: ParsedConfig }>();
  private readonly reportSyntax: boolean;

  constructor(opts: ServiceOptions = {}) {
    this.reportSyntax = opts.reportSyntaxErrors ?? true;
    const locator = opts.pythonPath ? new PythonLocator(opts.pythonPath) : undefined;
    this.resolver = new ClassResolver(this.fs, locator);
    this.roots = (opts.roots ?? []).slice().sort((a, b) => b.length - a.length);
    if (locator) setTimeout(() => locator.prime(['ajet', 'astuner', 'astune']), 0).unref?.();
  }

  setRoots(roots: string[]): void { this.roots = roots.slice().sort((a, b) => b.length - a.length); }

  /** The folder class references resolve against: the workspace folder holding the file, else its folder. */
  rootFor(file: string | undefined): string | undefined {
    if (!file) return this.roots[0];
    const hit = this.roots.find((r) => file === r || file.startsWith(r.endsWith('/') ? r : r + '/') || file.startsWith(r + '\\'));
    return hit ?? dirname(file);
  }

  context(file: string | undefined): FeatureContext { return { root: this.rootFor(file), resolver: this.resolver }; }

  /** Parses (cached by version) when the text is an AgentJet/ASTuner config; undefined otherwise. */
  parse(uri: string, version: number, text: string): ParsedConfig | undefined {
    const c = this.cache.get(uri);
    if (c && c.version === version && c.text.length === text.length) return c.parsed.doc ? c.parsed : undefined;
    if (text.length > MAX_SEMANTIC_BYTES || !looksLikeConfig(text)) { this.cache.delete(uri); return undefined; }
    const parsed = parseConfig(text);
    this.cache.set(uri, { version, text, parsed });
    return parsed.doc ? parsed : undefined;
  }

  forget(uri: string): void { this.cache.delete(uri); }

  diagnose(uri: string, version: number, text: string, file: string | undefined): { ours: boolean; diagnostics: ConfigDiagnostic[] } {
    const r = this.diagnoseAll(uri, version, text, file);
    return this.reportSyntax ? r : { ours: r.ours, diagnostics: r.diagnostics.filter((d) => d.code !== 'yaml-syntax') };
  }

  private diagnoseAll(uri: string, version: number, text: string, file: string | undefined): { ours: boolean; diagnostics: ConfigDiagnostic[] } {
    if (text.length > MAX_SEMANTIC_BYTES) {
      if (!looksLikeConfig(text.slice(0, 65536))) return { ours: false, diagnostics: [] };
      return { ours: true, diagnostics: [{ code: 'too-large', severity: 'information', message: `This config is ${(text.length / 1048576).toFixed(1)} MB; AgentJet checks are skipped above ${MAX_SEMANTIC_BYTES / 1048576} MB.`, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }] };
    }
    const parsed = this.parse(uri, version, text);
    if (!parsed) {
      // Broken YAML that still names a root key: show the syntax errors.
      if (looksLikeConfig(text)) {
        const p = parseConfig(text);
        const d = validateParsed(p, {});
        return { ours: d.length > 0, diagnostics: d };
      }
      return { ours: false, diagnostics: [] };
    }
    return { ours: true, diagnostics: validateParsed(parsed, { root: this.rootFor(file), fs: this.fs, resolver: this.resolver, fileName: file }) };
  }
}
