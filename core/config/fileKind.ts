// What a path that is not a regular file is, in words, for the messages that refuse it or say why
// it was not read (`agentjet log`, the facts of a user's AgentJet whose defaults file is a FIFO).
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { t } from '../l10n';

/** "a named pipe (FIFO)", "a socket", ...; undefined for a file or a folder. */
export function specialKind(st: Stats): string | undefined {
  if (st.isFile() || st.isDirectory()) return undefined;
  if (st.isFIFO()) return t('a named pipe (FIFO)');
  if (st.isCharacterDevice()) return t('a character device');
  if (st.isBlockDevice()) return t('a block device');
  if (st.isSocket()) return t('a socket');
  return t('not a regular file');
}

/** Why the defaults file of a found AgentJet gave nothing (stat only: a FIFO is never opened). */
export async function unreadDefaults(path: string): Promise<string> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (err) {
    return t('{0} could not be read ({1})', path, (err as NodeJS.ErrnoException).code ?? String(err));
  }
  const kind = st.isFile() ? undefined : (specialKind(st) ?? t('a folder'));
  if (kind) return t('{0} is {1}, not a regular file', path, kind);
  return t('nothing could be read from the AgentJet at {0}', path);
}
