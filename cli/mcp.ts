// `agentjet mcp [--root DIR] [--python PATH] [--no-python]`: the AgentJet tools (core/agents/tools.ts)
// for coding agents, as a Model Context Protocol server over stdio (the official SDK). Read-only:
// every path lies inside --root (real paths). AgentJet's own skills are its resources and prompts.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { VERSION } from './version';
import { t } from '../core/l10n';
import { AGENT_TOOLS, type AgentToolEnv } from '../core/agents/tools';
import { CallQueue, queuedCall } from '../core/agents/callQueue';
import { findAgentJet, listSkills, readSkillFile, type AgentJetSkill } from '../core/agents/skills';
import { resolveInterpreter } from '../core/process/resolveInterpreter';

const help = () =>
  t(`Usage: agentjet mcp [--root DIR] [--python PATH] [--no-python]

Serves the AgentJet tools to a coding agent (VS Code agent mode, Claude Code, any MCP client) as a
Model Context Protocol server on stdin/stdout. Read-only; every path must lie inside the root.

Tools: agentjet_lint, agentjet_explain_key, agentjet_runs, agentjet_run_summary,
agentjet_log_stats, agentjet_log_search, agentjet_log_record, agentjet_swarm_status, agentjet_doctor.
Resources and prompts: the skills of the user's AgentJet (ajet/copilot/*/SKILL.md).

Options:
  --root DIR      the folder every path must lie in (default: the current directory)
  --python PATH   the interpreter of the project (default: .venv/venv in the root, else python3)
  --no-python     run no interpreter (as in an untrusted folder): agentjet_doctor is refused and
                  configs are judged by a checkout at the root or by bundled facts
`);

const SKILL_SCHEME = 'agentjet-skill';

interface McpOptions {
  root: string;
  python?: string;
  noPython: boolean;
}

const MCP_OPTIONS = {
  root: { type: 'string' },
  python: { type: 'string' },
  'no-python': { type: 'boolean' },
} as const;

/** The options, or the exit code to return (0 after --help, 2 for bad usage). */
function parseMcpArgs(args: string[], err: (s: string) => void): McpOptions | number {
  const parsed = commandArgs('mcp', args, MCP_OPTIONS, help, undefined, err);
  if (typeof parsed === 'number') return parsed;
  const { values: v, positionals } = parsed;
  if (positionals.length) {
    err(`agentjet mcp: ${t('unexpected argument {0}', positionals[0]!)}\n`);
    return 2;
  }
  const o: McpOptions = { root: v.root !== undefined ? resolve(v.root) : process.cwd(), noPython: v['no-python'] === true };
  if (v.python !== undefined) o.python = v.python;
  if (!existsSync(o.root) || !statSync(o.root).isDirectory()) {
    err(`agentjet mcp: ${t('no such folder: {0}', o.root)}\n`);
    return 2;
  }
  o.root = realpathSync(o.root);
  return o;
}

/** The MCP server over the tools; not yet connected to a transport. */
function createMcpServer(o: McpOptions): Server {
  const python = o.noPython ? undefined : (o.python ?? resolveInterpreter({ folder: o.root }, existsSync).path);
  const env: AgentToolEnv = {
    roots: [o.root],
    mayRunPython: !o.noPython,
    python: () => Promise.resolve(python),
  };
  let skills: Promise<AgentJetSkill[]> | undefined;
  const skillsOnce = () =>
    (skills ??= findAgentJet(o.root, python)
      .then((found) => (found ? listSkills(found.pkgDir) : []))
      .catch(() => []));
  const server = new Server(
    { name: 'agentjet', title: 'AgentJet', version: VERSION },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: t(
        "AgentJet tools for this project (root {0}): lint configs, explain config keys, list runs and summarise one (status with evidence, reward curve, exceptions), read token logs (stats, search, one rollout with its loss mask), a swarm server's status and the environment check. Paths are relative to the root. Answers are bounded; they say how to get more (offset, limit). AgentJet's own skills are resources and prompts.",
        o.root,
      ),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: AGENT_TOOLS.filter((x) => !x.runsWorkspaceCode || env.mayRunPython).map((x) => ({
      name: x.name,
      title: t(x.title),
      description: t(x.description),
      inputSchema: x.inputSchema,
      annotations: {
        title: t(x.title),
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: x.network === true,
      },
    })),
  }));
  // A few calls at once, a bounded number waiting (core/agents/callQueue.ts).
  const calls = new CallQueue();
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const r = await queuedCall(calls, req.params.name, req.params.arguments ?? {}, env, extra.signal);
    return { content: [{ type: 'text' as const, text: r.text }], isError: r.isError };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await skillsOnce()).flatMap((s) =>
      s.files.map((f) => ({
        uri: `${SKILL_SCHEME}:///${encodeURIComponent(s.name)}/${encodeURIComponent(f)}`,
        name: `${s.name}/${f}`,
        ...(f === 'SKILL.md' && s.description ? { description: s.description } : {}),
        mimeType: 'text/markdown',
      })),
    ),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const m = new RegExp(`^${SKILL_SCHEME}:///([^/]+)/([^/]+)$`).exec(req.params.uri);
    const skill = m ? (await skillsOnce()).find((s) => s.name === decodeURIComponent(m[1]!)) : undefined;
    const text = skill ? await readSkillFile(skill, decodeURIComponent(m![2]!)) : undefined;
    if (text === undefined) throw new McpError(ErrorCode.InvalidParams, t('no such resource: {0}', req.params.uri));
    return { contents: [{ uri: req.params.uri, mimeType: 'text/markdown', text }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: (await skillsOnce()).map((s) => ({
      name: s.name,
      title: s.name,
      description: s.description || t("AgentJet's {0} skill", s.name),
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const skill = (await skillsOnce()).find((s) => s.name === req.params.name);
    const text = skill ? await readSkillFile(skill, 'SKILL.md') : undefined;
    if (!skill || text === undefined) throw new McpError(ErrorCode.InvalidParams, t('no such prompt: {0}', req.params.name));
    const others = skill.files.filter((f) => f !== 'SKILL.md');
    const more = others.length
      ? `\n\n${t('The skill has more files, readable as resources: {0}', others.map((f) => `${SKILL_SCHEME}:///${encodeURIComponent(skill.name)}/${f}`).join(', '))}`
      : '';
    return {
      description: skill.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: text + more } }],
    };
  });
  return server;
}

async function runMcp(args: string[]): Promise<number> {
  const o = parseMcpArgs(args, (s) => process.stderr.write(s));
  if (typeof o === 'number') return o;
  // stdout carries the protocol: anything else goes to stderr, and nothing ends the server but its client.
  process.on('unhandledRejection', (e) =>
    process.stderr.write(`agentjet mcp: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`),
  );
  process.on('uncaughtException', (e) => process.stderr.write(`agentjet mcp: ${e.stack ?? e.message}\n`));
  const server = createMcpServer(o);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
    // The client closed our stdin: the session is over.
    process.stdin.once('end', () => void server.close().then(done, done));
    process.stdin.once('close', () => void server.close().then(done, done));
  });
  await server.connect(transport);
  await closed;
  return 0;
}

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'serve the AgentJet tools to coding agents (Model Context Protocol over stdio)',
  run: (args) => runMcp(args),
};
