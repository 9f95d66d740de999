// `agentjet log stats|export|search`: token log statistics, per-timeline JSONL export and text
// search over a log (with its rotated siblings) or a whole run folder, streaming, on all cores.
import { createWriteStream, existsSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { CliCommand } from './commands';
import { statsFromFacts, formatStats } from '../core/logs/stats';
import { FactsCache, defaultCacheDir } from '../core/logs/cache';
import { allTasks, collectFacts, findRunLogs, openLogs, searchTasks } from '../core/logs/wholelog';
import { runTasks, TASK_BYTES } from '../core/logs/pool';
import { t } from '../core/l10n';

const help = () =>
  t(`Usage:
  agentjet log stats  <file.json.log | run folder> [--format text|json]
  agentjet log export <file.json.log | run folder> --jsonl [--out <file>]
  agentjet log search <file.json.log | run folder> <text> [--format text|json]

Options:
  --no-siblings     read only the given file, not its loguru-rotated siblings
  --mod <name>      with a run folder: which log (default: rollout)
  --workers <n>     worker threads (default: the cores, at most 4; 0 = none)
  --no-cache        neither read nor write the facts cache
  --cache-dir <d>   where the facts cache lives (default: $AGENTJET_CACHE_DIR or ~/.cache/agentjet/tokenlog)

stats    records, timelines, tokens, trained tokens, records and mean reward per step,
         corrupt records. A second run on an unchanged file reads the cache only.
export   one JSON line per timeline: record, task, step, reward, outcome, timeline, advantage,
         raw_reward, step_reward, len_prompt, len_response, tokens, ids, logprobs, mask
         (mask: 1 trained, 0 context, -1 unknown). Read it with pandas.read_json(f, lines=True).
search   records whose token text, title or task id contains <text> (case-insensitive, on the
         decoded text): one line per record with the first match's timeline, token and offset.

A run folder (saved_experiments/<exp>/<time>, or one host folder in it) is read host by host
(folder name order), each log's rotated files oldest first. Loguru-rotated siblings
(<name>.json.<time>.log) are read before the live file unless --no-siblings is given.
`);

/**
 * Writes `data` and waits until the stream is done with it (its buffer is then reused for later
 * lines); a closed pipe counts as done (the stream's 'error' handler ends the export).
 */
function write(out: Writable, data: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    out.write(data, (e?: Error | null) => {
      if (e && (e as NodeJS.ErrnoException).code !== 'EPIPE') reject(e);
      else resolve();
    });
  });
}

export const logCommand: CliCommand = {
  name: 'log',
  summary: 'token log (.json.log) statistics, JSONL export and search, for a file or a run folder',
  async run(args: string[]): Promise<number> {
    const [sub, ...rest] = args;
    if (!sub || sub === '-h' || sub === '--help' || rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(help());
      return sub ? 0 : 2;
    }
    if (!['stats', 'export', 'search'].includes(sub)) {
      process.stderr.write(`agentjet log: ${t("unknown subcommand '{0}'", sub)}\n${help()}`);
      return 2;
    }
    let parsed;
    try {
      parsed = parseArgs({
        args: rest,
        allowPositionals: true,
        strict: true,
        options: {
          format: { type: 'string' },
          out: { type: 'string' },
          jsonl: { type: 'boolean' },
          'no-siblings': { type: 'boolean' },
          mod: { type: 'string' },
          workers: { type: 'string' },
          'no-cache': { type: 'boolean' },
          'cache-dir': { type: 'string' },
        },
      });
    } catch (err) {
      process.stderr.write(`agentjet log ${sub}: ${err instanceof Error ? err.message : String(err)}\n${help()}`);
      return 2;
    }
    const { values: v, positionals } = parsed;
    const target = positionals[0];
    if (!target) {
      process.stderr.write(`agentjet log ${sub}: ${t('missing <file> or <run folder>')}\n${help()}`);
      return 2;
    }
    if (!existsSync(target)) {
      process.stderr.write(`agentjet log: ${t('no such file or folder: {0}', target)}\n`);
      return 2;
    }
    const format = v.format ?? 'text';
    if (format !== 'text' && format !== 'json') {
      process.stderr.write(`agentjet log ${sub}: ${t('--format must be text or json')}\n`);
      return 2;
    }
    let workers: number | undefined;
    if (v.workers !== undefined) {
      workers = Number(v.workers);
      if (!Number.isInteger(workers) || workers < 0 || workers > 64) {
        process.stderr.write(`agentjet log ${sub}: ${t('--workers must be a whole number from 0 to 64')}\n`);
        return 2;
      }
    }
    let mains: string[];
    if (statSync(target).isDirectory()) {
      const mod = v.mod ?? 'rollout';
      mains = await findRunLogs(target, mod);
      if (!mains.length) {
        process.stderr.write(`agentjet log: ${t('no {0}.json.log under {1} (is it a run folder? try --mod <name>)', mod, target)}\n`);
        return 2;
      }
    } else {
      mains = [target];
    }
    const cache = v['no-cache'] ? undefined : new FactsCache(v['cache-dir'] ?? defaultCacheDir());
    const opened = await openLogs(mains, { siblings: !v['no-siblings'], cache: sub === 'stats' ? cache : undefined });

    if (sub === 'stats') {
      const facts = await collectFacts(opened, { cache, workers });
      const st = statsFromFacts(opened, facts);
      process.stdout.write(format === 'json' ? JSON.stringify(st, null, 2) + '\n' : formatStats(st));
      return 0;
    }

    if (sub === 'search') {
      const text = positionals[1];
      if (text === undefined || text === '') {
        process.stderr.write(`agentjet log search: ${t('missing <text>')}\n`);
        return 2;
      }
      const { counts } = await searchTasks(allTasks(opened), text, {
        workers,
        onHits: (hits) => {
          for (const h of hits) {
            process.stdout.write(
              format === 'json'
                ? JSON.stringify(h) + '\n'
                : `#${h.index}  ${h.where}${h.timeline !== undefined ? `  timeline ${h.timeline} token ${h.token} +${h.char}` : ''}  ${h.matches} match${h.matches === 1 ? '' : 'es'}\n`,
            );
          }
        },
      });
      process.stderr.write(`${t('{0} records match ({1} matches in token text) of {2}', counts.hits, counts.matches, counts.total)}\n`);
      return 0;
    }

    if (!v.jsonl) {
      process.stderr.write(`agentjet log export: ${t('only --jsonl is supported; pass it explicitly')}\n`);
      return 2;
    }
    const out: Writable = v.out ? createWriteStream(v.out) : process.stdout;
    // A closed pipe (`| head`) ends the export quietly.
    let closed = false;
    const ac = new AbortController();
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') closed = true;
      else process.stderr.write(`agentjet log export: ${e.message}\n`);
      ac.abort();
    });
    let rows = 0,
      corrupt = 0;
    try {
      // Export output is about twice its input: tasks of half the usual size keep the lines in
      // flight (two tasks per worker at most) small.
      await runTasks(
        allTasks(opened, TASK_BYTES / 2),
        { kind: 'export' },
        async (r) => {
          if (r.kind !== 'export' || closed) return;
          rows += r.chunk.rows;
          corrupt += r.chunk.corrupt;
          if (r.chunk.lines.byteLength) await write(out, r.chunk.lines);
        },
        { workers, signal: ac.signal, reuseExportBuffers: true },
      );
    } catch (err) {
      if (closed) return 0;
      throw err;
    }
    if (v.out) await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    const records = opened.indexes.reduce((a, ix) => a + ix.count, 0);
    process.stderr.write(
      `${corrupt ? t('exported {0} timelines from {1} records ({2} corrupt records skipped)', rows, records, corrupt) : t('exported {0} timelines from {1} records', rows, records)}\n`,
    );
    return 0;
  },
};
