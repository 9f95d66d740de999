// `--max-record-mb N`, the bound on one token-log record's inflated payload, for every subcommand
// that reads token logs (`agentjet log`, `agentjet mcp`): checked the same way, and set for this
// process and the workers it starts (AGENTJET_MAX_RECORD_MB, read by core/logs/inflate.ts).
import { getHeapStatistics } from 'node:v8';
import { DECODE_COST_FACTOR, honourableRecordBytes } from '../core/logs/inflate';
import { t } from '../core/l10n';

/** Applies the flag's value (none: nothing changes). False when it is refused (said through `err`; exit 2). */
export function applyMaxRecordMb(value: string | undefined, who: string, err: (s: string) => void): boolean {
  if (value === undefined) return true;
  const mb = Number(value);
  if (!Number.isFinite(mb) || mb <= 0 || mb > 4096) {
    err(`${who}: ${t('--max-record-mb must be a number from 1 to 4096')}\n`);
    return false;
  }
  // A bound the heap cannot hold is not honoured: said once, and the largest that fits is used.
  const fits = honourableRecordBytes() / (1024 * 1024);
  if (mb > fits) {
    err(
      `${who}: ${t(
        '--max-record-mb {0} is more than this process can decode (a record costs up to {1} times its size, in a heap of {2} MB): records up to {3} MB are read. NODE_OPTIONS=--max-old-space-size=<MB> raises the heap.',
        String(mb),
        String(DECODE_COST_FACTOR),
        String(Math.round(getHeapStatistics().heap_size_limit / (1024 * 1024))),
        String(fits),
      )}\n`,
    );
  }
  // The workers read it from the environment they inherit.
  process.env.AGENTJET_MAX_RECORD_MB = String(Math.min(mb, fits));
  return true;
}
