// The token log viewer's reading of one log, without the editor (what extension/logs does through
// LogSession): index, list summaries, whole-record facts on worker threads, then every record
// opened in turn. Prints what the viewer would show for records that do not open. Used by
// bench/bombs.ts under /usr/bin/time.
//   node --import tsx bench/bomb-viewer.ts <file.json.log>
import { LogSession } from '../core/logs/session';

async function main(): Promise<void> {
  const path = process.argv[2]!;
  const s = new LogSession(path, { siblings: false });
  await s.update();
  await s.summarize();
  await s.computeFacts();
  let ok = 0;
  for (let i = 0; i < s.count; i++) {
    const r = await s.record(i);
    if (r?.ok) ok++;
    else console.log(`#${i} "${s.row(i).title ?? ''}": ${r ? r.error : 'unreadable'}`);
  }
  console.log(`${ok} of ${s.count} records open`);
}

void main();
