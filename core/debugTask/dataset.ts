// Reading a user's JSONL dataset to find one task, safely: the files are streamed line by line
// with a cap on a line's length (a 600 MB single line, or a file of zeros, gets a clear message
// instead of a string that cannot be built), only regular files are opened (a FIFO would block
// forever, /dev/zero never ends), and missing files are named. Cost: linear in the bytes read.
import { constants as fsc, statSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { t } from '../l10n';

/** The longest line read as one task record (AgentJet's tasks are a few KB; 32 MB is generous). */
export const MAX_TASK_LINE_BYTES = 32 * 1024 * 1024;

/** What a path is when it is not a regular file, in words ("a named pipe (FIFO)"), else undefined. */
export function notRegular(st: Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isFIFO()) return t('a named pipe (FIFO)');
  if (st.isCharacterDevice() || st.isBlockDevice()) return t('a device');
  if (st.isSocket()) return t('a socket');
  if (st.isDirectory()) return t('a folder');
  return t('not a regular file');
}

/** Why `path` cannot be read as a file (missing, a FIFO, a device...), or undefined when it can. */
export function fileProblem(path: string): string | undefined {
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return t('{0} does not exist', path);
  }
  const what = notRegular(st);
  return what ? t('{0} is {1}, not a file', path, what) : undefined;
}

export type TaskSearch =
  { found: Record<string, unknown> } | { found?: undefined; anyIds: boolean } | { found?: undefined; problem: string };

/**
 * Finds the record whose task_id is `id` in JSONL files (first match wins), as AgentJet's
 * JsonlTaskReader reads them (`task_id = task_data.get("task_id", "")`). A problem with a file
 * (missing, not a regular file, a line past `maxLine`) is returned in words, naming the file.
 */
export async function searchJsonlTask(files: readonly string[], id: string, maxLine = MAX_TASK_LINE_BYTES): Promise<TaskSearch> {
  const missing = files.filter((f) => fileProblem(f) !== undefined);
  if (missing.length) return { problem: missing.map((f) => fileProblem(f)!).join('; ') };
  let anyIds = false;
  for (const f of files) {
    // Opened without blocking and checked again: a file swapped for a FIFO since the stat is refused.
    const fh = await open(f, fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0));
    try {
      const st = await fh.stat();
      const what = notRegular(st);
      if (what) return { problem: t('{0} is {1}, not a file', f, what) };
      const buf = Buffer.allocUnsafe(1 << 20);
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let lineNo = 0;
      let pos = 0;
      const onLine = (line: Buffer): Record<string, unknown> | undefined => {
        lineNo++;
        const text = line.toString('utf8');
        if (!text.trim()) return undefined;
        let obj: unknown;
        try {
          obj = JSON.parse(text);
        } catch {
          return undefined;
        }
        if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
        const rec = obj as Record<string, unknown>;
        if (rec.task_id !== undefined && rec.task_id !== '') anyIds = true;
        return String(rec.task_id ?? '') === id ? rec : undefined;
      };
      const tooLong = () => ({
        problem: t(
          'Line {0} of {1} is longer than {2} MB: not a task record (is it a JSONL dataset?)',
          lineNo + 1,
          f,
          maxLine / (1024 * 1024),
        ),
      });
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        let start = 0;
        for (;;) {
          const nl = buf.indexOf(10, start);
          if (nl < 0 || nl >= bytesRead) break;
          if (pendingBytes + nl - start > maxLine) return tooLong();
          const line = pendingBytes ? Buffer.concat([...pending, buf.subarray(start, nl)]) : buf.subarray(start, nl);
          pending = [];
          pendingBytes = 0;
          const hit = onLine(line);
          if (hit) return { found: hit };
          start = nl + 1;
        }
        if (start < bytesRead) {
          pendingBytes += bytesRead - start;
          if (pendingBytes > maxLine) return tooLong();
          pending.push(Buffer.from(buf.subarray(start, bytesRead)));
        }
      }
      if (pendingBytes) {
        const hit = onLine(Buffer.concat(pending));
        if (hit) return { found: hit };
      }
    } finally {
      await fh.close();
    }
  }
  return { anyIds };
}

/**
 * A file-name part from any text: unsafe characters replaced, at most 40 characters kept, and a
 * hash of the original added whenever anything was replaced or cut, so two different texts never
 * give one name (`a/b` and `a?b` both read `a-b`, and differ by their suffix).
 */
export function uniqueNamePart(s: string): string {
  const safe = s.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 40);
  if (safe === s && s) return s;
  const hash = createHash('sha256').update(s).digest('hex').slice(0, 12);
  return `${safe || 'task'}-${hash}`;
}
