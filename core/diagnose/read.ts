// Bounded reading of one log for the classifier: a file up to `maxBytes` whole, a larger one from
// its last `maxBytes` on (where a crash is), with the line numbers of the whole file when the
// skipped part is small enough to count its newlines (COUNT_LIMIT), else counted from the tail.
import type { RunsFs } from '../fs/seam';
import { Classifier, type ClassifyOptions } from './classify';
import type { Cause, CauseSource } from './types';

export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
/** Newlines of a skipped head are counted up to this many bytes (4 MB reads). */
export const COUNT_LIMIT = 256 * 1024 * 1024;
const CHUNK = 4 * 1024 * 1024;

export interface FileRead {
  file: string;
  source: CauseSource;
  size: number;
  fromByte: number;
  bytes: number;
  causes: Cause[];
  ajetDirs: string[];
}

async function countNewlines(fs: RunsFs, path: string, end: number): Promise<number> {
  let n = 0;
  for (let at = 0; at < end; at += CHUNK) {
    const buf = await fs.readRange(path, at, Math.min(CHUNK, end - at));
    for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) n++;
    if (buf.length === 0) break;
  }
  return n;
}

/** Classifies one file, reading at most `maxBytes` of it (plus newline counting). Throws when it cannot be read. */
export async function classifyFile(
  fs: RunsFs,
  path: string,
  source: CauseSource,
  opts: ClassifyOptions & { maxBytes?: number } = {},
): Promise<FileRead> {
  const max = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const st = await fs.stat(path);
  if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  const size = st.size;
  const from = Math.max(0, size - max);
  const buf = await fs.readRange(path, from, size - from);
  let start = 0;
  let first = 1;
  let base: 'file' | 'tail' = 'file';
  if (from > 0) {
    // Start at a whole line: after the first newline of the window.
    const nl = buf.indexOf(10);
    start = nl < 0 ? buf.length : nl + 1;
    if (from + start <= COUNT_LIMIT) first = (await countNewlines(fs, path, from)) + (nl < 0 ? 0 : 1) + 1;
    else base = 'tail';
  }
  const c = new Classifier(opts);
  let n = first;
  for (let at = start; at < buf.length;) {
    let end = buf.indexOf(10, at);
    if (end < 0) end = buf.length;
    c.line(buf.toString('utf8', at, Math.min(end, at + 64 * 1024)), n++);
    at = end + 1;
  }
  const causes = c.causes().map((k) => {
    const out: Cause = { ...k, file: path, source };
    if (from > 0) {
      out.fromByte = from + start;
      if (base === 'tail') out.lineBase = 'tail';
    }
    return out;
  });
  return { file: path, source, size, fromByte: from + start, bytes: buf.length - start, causes, ajetDirs: [...c.ajetDirs] };
}
