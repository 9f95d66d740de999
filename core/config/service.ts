// One object the language server and the CLI share: caches, resolvers and the per-document parse.
// Each workspace folder may have its own interpreter (settings are per folder).
import { generatedConfigDiagnostic, isGeneratedPatchConfig } from '../agentjet/generated';
import { dirname } from 'node:path';
import { isInside } from '../fs/inside';
import { ClassResolver } from './classref';
import { CachedFs } from './fs';
import { PythonLocator } from './pythonenv';
import { parseConfig, looksLikeConfig, tooLargeDiagnostic, MAX_SEMANTIC_BYTES, type ParsedConfig } from './parse';
import { validateSteps } from './validate';
import type { ConfigDiagnostic } from './diagnostics';
import type { FeatureContext } from './features';
import { AgentJetFactsService, type FactsServiceOptions } from './agentjetFacts';
import type { JudgingFacts } from './releases';
import { WorkspaceTrust } from '../trust/policy';

export interface ServiceOptions {
  /** One interpreter for every folder (clients without per-folder settings, tests). */
  pythonPath?: string;
  roots?: string[];
  /** False when another YAML extension (Red Hat's) already reports syntax errors. */
  reportSyntaxErrors?: boolean;
  /** Called when an interpreter answered, so open documents can be checked again. */
  onInterpreterAnswer?: () => void;
  /** Finding and reading the user's AgentJet (cache folder, limits); onChange defaults to onInterpreterAnswer. */
  agentjet?: FactsServiceOptions;
  /**
   * The workspace's trust (core/trust/policy.ts). While it is not granted no interpreter is run:
   * installed packages are not probed and class references outside the workspace say they wait
   * for trust. On grant the probes run and `onInterpreterAnswer` follows. Missing means not
   * trusted: the shell that owns trust (the language server's client, a CLI flag) says otherwise.
   */
  trust?: WorkspaceTrust;
}

const FRAMEWORK_ROOTS = ['ajet', 'astuner', 'astune'];

export class ConfigService {
  readonly fs = new CachedFs();
  /** The resolver of files outside every folder with an interpreter of its own. */
  readonly resolver: ClassResolver;
  private roots: string[];
  private cache = new Map<string, { version: number; text: string; parsed: ParsedConfig }>();
  private readonly reportSyntax: boolean;
  private readonly perRoot = new Map<string, { python: string; configured: boolean; resolver: ClassResolver; locator: PythonLocator }>();
  readonly trust: WorkspaceTrust;
  /** Every resolver's stand-in in Restricted Mode: workspace sources only, installed packages wait for trust. */
  private readonly restricted: ClassResolver;
  private readonly mainLocator: PythonLocator | undefined;
  private readonly onAnswer: (() => void) | undefined;
  /** The AgentJet each workspace folder is judged by (its checkout, its interpreter's package, else bundled). */
  readonly agentjets: AgentJetFactsService;

  constructor(opts: ServiceOptions = {}) {
    this.reportSyntax = opts.reportSyntaxErrors ?? true;
    this.onAnswer = opts.onInterpreterAnswer;
    this.trust = opts.trust ?? new WorkspaceTrust(false);
    const trust = this.trust;
    this.restricted = new ClassResolver(this.fs, { locate: () => undefined, waitingForTrust: () => !trust.allows('probe-packages') });
    this.mainLocator = opts.pythonPath ? this.locator(opts.pythonPath, true) : undefined;
    this.resolver = new ClassResolver(this.fs, this.mainLocator);
    this.roots = (opts.roots ?? []).slice().sort((a, b) => b.length - a.length);
    this.agentjets = new AgentJetFactsService({ onChange: () => this.onAnswer?.(), trust, ...opts.agentjet });
    // On grant: the probes that waited run now and their answers re-check the documents; the shell
    // sets each folder's interpreter again (setInterpreter), which reads its installed AgentJet.
    trust.onGrant(() => {
      if (this.mainLocator) void this.mainLocator.prime(FRAMEWORK_ROOTS);
      for (const r of this.perRoot.values()) void r.locator.prime(FRAMEWORK_ROOTS);
      this.onAnswer?.();
    });
  }

  /** True while installed packages wait for the user's trust (hovers say so). */
  waitingForTrust(): boolean {
    return !this.trust.allows('probe-packages');
  }

  /** The AgentJet that judges a parsed config at `file` (bundled facts while the folder's is read). */
  factsFor(file: string | undefined, parsed: ParsedConfig): JudgingFacts {
    return this.agentjets.factsFor(this.folderOf(file) ?? this.rootFor(file), parsed);
  }

  private locator(python: string, configured: boolean): PythonLocator {
    const l = new PythonLocator(python, { onResolved: () => this.onAnswer?.(), trust: this.trust, configured });
    void l.prime(FRAMEWORK_ROOTS); // nothing runs before trust is granted
    return l;
  }

  setRoots(roots: string[]): void {
    this.roots = roots.slice().sort((a, b) => b.length - a.length);
  }

  /**
   * Sets (or clears, with undefined) the interpreter of one folder; a new one is asked afresh.
   * `configured` is false for an interpreter found for the user (the folder's .venv).
   */
  setInterpreter(root: string, python: string | undefined, configured = true): void {
    this.agentjets.setFolder(root, python);
    const cur = this.perRoot.get(root);
    if (cur?.python === python && cur?.configured === configured) return;
    if (!python) {
      this.perRoot.delete(root);
      return;
    }
    const locator = this.locator(python, configured);
    this.perRoot.set(root, { python, configured, locator, resolver: new ClassResolver(this.fs, locator) });
  }

  interpreterOf(root: string | undefined): string | undefined {
    return root ? this.perRoot.get(root)?.python : undefined;
  }

  /** The folder class references resolve against: the workspace folder holding the file, else its folder. */
  rootFor(file: string | undefined): string | undefined {
    if (!file) return this.roots[0];
    const hit = this.roots.find((r) => file === r || file.startsWith(r.endsWith('/') ? r : r + '/') || file.startsWith(r + '\\'));
    return hit ?? dirname(file);
  }

  /** The workspace folder holding the file (undefined outside every folder). */
  folderOf(file: string | undefined): string | undefined {
    if (!file) return this.roots[0];
    // By path segments after normalising: `ws/../x` is not in `ws`, nor is `ws-2/x`.
    return this.roots.find((r) => file === r || isInside(r, file));
  }

  private resolverFor(root: string | undefined): ClassResolver {
    if (this.waitingForTrust()) return this.restricted;
    return (root && this.perRoot.get(root)?.resolver) || this.resolver;
  }

  context(file: string | undefined): FeatureContext {
    const root = this.rootFor(file);
    return { root, resolver: this.resolverFor(this.folderOf(file) ?? root), ...(this.waitingForTrust() ? { waitingForTrust: true } : {}) };
  }

  /** Parses (cached by version) when the text is an AgentJet/ASTuner config; undefined otherwise. */
  parse(uri: string, version: number, text: string): ParsedConfig | undefined {
    const parsed = this.parseAny(uri, version, text);
    return parsed?.doc ? parsed : undefined;
  }

  /** The cached parse, with or without a document of ours; undefined when the text is not a config. */
  private parseAny(uri: string, version: number, text: string): ParsedConfig | undefined {
    const c = this.cache.get(uri);
    if (c && c.version === version && c.text.length === text.length) return c.parsed;
    if (text.length > MAX_SEMANTIC_BYTES || !looksLikeConfig(text)) {
      this.cache.delete(uri);
      return undefined;
    }
    // An edit of the open document: the pieces it did not touch are the last version's parse.
    const parsed = parseConfig(text, c ? { previous: c.parsed } : {});
    this.cache.set(uri, { version, text, parsed });
    return parsed;
  }

  forget(uri: string): void {
    this.cache.delete(uri);
  }

  diagnose(
    uri: string,
    version: number,
    text: string,
    file: string | undefined,
  ): { ours: boolean; diagnostics: ConfigDiagnostic[]; facts?: JudgingFacts } {
    const steps = this.diagnoseSteps(uri, version, text, file);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * `diagnose` in slices of about `sliceMs`, giving the event loop back in between (requests about
   * other documents are answered meanwhile). Returns undefined, having stopped early, once `stale()`
   * says the text is no longer current (a keystroke came in).
   */
  async diagnoseAsync(
    uri: string,
    version: number,
    text: string,
    file: string | undefined,
    stale: () => boolean,
    sliceMs = 15,
  ): Promise<{ ours: boolean; diagnostics: ConfigDiagnostic[]; facts?: JudgingFacts } | undefined> {
    const steps = this.diagnoseSteps(uri, version, text, file);
    let until = performance.now() + sliceMs;
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() < until) continue;
      await new Promise<void>((res) => setImmediate(res));
      if (stale()) {
        steps.return({ ours: false, diagnostics: [] });
        return undefined;
      }
      until = performance.now() + sliceMs;
    }
  }

  private *diagnoseSteps(
    uri: string,
    version: number,
    text: string,
    file: string | undefined,
  ): Generator<void, { ours: boolean; diagnostics: ConfigDiagnostic[]; facts?: JudgingFacts }, void> {
    const r = yield* this.diagnoseAll(uri, version, text, file);
    return this.reportSyntax ? r : { ...r, diagnostics: r.diagnostics.filter((d) => d.code !== 'yaml-syntax') };
  }

  private *diagnoseAll(
    uri: string,
    version: number,
    text: string,
    file: string | undefined,
  ): Generator<void, { ours: boolean; diagnostics: ConfigDiagnostic[]; facts?: JudgingFacts }, void> {
    // AgentJet 0.0.4's patched copy of a config: shown as generated, not checked (core/agentjet/generated.ts).
    if (file && isGeneratedPatchConfig(file, text) && looksLikeConfig(text))
      return { ours: true, diagnostics: [generatedConfigDiagnostic(file)] };
    if (text.length > MAX_SEMANTIC_BYTES) {
      if (!looksLikeConfig(text.slice(0, 65536))) return { ours: false, diagnostics: [] };
      return {
        ours: true,
        diagnostics: [tooLargeDiagnostic(text.length)],
      };
    }
    const parsed = this.parseAny(uri, version, text);
    if (!parsed) return { ours: false, diagnostics: [] };
    // The parse is one piece of work (the yaml library); a pause after it lets a newer text win.
    yield;
    if (!parsed.doc) {
      // Broken YAML that still names a root key: show the syntax errors.
      const d = yield* validateSteps(parsed, {});
      return { ours: d.length > 0, diagnostics: d };
    }
    const ctx = this.context(file);
    const facts = this.factsFor(file, parsed);
    const diagnostics = yield* validateSteps(parsed, { root: ctx.root, fs: this.fs, resolver: ctx.resolver, fileName: file, facts });
    return { ours: true, facts, diagnostics };
  }
}
