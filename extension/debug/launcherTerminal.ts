// The terminal of an `agentjet` task: the launcher lifecycle of F5 (core/launch/lifecycle.ts: plan,
// preflight, the launcher the installed version has) then the launcher in its own process group;
// streams its output, turns tracebacks and config errors into Problems as they appear (our own
// parser, so they do not depend on terminal rendering), records the exit status and output beside
// the run, and on Terminate ends the whole tree except companions.
import * as vscode from 'vscode';
import { mergedEnv } from '../../core/launch/attributes';
import { spawn, type ChildProcess } from 'node:child_process';
import { OutputProblems } from '../../core/launch/problems';
import { listProcesses, planKill, terminate } from '../../core/launch/processes';
import { shellCommand } from '../../core/process/quote';
import type { ResolvedLaunch } from '../../core/launch/attributes';
import { commandLine, describeTarget, planLaunch, preflightLaunch, sparedGroups } from '../../core/launch/lifecycle';
import { existsSync } from 'node:fs';
import { LauncherOutputReader, logExperimentOf } from '../../core/launch/experiment';
import { LAUNCH_OUTPUT_MAX, writeLaunchRecord } from '../../core/agentjet';

export interface LauncherRun {
  launch: ResolvedLaunch;
  extra: { withRay?: boolean | undefined; withRayCluster?: boolean | undefined; debugTags?: readonly string[] | string | undefined };
  /** Recorded with the launch: 'task', 'codelens', ... */
  via: string;
}

export class LauncherTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private child: ChildProcess | undefined;
  private readonly parser = new OutputProblems();
  private readonly byFile = new Map<string, vscode.Diagnostic[]>();
  private closed = false;
  /** When the user asked to stop (Terminate Task, closing the terminal, Ctrl+C). */
  private stopRequestedMs: number | undefined;

  constructor(
    private readonly run: LauncherRun,
    private readonly diagnostics: vscode.DiagnosticCollection,
  ) {}

  open(): void {
    this.diagnostics.clear();
    void this.start();
  }

  private async start(): Promise<void> {
    const r = this.run.launch;
    const planned = await planLaunch(r);
    const pre = planned.ok ? await preflightLaunch(planned.plan, false) : planned;
    if (!pre.ok || !planned.ok) {
      this.write(`\x1b[31mAgentJet: ${pre.ok ? '' : pre.refusal.message}\x1b[0m\n`);
      this.closeEmitter.fire(1);
      return;
    }
    if (this.closed) return;
    for (const w of pre.warnings) this.write(`\x1b[33mAgentJet: ${w}\x1b[0m\n`);
    const cmd = commandLine(planned.plan, pre.target, this.run.extra);
    this.write(`\x1b[2m${shellCommand([cmd.command, ...cmd.args])}  (${describeTarget(pre.target)}; cwd ${r.cwd})\x1b[0m\n`);
    let child: ChildProcess;
    const startMs = Date.now();
    try {
      child = spawn(cmd.command, cmd.args, { cwd: r.cwd, env: planned.plan.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      this.write(`${vscode.l10n.t('AgentJet: cannot start {0}: {1}', cmd.command, (e as Error).message)}\n`);
      this.closeEmitter.fire(127);
      return;
    }
    this.child = child;
    const reader = new LauncherOutputReader();
    let output = '';
    const onData =
      (stream: string) =>
      (b: Buffer): void => {
        const text = b.toString();
        this.write(text);
        output += text;
        if (output.length > 2 * LAUNCH_OUTPUT_MAX) output = output.slice(-LAUNCH_OUTPUT_MAX);
        reader.push(text, stream);
        this.report(this.parser.push(text));
      };
    child.stdout?.on('data', onData('stdout'));
    child.stderr?.on('data', onData('stderr'));
    child.on('error', (e: NodeJS.ErrnoException) => {
      this.write(
        `${e.code === 'ENOENT' ? vscode.l10n.t('AgentJet: the interpreter {0} does not exist (set agentjet.pythonPath)', cmd.command) : vscode.l10n.t('AgentJet: {0}', e.message)}\n`,
      );
    });
    child.on('close', (code, signal) => {
      this.report(this.parser.end());
      const exit = code ?? (signal ? 128 : 1);
      const experiment = logExperimentOf(reader.info, r.cwd, existsSync, {
        ...(pre.layout ? { layout: pre.layout } : {}),
        args: r.args ?? [],
        env: planned.plan.env,
      });
      if (experiment) {
        try {
          writeLaunchRecord(
            experiment,
            {
              command: [cmd.command, ...cmd.args],
              cwd: r.cwd,
              config: r.config,
              experiment: reader.info.name ?? experiment,
              ...(child.pid ? { pid: child.pid } : {}),
              startMs,
              endMs: Date.now(),
              exitCode: code,
              signal: signal ?? null,
              via: this.run.via,
              ...(this.stopRequestedMs !== undefined ? { stopRequestedMs: this.stopRequestedMs } : {}),
            },
            output,
          );
        } catch (e) {
          this.write(`${vscode.l10n.t('AgentJet: could not record the launch in {0}: {1}', experiment, (e as Error).message)}\n`);
        }
      }
      this.write(
        `\n\x1b[2m${signal ? vscode.l10n.t('AgentJet: launcher exited with code {0} ({1})', exit, signal) : vscode.l10n.t('AgentJet: launcher exited with code {0}', exit)}\x1b[0m\n`,
      );
      this.closeEmitter.fire(exit);
    });
  }

  handleInput(data: string): void {
    // Ctrl+C interrupts the launcher's group, as in a shell.
    if (data === '\x03' && this.child?.pid) {
      this.stopRequestedMs ??= Date.now();
      try {
        process.kill(-this.child.pid, 'SIGINT');
      } catch {
        /* gone */
      }
    }
  }

  close(): void {
    // Terminate Task / closing the terminal: end the launcher tree; companions stay up.
    this.closed = true;
    void this.stop();
  }

  private async stop(): Promise<void> {
    const pid = this.child?.pid;
    if (!pid || this.child?.exitCode !== null) return;
    this.stopRequestedMs ??= Date.now();
    const procs = await listProcesses();
    const spare = sparedGroups(this.run.launch.cwd, false, mergedEnv(this.run.launch));
    await terminate(planKill(procs, [pid], [pid], spare), 2000);
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
