// The terminal of an `agentjet` task (tasks, the CodeLens): the launch itself is core's
// (core/launch/launcherRun.ts over the launch's owner, core/launch/owner.ts: the steps of F5, the
// user's stop checked before each, the launcher's process groups, stop, the watchdog that ends the
// launch if the extension host goes away, the launch record). This shows its output, turns
// tracebacks and config errors into Problems as they appear (our own parser, so they do not depend
// on terminal rendering), and on Terminate / closing the terminal / Ctrl+C stops the whole launch
// except companions.
import * as vscode from 'vscode';
import { OutputProblems } from '../../core/launch/problems';
import { showCauseProblems } from './causeProblems';
import type { ResolvedLaunch } from '../../core/launch/attributes';
import { LauncherRun as CoreLauncherRun } from '../../core/launch/launcherRun';

export interface LauncherRun {
  launch: ResolvedLaunch;
  extra: { withRay?: boolean | undefined; withRayCluster?: boolean | undefined; debugTags?: readonly string[] | string | undefined };
  /** Recorded with the launch: 'task', 'codelens', ... */
  via: string;
}

let recordListener: ((folder: string) => void) | undefined;

/** Who hears that a task launch's record changed (the Runs view, set once by the debug feature). */
export function setLaunchRecordListener(listener: ((folder: string) => void) | undefined): void {
  recordListener = listener;
}

export class LauncherTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private readonly parser = new OutputProblems();
  private readonly byFile = new Map<string, vscode.Diagnostic[]>();
  private readonly launcher: CoreLauncherRun;

  constructor(
    run: LauncherRun,
    private readonly diagnostics: vscode.DiagnosticCollection,
  ) {
    this.launcher = new CoreLauncherRun(run, {
      refused: (message) => this.write(`\x1b[31mAgentJet: ${message}\x1b[0m\n`),
      warning: (w) => this.write(`\x1b[33mAgentJet: ${w}\x1b[0m\n`),
      starting: (command, what, cwd) => this.write(`\x1b[2m${command}  (${what}; cwd ${cwd})\x1b[0m\n`),
      output: (text) => {
        this.write(text);
        this.report(this.parser.push(text));
      },
      spawnError: (e, command) =>
        this.write(
          `${e.code === 'ENOENT' ? vscode.l10n.t('AgentJet: the interpreter {0} does not exist (set agentjet.pythonPath)', command) : vscode.l10n.t('AgentJet: cannot start {0}: {1}', command, e.message)}\n`,
        ),
      recordError: (message) => this.write(`${vscode.l10n.t('AgentJet: {0}', message)}\n`),
      recordWritten: (folder) => recordListener?.(folder),
      ended: (end) => {
        if (end.started) {
          this.report(this.parser.end());
          if (end.causes?.length && end.config) void showCauseProblems(this.diagnostics, end.config, end.causes);
          this.write(
            `\n\x1b[2m${end.signal ? vscode.l10n.t('AgentJet: launcher exited with code {0} ({1})', end.exitCode, end.signal) : vscode.l10n.t('AgentJet: launcher exited with code {0}', end.exitCode)}\x1b[0m\n`,
          );
        }
        this.closeEmitter.fire(end.exitCode);
      },
    });
  }

  /** The launch's owner (tests: its watchdog and process groups). */
  get owner(): CoreLauncherRun['owner'] {
    return this.launcher.owner;
  }

  open(): void {
    this.diagnostics.clear();
    void this.launcher.start().catch((e: unknown) => {
      this.write(`${vscode.l10n.t('AgentJet: {0}', e instanceof Error ? e.message : String(e))}\n`);
      this.closeEmitter.fire(1);
    });
  }

  handleInput(data: string): void {
    // Ctrl+C stops the launch, as Terminate does (the whole tree, not only the launcher's group).
    if (data === '\x03') void this.launcher.stop();
  }

  close(): void {
    // Terminate Task / closing the terminal: end the launch's whole tree; companions stay up.
    void this.launcher.stop();
  }

  private write(text: string): void {
    this.writeEmitter.fire(text.replace(/\r?\n/g, '\r\n'));
  }

  private report(found: readonly { file: string; line: number; message: string; severity: 'error' | 'warning' }[]): void {
    for (const p of found) {
      const list = this.byFile.get(p.file) ?? [];
      const line = Math.max(0, p.line - 1);
      const d = new vscode.Diagnostic(
        new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER),
        p.message,
        p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error,
      );
      d.source = 'agentjet';
      list.push(d);
      this.byFile.set(p.file, list);
      this.diagnostics.set(vscode.Uri.file(p.file), list);
    }
  }
}
