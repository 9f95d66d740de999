// `agentjet log stats|export|search`: token log statistics, per-timeline JSONL export and text
// search over a log (with its rotated siblings) or a whole run folder, streaming, on all cores.
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { specialKind } from '../core/config/fileKind';
import { applyMaxRecordMb } from './maxRecord';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { statsFromFacts, formatStats } from '../core/logs/stats';
import { FactsCache, defaultCacheDir } from '../core/logs/cache';
import { allTasks, collectFacts, findRunLogs, openLogs, searchTasks } from '../core/logs/wholelog';
import { envWorkers, maxWorkers, runTasks, TASK_BYTES } from '../core/logs/pool';
import { FileChangedError } from '../core/logs/jobs';
import { t } from '../core/l10n';

const help = () =>
  t(`Usage:
  agentjet log stats  <file.json.log | run folder> [--format text|json]
  agentjet log export <file.json.log | run folder> --jsonl [--out <file>]
  agentjet log search <file.json.log | run folder> <text> [--format text|json]

Options:
  --no-siblings     read only the given file, not its loguru-rotated siblings
  --mod <name>      with a run folder: which log (default: rollout)
  --workers <n>     worker threads (default: one per core, as free memory allows; 0 = none;
                    never more than that, nor AGENTJET_LOG_WORKERS)
  --no-cache        neither read nor write the facts cache
  --cache-dir <d>   where the facts cache lives (default: $AGENTJET_CACHE_DIR or ~/.cache/agentjet/tokenlog)
  --max-record-mb <n>  the most one record's payload may inflate to (default 64; also
                    $AGENTJET_MAX_RECORD_MB): a larger record is reported with its offset and
                    skipped, the other records are read

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

/** Same file: one real path, or one inode on one device (a hard link). */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [ra, rb] = await Promise.all([realpath(a).catch(() => undefined), realpath(b).catch(() => undefined)]);
  if (ra !== undefined && ra === rb) return true;
  const [sa, sb] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
  return !!sa && !!sb && sa.ino === sb.ino && sa.dev === sb.dev;
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
    const parsed = commandArgs(
      `log ${sub}`,
      rest,
      {
        format: { type: 'string', choices: ['text', 'json'] },
        out: { type: 'string' },
        jsonl: { type: 'boolean' },
        'no-siblings': { type: 'boolean' },
        mod: { type: 'string' },
        workers: { type: 'string' },
        'no-cache': { type: 'boolean' },
        'cache-dir': { type: 'string' },
        'max-record-mb': { type: 'string' },
      },
      help,
    );
    if (typeof parsed === 'number') return parsed;
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
    // A FIFO would block the reader, /dev/zero never ends: only files and folders are logs.
    const special = specialKind(statSync(target));
    if (special) {
      process.stderr.write(`agentjet log ${sub}: ${t('{0} is {1}, not a log file or a run folder', target, special)}\n`);
      return 2;
    }
    if (!applyMaxRecordMb(v['max-record-mb'], `agentjet log ${sub}`, (m) => process.stderr.write(m))) return 2;
    const format = v.format ?? 'text';
    if (format !== 'text' && format !== 'json') {
      process.stderr.write(`agentjet log ${sub}: ${t('--format must be text or json')}\n`);
      return 2;
    }
    let workers: number | undefined;
    if (v.workers !== undefined) {
      workers = Number(v.workers);
      if (!Number.isInteger(workers) || workers < 0 || workers > 1024) {
        process.stderr.write(`agentjet log ${sub}: ${t('--workers must be a whole number from 0 to 1024')}\n`);
        return 2;
      }
    }
    // More threads than cores (and than memory holds) only cost memory and time: capped, and said.
    const asked = workers ?? envWorkers();
    const cap = maxWorkers();
    if (asked !== undefined && asked > cap) {
      process.stderr.write(
        `agentjet log ${sub}: ${t('{0} worker threads asked for ({1}); this machine has room for {2} (cores and free memory): {2} are used', asked, workers !== undefined ? '--workers' : 'AGENTJET_LOG_WORKERS', cap)}\n`,
      );
      workers = cap;
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
    try {
      return await runSub(sub, v, positionals, mains, format, workers);
    } catch (err) {
      if (!(err instanceof FileChangedError)) throw err;
      process.stderr.write(`agentjet log ${sub}: ${err.message}\n`);
      return 1;
    }
  },
};

type LogValues = {
  out?: string;
  jsonl?: boolean;
  'no-siblings'?: boolean;
  'no-cache'?: boolean;
  'cache-dir'?: string;
};

async function runSub(
  sub: string,
  v: LogValues,
  positionals: string[],
  mains: string[],
  format: string,
  workers: number | undefined,
): Promise<number> {
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
  // The output is never one of the files read (it would be replaced mid-read), and it is
  // written beside its final name and renamed there only once complete.
  let outPath: string | undefined, tmpPath: string | undefined;
  if (v.out) {
    for (const ix of opened.indexes)
      for (const f of ix.files)
        if (await sameFile(v.out, f.path)) {
          process.stderr.write(`agentjet log export: ${t('--out {0} is the log being read ({1}); choose another file', v.out, f.path)}\n`);
          return 2;
        }
    outPath = await realpath(v.out).catch(() => v.out!);
    // A device or a pipe (/dev/null, a FIFO) is written to as it is: a temp file renamed over it
    // would replace the device node with a regular file (and write the whole export to disk).
    const st = await stat(outPath).catch(() => undefined);
    if (st?.isDirectory()) {
      process.stderr.write(`agentjet log export: ${t('--out {0} is a folder; name a file in it', v.out)}\n`);
      return 2;
    }
    if (!st || st.isFile()) tmpPath = join(dirname(outPath), `.${basename(outPath)}.${process.pid}.tmp`);
  }
  const out: Writable = tmpPath
    ? createWriteStream(tmpPath, { flags: 'wx' })
    : outPath
      ? createWriteStream(outPath, { flags: 'w' })
      : process.stdout;
  // A closed pipe (`| head`) ends the export quietly.
  let closed = false;
  const ac = new AbortController();
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') closed = true;
    else process.stderr.write(`agentjet log export: ${e.message}\n`);
    ac.abort();
  });
  let rows = 0,
    corrupt = 0,
    errorsShown = 0;
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
        // Why records were skipped (a bomb: too large, where it is), the first few.
        for (const e of r.chunk.errors) if (errorsShown++ < 10) process.stderr.write(`  #${e.index}: ${e.error}\n`);
        if (r.chunk.lines.byteLength) await write(out, r.chunk.lines);
      },
      { workers, signal: ac.signal, reuseExportBuffers: true },
    );
  } catch (err) {
    if (outPath) out.destroy();
    if (tmpPath) await unlink(tmpPath).catch(() => undefined);
    if (closed) return 0;
    throw err;
  }
  if (outPath) await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  if (tmpPath && outPath) await rename(tmpPath, outPath);
  const records = opened.indexes.reduce((a, ix) => a + ix.count, 0);
  process.stderr.write(
    `${corrupt ? t('exported {0} timelines from {1} records ({2} corrupt records skipped)', rows, records, corrupt) : t('exported {0} timelines from {1} records', rows, records)}\n`,
  );
  return 0;
}
