// Issue 43 item 8, as a user drives it: on a long timeline (2,515 tokens, the first trained one at
// token 821), `n` (next trained segment) moves the cursor far below what is drawn; the pane must show
// it at once, not stay blank until the mouse scrolls. Screenshot: test-output/tokenlog-next-segment.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { openWorkbench } from '../harness/workbench';
import { agentjetRecord } from '../util/tokenlogs';

test('token log: `n` on a 2,515-token timeline shows the trained segment at token 821 in the pane', async () => {
  const wb = await openWorkbench();
  try {
    const dir = join(wb.workspace, 'long_timeline');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'long.json.log');
    // Multi-line context tokens, so the prompt alone is many screens tall.
    const words = Array.from({ length: 2515 }, (_, i) => (i < 821 ? (i % 12 === 11 ? ` ctx${i}\n` : ` ctx${i}`) : ` out${i}`));
    writeFileSync(file, agentjetRecord(1, 'long_task', words, { prompt: 821 }));
    await wb.openFile(relative(wb.workspace, file));
    const frame = await wb.webviewFrame('#root:has(.bar .title:text-is("long.json.log")) .viewport .row[data-pos]', 60_000);
    await frame.locator('.viewport .row[data-pos]').first().click();
    await frame.locator('.tokens').first().waitFor({ state: 'visible', timeout: 30_000 });
    await frame.locator('.tokens').focus();
    await wb.page.keyboard.press('n');
    const cursor = frame.locator('.tokens span.cursor');
    await cursor.waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await cursor.innerText(), /out821/);
    // Drawn inside the pane's visible part, not only present somewhere below it.
    const pane = await frame
      .locator('.tokens')
      .first()
      .evaluate((el) => {
        let s: HTMLElement | null = el as HTMLElement;
        while (s && s.scrollHeight <= s.clientHeight) s = s.parentElement;
        const box = (s ?? (el as HTMLElement)).getBoundingClientRect();
        return { top: box.top, bottom: box.bottom };
      });
    const at = await cursor.boundingBox();
    assert.ok(at, 'the cursor token has a box');
    // boundingBox is in page coordinates; the frame's own offset is the same for both numbers' origin check.
    const frameTop = (await (await frame.frameElement()).boundingBox())?.y ?? 0;
    const y = at.y - frameTop;
    assert.ok(y >= pane.top - 1 && y + at.height <= pane.bottom + 1, `token 821 at ${y} within the pane ${pane.top}-${pane.bottom}`);
    await wb.screenshot('tokenlog-next-segment');
  } finally {
    await wb.close();
  }
});
