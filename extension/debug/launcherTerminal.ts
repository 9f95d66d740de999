// The terminal of an `agentjet` task: runs the launcher in its own process group, streams its
// output, turns tracebacks and config errors into Problems as they appear (our own parser, so
// they do not depend on terminal rendering), and on Terminate ends the whole tree except companions.
import * as vscode from 'vscode';
import { spawn, type ChildProcess } from 'node:child_process';
import { OutputProblems } from '../../core/launch/problems';
import { listProcesses, planKill, terminate } from '../../core/launch/processes';
import { companionFolder, readCompanions } from '../../core/launch/companions';
import { shellQuote } from '../../core/launch/plan';

export interface LauncherRun {
  command: string;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  expDir: string;
}

export class LauncherTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private child: ChildProcess | undefined;
  private readonly parser = new OutputProblems();
  private readonly byFile = new Map<string, vscode.Diagnostic[]>();

  constructor(private readonly run: LauncherRun, private readonly diagnostics: vscode.DiagnosticCollection) {}

  open(): void {
    const r = this.run;
    this.diagnostics.clear();
    this.write(`\x1b[2m${[r.command, ...r.args].map(shellQuote).join(' ')}${r.cwd ? `  (cwd ${r.cwd})` : ''}\x1b[0m\n`);
    let child: ChildProcess;
    try {
      child = spawn(r.command, r.args, { cwd: r.cwd, env: { ...process.env, PYTHONUNBUFFERED: '1', ...r.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      this.write(`AgentJet: cannot start ${r.command}: ${(e as Error).message}\n`);
      this.closeEmitter.fire(127);
      return;
    }
    this.child = child;
    const onData = (b: Buffer): void => {
      const text = b.toString();
      this.write(text);
      this.report(this.parser.push(text));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', (e: NodeJS.ErrnoException) => {
      this.write(`AgentJet: ${e.code === 'ENOENT' ? `the interpreter ${r.command} does not exist (set agentjet.pythonPath)` : e.message}\n`);
    });
    child.on('close', (code, signal) => {
      this.report(this.parser.end());
      const exit = code ?? (signal ? 128 : 1);
      this.write(`\n\x1b[2mAgentJet: launcher exited with code ${exit}${signal ? ` (${signal})` : ''}\x1b[0m\n`);
      this.closeEmitter.fire(exit);
    });
  }

  handleInput(data: string): void {
    // Ctrl+C interrupts the launcher's group, as in a shell.
    if (data === '\x03' && this.child?.pid) { try { process.kill(-this.child.pid, 'SIGINT'); } catch { /* gone */ } }
  }

  close(): void {
    // Terminate Task / closing the terminal: end the launcher tree; companions stay up.
    void this.stop();
  }

  private async stop(): Promise<void> {
    const pid = this.child?.pid;
    if (!pid || this.child?.exitCode !== null) return;
    const procs = await listProcesses();
    const spare = this.run.cwd ? readCompanions(companionFolder(this.run.cwd, this.run.expDir)).map((c) => c.pgid) : [];
    await terminate(planKill(procs, [pid], [pid], spare), 2000);
  }

  private write(text: string): void {
    this.writeEmitter.fire(text.replace(/\r?\n/g, '\r\n'));
  }

  private report(found: readonly { file: string; line: number; message: string; severity: 'error' | 'warning' }[]): void {
    for (const p of found) {
      const list = this.byFile.get(p.file) ?? [];
      const line = Math.max(0, p.line - 1);
      const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), p.message,
        p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error);
      d.source = 'agentjet';
      list.push(d);
      this.byFile.set(p.file, list);
      this.diagnostics.set(vscode.Uri.file(p.file), list);
    }
  }
}
