// How an MCP client starts `agentjet mcp`, and that entry merged into a client's config file
// (VS Code's `.vscode/mcp.json`: `servers`; Claude Code's `.mcp.json`: `mcpServers`) without
// touching the user's other servers. A file that is not plain JSON is never rewritten.
import { join } from 'node:path';

export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * How to start `agentjet mcp` for a folder with the Node.js VS Code runs on (Electron's, as Node, on
 * desktop). The server runs no interpreter of the folder unless told: a workspace the user trusts
 * gets `--trust-folder` (its own .venv runs, as in the editor); an untrusted one says `--no-python`.
 */
export function mcpLaunch(extensionPath: string, folder: string, trusted: boolean): McpLaunch {
  const args = [join(extensionPath, 'dist', 'cli.js'), 'mcp', '--root', folder, trusted ? '--trust-folder' : '--no-python'];
  const env: Record<string, string> = process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
  return { command: process.execPath, args, env };
}

/** The client's config with our server entry set; undefined when the file is not plain JSON (never overwritten then). */
export function withServerEntry(existing: string | undefined, client: 'vscode' | 'claude', launch: McpLaunch): string | undefined {
  let doc: Record<string, unknown> = {};
  if (existing !== undefined && existing.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(existing);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
      doc = parsed as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  const key = client === 'vscode' ? 'servers' : 'mcpServers';
  const servers = doc[key] && typeof doc[key] === 'object' && !Array.isArray(doc[key]) ? (doc[key] as Record<string, unknown>) : {};
  const entry = {
    ...(client === 'vscode' ? { type: 'stdio' } : {}),
    command: launch.command,
    args: launch.args,
    ...(Object.keys(launch.env).length ? { env: launch.env } : {}),
  };
  doc[key] = { ...servers, agentjet: entry };
  return JSON.stringify(doc, null, 2) + '\n';
}
