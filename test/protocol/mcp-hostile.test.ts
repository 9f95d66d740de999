// Issue 39, hostile input round 4, through the MCP SDK's own client against `node dist/cli.js mcp`:
// R2, a flood of tool calls sent without waiting (2,000 `agentjet_log_stats` took the server out of
// heap): a few run at once, a bounded number wait, the rest are answered at once that the server is
// busy, and `ping` answers meanwhile. R3, `agentjet_lint` of a folder holding a link to `/`: the
// walk stays in the folder, `ping` answers while it runs, and the answer comes.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMcp } from '../util/mcpClient';
import { plainRecord } from '../gen/bomb';
import { MCP_CALL_LIMITS } from '../../core/agents/callQueue';

const scratch = mkdtempSync(join(tmpdir(), 'aj-mcp-hostile-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const connect = (root: string) =>
  connectMcp(root, ['--no-python'], { AGENTJET_FACTS_CACHE: join(scratch, 'facts'), LANG: 'C.UTF-8', LANGUAGE: '' });

const textOf = (r: Record<string, unknown>) => (r.content as { text: string }[] | undefined)?.[0]?.text ?? '';

test(
  'R2: 1,000 agentjet_log_stats calls at once: each is answered, at most the limit run, the rest are told the server is busy; ping answers',
  { timeout: 300_000 },
  async () => {
    const root = mkdtempSync(join(scratch, 'r2-'));
    writeFileSync(join(root, 'rollout.json.log'), Array.from({ length: 2000 }, (_, i) => plainRecord(i, 40)).join(''));
    const s = await connect(root);
    try {
      const n = 1000;
      const calls = Array.from({ length: n }, () =>
        s.client.callTool({ name: 'agentjet_log_stats', arguments: { path: 'rollout.json.log' } }, undefined, { timeout: 280_000 }),
      );
      // The server still answers a ping while it works through the queue.
      await s.client.ping({ timeout: 60_000 });
      const answers = await Promise.all(calls);
      const busy = answers.filter((r) => r.isError === true);
      const done = answers.filter((r) => r.isError !== true);
      for (const r of busy) assert.match(textOf(r), /^the server is busy: 4 tool calls are running and 64 are waiting/);
      for (const r of done) assert.match(textOf(r), /"records":\s*2000/);
      assert.ok(busy.length > 0, 'calls past the queue are refused');
      assert.ok(done.length >= MCP_CALL_LIMITS.running + MCP_CALL_LIMITS.waiting, `${done.length} answered`);
      // Afterwards a call runs again.
      const again = await s.client.callTool({ name: 'agentjet_log_stats', arguments: { path: 'rollout.json.log' } });
      assert.equal(again.isError, false, textOf(again));
      assert.doesNotMatch(s.stderr(), /heap|FATAL/);
    } finally {
      await s.close();
    }
  },
);

test(
  'R3: agentjet_lint of a folder holding a link to /: ping answers, the lint answers with the folder only',
  { timeout: 120_000 },
  async () => {
    const root = mkdtempSync(join(scratch, 'r3-'));
    mkdirSync(join(root, 'configs'));
    writeFileSync(join(root, 'configs', 'a.yaml'), 'ajet:\n  project_name: x\n');
    symlinkSync('/', join(root, 'disk'));
    const s = await connect(root);
    try {
      const lint = s.client.callTool({ name: 'agentjet_lint', arguments: { path: '.' } }, undefined, { timeout: 100_000 });
      await s.client.ping({ timeout: 30_000 });
      const r = await lint;
      assert.equal(r.isError, false, textOf(r));
      assert.match(textOf(r), /"configsChecked": 1/);
    } finally {
      await s.close();
    }
  },
);
