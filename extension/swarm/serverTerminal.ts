// The terminal of a swarm server the editor started (Start Local Swarm Server). The process is a
// launch like any other the extension starts: its life is the launch owner's (core/launch/owner.ts):
// its own process group, a Stop (Terminate Task, closing the terminal, Ctrl+C, Stop Server) that
// ends the whole tree, polite then forced, and the watchdog that ends it when the extension host
// goes away. What its children start in groups of their own (Ray, vLLM) goes with it; the debug
// companions of the folder are spared. The terminal only shows the output.
import * as vscode from 'vscode';
import type { ChildProcess } from 'node:child_process';
import { LaunchOwner, LaunchStopped } from '../../core/launch/owner';
import { shellCommand } from '../../core/process/quote';

export interface OwnedCommand {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export class OwnedProcessTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  readonly owner = new LaunchOwner();
  private child: ChildProcess | undefined;
  private closed = false;

  constructor(private readonly cmd: OwnedCommand) {
    this.owner.configure({ cwd: cmd.cwd, env: cmd.env, autokill: false });
  }

  open(): void {
    const { command, args, cwd, env } = this.cmd;
    this.write(`\x1b[2m${shellCommand([command, ...args])}  (cwd ${cwd})\x1b[0m\n`);
    let child: ChildProcess;
    try {
      child = this.owner.spawn(command, args, { cwd, env });
    } catch (e) {
      if (!(e instanceof LaunchStopped)) this.write(`${vscode.l10n.t('AgentJet: cannot start {0}: {1}', command, errorText(e))}\n`);
      this.finish(1);
      return;
    }
    this.child = child;
    this.owner.running();
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (t: string) => this.write(t));
    child.stderr?.on('data', (t: string) => this.write(t));
    child.on('error', (e: NodeJS.ErrnoException) => {
      this.write(
        `${e.code === 'ENOENT' ? vscode.l10n.t('AgentJet: the interpreter {0} does not exist (set agentjet.pythonPath)', command) : vscode.l10n.t('AgentJet: cannot start {0}: {1}', command, e.message)}\n`,
      );
    });
    child.on('close', (code, signal) => {
      // The server ended by itself (or was stopped): what it left behind in groups of its own goes too.
      void this.owner.end().finally(() => {
        this.write(`\n\x1b[2m${vscode.l10n.t('AgentJet: the swarm server exited with code {0}', signal ?? code ?? 1)}\x1b[0m\n`);
        this.finish(code ?? 1);
      });
    });
  }

  handleInput(data: string): void {
    if (data === '\x03') void this.owner.stop();
  }

  close(): void {
    // Terminate Task / closing the terminal: the whole tree ends.
    void this.owner.stop().finally(() => {
      if (!this.child) this.finish(1);
    });
  }

  private finish(code: number): void {
    if (this.closed) return;
    this.closed = true;
    this.closeEmitter.fire(code);
  }

  private write(text: string): void {
    this.writeEmitter.fire(text.replace(/\r?\n/g, '\r\n'));
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
