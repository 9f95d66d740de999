// distinctFiles: one entry per file however it is reached (a symlinked folder, `..`), order kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distinctFiles } from '../../core/fs/canonical';

test('distinctFiles keeps the first path of each real file; paths off this disk and missing files stay', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-canon-'));
  try {
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'a.yaml'), 'ajet: {}\n');
    writeFileSync(join(dir, 'real', 'b.yaml'), 'ajet: {}\n');
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    const items = [
      { p: join(dir, 'linked', 'a.yaml') },
      { p: join(dir, 'real', 'a.yaml') },
      { p: join(dir, 'real', '..', 'real', 'b.yaml') },
      { p: join(dir, 'real', 'b.yaml') },
      { p: undefined },
      { p: undefined },
      { p: join(dir, 'gone.yaml') },
      { p: join(dir, 'real', '..', 'gone.yaml') },
    ];
    const kept = await distinctFiles(items, (i) => i.p);
    assert.deepEqual(kept, [items[0], items[2], items[4], items[5], items[6]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
