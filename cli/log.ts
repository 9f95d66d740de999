// `agentjet log stats|export`: token log statistics and per-timeline JSONL export, streaming.
import { createWriteStream, existsSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { CliCommand } from './commands';
import { LogSession } from '../core/logs/session';
import { computeStats, exportRow, formatStats } from '../core/logs/stats';

const HELP = `Usage:
  agentjet log stats <file.json.log> [--format text|json] [--no-siblings]
  agentjet log export <file.json.log> --jsonl [--out <file>] [--no-siblings]

stats    records, timelines, tokens, trained tokens, records and mean reward per step,
         corrupt records
export   one JSON line per timeline: record, task, step, reward, outcome, timeline, advantage,
         raw_reward, step_reward, len_prompt, len_response, tokens, ids, logprobs, mask
         (mask: 1 trained, 0 context, -1 unknown). Read it with pandas.read_json(f, lines=True).

Loguru-rotated siblings (<name>.json.<time>.log) are read first, in time order, unless
--no-siblings is given.
`;

function write(out: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.write(text)) { resolve(); return; }
    const onDrain = () => { out.off('error', onError); resolve(); };
    const onError = (e: Error) => { out.off('drain', onDrain); reject(e); };
    out.once('drain', onDrain);
    out.once('error', onError);
  });
}

export const logCommand: CliCommand = {
  name: 'log',
  summary: 'token log (.json.log) statistics and JSONL export',
  async run(args: string[]): Promise<number> {
    const [sub, ...rest] = args;
    if (!sub || sub === '-h' || sub === '--help' || rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(HELP);
      return sub ? 0 : 2;
    }
    const flags = new Set(rest.filter((a) => a.startsWith('--')));
    const valueOf = (name: string): string | undefined => {
      const i = rest.indexOf(name);
      return i >= 0 ? rest[i + 1] : undefined;
    };
    const positional = rest.filter((a, i) => !a.startsWith('--') && !['--format', '--out'].includes(rest[i - 1] ?? ''));
    const file = positional[0];
    if (!file) { process.stderr.write(`agentjet log ${sub}: missing <file>\n${HELP}`); return 2; }
    if (!existsSync(file) || !statSync(file).isFile()) { process.stderr.write(`agentjet log: no such file: ${file}\n`); return 2; }
    const session = new LogSession(file, { siblings: !flags.has('--no-siblings'), cacheSize: 1 });
    await session.update();

    if (sub === 'stats') {
      const format = valueOf('--format') ?? 'text';
      if (format !== 'text' && format !== 'json') { process.stderr.write(`agentjet log stats: --format must be text or json\n`); return 2; }
      const st = await computeStats(session);
      process.stdout.write(format === 'json' ? JSON.stringify(st, null, 2) + '\n' : formatStats(st));
      return 0;
    }

    if (sub === 'export') {
      if (!flags.has('--jsonl')) { process.stderr.write('agentjet log export: only --jsonl is supported; pass it explicitly\n'); return 2; }
      const outPath = valueOf('--out');
      const out: Writable = outPath ? createWriteStream(outPath) : process.stdout;
      // A closed pipe (`| head`) ends the export quietly.
      let closed = false;
      out.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') closed = true; else process.stderr.write(`agentjet log export: ${e.message}\n`); });
      let rows = 0, corrupt = 0;
      for (let i = 0; i < session.count; i++) {
        const r = await session.record(i);
        if (closed) return 0;
        if (!r?.ok) { corrupt++; continue; }
        for (const t of r.record.timelines) {
          await write(out, JSON.stringify(exportRow(i, r.record, t)) + '\n');
          rows++;
        }
      }
      if (outPath) await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
      process.stderr.write(`exported ${rows} timelines from ${session.count} records${corrupt ? ` (${corrupt} corrupt records skipped)` : ''}\n`);
      return 0;
    }

    process.stderr.write(`agentjet log: unknown subcommand '${sub}'\n${HELP}`);
    return 2;
  },
};
