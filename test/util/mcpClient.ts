// `node dist/cli.js mcp --root ROOT ...` driven by the MCP SDK's own client over stdio, for the
// protocol tests: its stderr kept, one-text-answer calls, and a close that waits for the server to exit.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot } from './paths';
import { waitFor } from './poll';

export const CLI = join(repoRoot, 'dist', 'cli.js');

export interface McpSession {
  client: Client;
  pid: number;
  stderr: () => string;
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function connectMcp(root: string, extra: string[] = [], env: Record<string, string> = {}): Promise<McpSession> {
  assert.ok(existsSync(CLI), 'dist/cli.js is built (npm run build)');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--root', root, ...extra],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const client = new Client({ name: 'agentjet-test', version: '0' });
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    pid,
    stderr: () => err,
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: args });
      const content = r.content as { type: string; text: string }[];
      assert.equal(content.length, 1);
      assert.equal(content[0]!.type, 'text');
      return { text: content[0]!.text, isError: r.isError === true };
    },
    async close() {
      await client.close();
      await waitFor(() => !alive(pid), `the MCP server (pid ${pid}) to exit`);
    },
  };
}
