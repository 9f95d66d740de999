// The first stage's log: lines appended to a small file in the extension's log folder, not an
// output channel (a channel costs the extension host several MB, too much for a window without
// AgentJet). When the full extension loads, the channel is made and the lines so far are copied in.
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type * as vscode from 'vscode';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Local time as VS Code's own logs write it (`2026-01-05 09:00:00.123`). */
function stamp(d = new Date()): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export class FirstStageLog {
  private readonly lines: string[] = [];
  private channel: vscode.LogOutputChannel | undefined;
  private writing: Promise<unknown> = Promise.resolve();

  /** `dir`: the extension's log folder (`context.logUri`), when it is on disk. */
  constructor(private readonly dir: string | undefined) {
    if (dir) this.writing = mkdir(dir, { recursive: true }).catch(() => undefined);
  }

  info(message: string): void {
    this.write('info', message);
  }

  warn(message: string): void {
    this.write('warning', message);
  }

  private write(level: 'info' | 'warning', message: string): void {
    if (this.channel) {
      if (level === 'info') this.channel.info(message);
      else this.channel.warn(message);
      return;
    }
    const line = `${stamp()} [${level}] ${message}`;
    this.lines.push(line);
    const dir = this.dir;
    if (dir) this.writing = this.writing.then(() => appendFile(join(dir, 'first-stage.AgentJet.log'), `${line}\n`)).catch(() => undefined);
  }

  /** From now on the lines go to `channel` (the full extension's), which gets the earlier ones first. */
  useChannel(channel: vscode.LogOutputChannel): void {
    for (const line of this.lines.splice(0)) channel.info(`(first stage) ${line}`);
    this.channel = channel;
  }
}
