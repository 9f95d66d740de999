// `agentjet mcp [--root DIR] [--python PATH | --trust-folder] [--swarm-url URL]...`: the AgentJet
// tools (core/agents/tools.ts) for coding agents, as a Model Context Protocol server over stdio (the
// official SDK). Every path lies inside --root (real paths). AgentJet's own skills are its
// resources and prompts. A coding agent starts this server in whatever folder it was pointed at (a
// fresh clone included), so nothing of the folder runs unless the person who wrote the command
// handed an interpreter in: --python PATH, or --trust-folder for the folder's own .venv. The tools
// that act (wait, apply a fix, run a task, train, stop) are offered only with --allow-act; what they
// start ends, through its launch owner, when the client disconnects (stdin closes).
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
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
import { ACT_TOOLS, AGENT_TOOLS, AgentLaunches, toolHints, type AgentToolEnv } from '../core/agents/tools';
import { workspaceSwarmUrls } from '../core/agents/swarmAccess';
import { normalizeSwarmUrl } from '../core/swarm/api';
import { CallQueue, queuedCall } from '../core/agents/callQueue';
import { findAgentJet, listSkills, readSkillFile, type AgentJetSkill } from '../core/agents/skills';
import { resolveInterpreter } from '../core/process/resolveInterpreter';
import { BoundedStdioTransport } from './mcpStdio';
import { applyMaxRecordMb } from './maxRecord';

const help = () =>
  t(`Usage: agentjet mcp [--root DIR] [--python PATH | --trust-folder] [--allow-act] [--swarm-url URL]...

Serves the AgentJet tools to a coding agent (VS Code agent mode, Claude Code, any MCP client) as a
Model Context Protocol server on stdin/stdout. Every path must lie inside the root.

Tools: agentjet_lint, agentjet_explain_key, agentjet_runs, agentjet_run_summary,
agentjet_log_stats, agentjet_log_search, agentjet_log_record, agentjet_swarm_status, agentjet_doctor.
With --allow-act also: agentjet_wait, agentjet_apply_fix, agentjet_debug_task, agentjet_train,
agentjet_stop (debug_task and train run an interpreter: they need --python or --trust-folder too).
Resources and prompts: the skills of the user's AgentJet (ajet/copilot/*/SKILL.md).

By default no interpreter of the folder runs (an agent may start this server in a folder nobody
checked): configs are judged by a checkout at the root or by bundled facts, skills come from a
checkout, and agentjet_doctor is refused.

Options:
  --root DIR        the folder every path must lie in (default: the current directory)
  --python PATH     run this interpreter: installed packages judge configs, agentjet_doctor runs it
  --trust-folder    run the folder's own interpreter (.venv/venv in the root, else python3)
  --swarm-url URL   a swarm server agentjet_swarm_status may ask besides loopback and the servers
                    the folder's SwarmClient("...") calls name (repeatable)
  --any-swarm-url   let agentjet_swarm_status ask any URL an agent names
  --allow-act       offer the acting tools; what they start stops when the client disconnects
  --stall-minutes N a running run is stalled after N minutes without progress (default 10)
  --max-record-mb N the most one token-log record may inflate to (default 64)
  --no-python       run no interpreter (the default; kept for older configs)

A message over 10 MB is answered with an error and skipped; the server goes on.
`);

const SKILL_SCHEME = 'agentjet-skill';

interface McpOptions {
  root: string;
  /** The interpreter handed in (--python, or the folder's with --trust-folder); none: nothing runs. */
  python?: string;
  swarmUrls: string[];
  anySwarmUrl: boolean;
  allowAct: boolean;
  stallMinutes?: number;
}

/** How long the launches of a client that disconnected get to end before the server exits anyway. */
const CLOSE_DEADLINE_MS = 15_000;
/** A long call (agentjet_wait, a debug task) tells a client that asked for progress it still works, this often. */
const PROGRESS_EVERY_MS = 10_000;

const MCP_OPTIONS = {
  root: { type: 'string' },
  python: { type: 'string' },
  'trust-folder': { type: 'boolean' },
  'no-python': { type: 'boolean' },
  'swarm-url': { type: 'string', multiple: true },
  'any-swarm-url': { type: 'boolean' },
  'allow-act': { type: 'boolean' },
  'stall-minutes': { type: 'string' },
  'max-record-mb': { type: 'string' },
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
  const granted = [v.python !== undefined ? '--python' : '', v['trust-folder'] ? '--trust-folder' : ''].filter(Boolean);
  if (granted.length > 1 || (granted.length && v['no-python'])) {
    err(`agentjet mcp: ${t('{0} cannot be given together', [...granted, ...(v['no-python'] ? ['--no-python'] : [])].join(', '))}\n`);
    return 2;
  }
  if (v.python !== undefined && v.python.trim() === '') {
    err(`agentjet mcp: ${t('--python needs the path of an interpreter')}\n`);
    return 2;
  }
  if (!applyMaxRecordMb(v['max-record-mb'], 'agentjet mcp', err)) return 2;
  const swarmUrls: string[] = [];
  for (const u of v['swarm-url'] ?? []) {
    try {
      swarmUrls.push(normalizeSwarmUrl(u));
    } catch (e) {
      err(`agentjet mcp: --swarm-url: ${e instanceof Error ? e.message : String(e)}\n`);
      return 2;
    }
  }
  const o: McpOptions = {
    root: v.root !== undefined ? resolve(v.root) : process.cwd(),
    swarmUrls,
    anySwarmUrl: v['any-swarm-url'] === true,
    allowAct: v['allow-act'] === true,
  };
  if (v['stall-minutes'] !== undefined) {
    const m = Number(v['stall-minutes']);
    if (!(v['stall-minutes'].trim() !== '' && Number.isFinite(m) && m > 0)) {
      err(`agentjet mcp: ${t('--stall-minutes must be a positive number of minutes, not {0}', v['stall-minutes'])}\n`);
      return 2;
    }
    o.stallMinutes = m;
  }
  if (!existsSync(o.root) || !statSync(o.root).isDirectory()) {
    err(`agentjet mcp: ${t('no such folder: {0}', o.root)}\n`);
    return 2;
  }
  o.root = realpathSync(o.root);
  // The person who wrote the command handed the interpreter in; without a flag none is looked for.
  if (v.python !== undefined) o.python = v.python;
  else if (v['trust-folder']) o.python = resolveInterpreter({ folder: o.root }, existsSync).path;
  return o;
}

/** The MCP server over the tools; not yet connected to a transport. */
function createMcpServer(o: McpOptions, launches: AgentLaunches | undefined): Server {
  const python = o.python;
  let named: Promise<string[]> | undefined;
  const env: AgentToolEnv = {
    roots: [o.root],
    mayRunPython: python !== undefined,
    python: () => Promise.resolve(python),
    swarm: {
      // The servers the command names, then the ones the folder's code names (scanned once, bounded).
      known: async () => [...o.swarmUrls, ...(await (named ??= workspaceSwarmUrls(o.root).catch(() => [])))],
      anyUrl: o.anySwarmUrl,
      allowHow: t('--swarm-url URL or --any-swarm-url in the command that starts `agentjet mcp`'),
    },
    ...(o.stallMinutes !== undefined ? { stallMinutes: o.stallMinutes } : {}),
    ...(launches ? { launches } : {}),
  };
  const offered = [...AGENT_TOOLS, ...(launches ? ACT_TOOLS : [])];
  let skills: Promise<AgentJetSkill[]> | undefined;
  const skillsOnce = () =>
    (skills ??= findAgentJet(o.root, python)
      .then((found) => (found ? listSkills(found.pkgDir) : []))
      .catch(() => []));
  const server = new Server(
    { name: 'agentjet', title: 'AgentJet', version: VERSION },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions:
        t(
          "AgentJet tools for this project (root {0}): lint configs, explain config keys, list runs and summarise one (status with evidence, reward curve, exceptions), read token logs (stats, search, one rollout with its loss mask), a swarm server's status and the environment check. Paths are relative to the root. Answers are bounded; they say how to get more (offset, limit). AgentJet's own skills are resources and prompts.",
          o.root,
        ) +
        (launches
          ? ` ${t('Acting is allowed: agentjet_wait waits for a run (no polling), agentjet_apply_fix applies a lint quick fix, agentjet_debug_task runs one task on the debug backbone, agentjet_train starts training and agentjet_stop stops what this client started; all it started stops when this client disconnects.')}`
          : ''),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    // A tool that needs an interpreter is not offered without one; the hints say what each runs here.
    tools: offered
      .filter((x) => x.runsWorkspaceCode !== 'always' || env.mayRunPython)
      .map((x) => ({
        name: x.name,
        title: t(x.title),
        description: t(x.description),
        inputSchema: x.inputSchema,
        annotations: { title: t(x.title), ...toolHints(x, env.mayRunPython) },
      })),
  }));
  // A few calls at once, a bounded number waiting (core/agents/callQueue.ts).
  const calls = new CallQueue();
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    // A client that asked for progress hears that a long call (a wait, a debug task) still works,
    // so its own request timeout can be reset instead of running out.
    const token = req.params._meta?.progressToken;
    let beats = 0;
    let seen = t('{0} is still working', req.params.name);
    const beat =
      token === undefined
        ? undefined
        : setInterval(() => {
            beats++;
            void extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: beats, message: seen } })
              .catch(() => undefined);
          }, PROGRESS_EVERY_MS);
    // What the call has seen so far (a wait: the run's step, reward, health) is the progress message.
    const callEnv: AgentToolEnv = token === undefined ? env : { ...env, progress: (m) => (seen = m) };
    const r = await queuedCall(calls, req.params.name, req.params.arguments ?? {}, callEnv, extra.signal).finally(() =>
      clearInterval(beat),
    );
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
  const launches = o.allowAct ? new AgentLaunches() : undefined;
  const server = createMcpServer(o, launches);
  // Not the SDK's StdioServerTransport: a message over its bound would end the session, silently.
  const transport = new BoundedStdioTransport();
  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
    // The client closed our stdin: the session is over.
    process.stdin.once('end', () => void server.close().then(done, done));
    process.stdin.once('close', () => void server.close().then(done, done));
  });
  await server.connect(transport);
  await closed;
  // The client is gone: what its tools started ends, through each launch's owner, within a deadline.
  if (launches?.all.length) {
    const left = await launches.close(CLOSE_DEADLINE_MS);
    if (left.length)
      process.stderr.write(`agentjet mcp: ${t('{0} did not end within {1} s', left.join(', '), CLOSE_DEADLINE_MS / 1000)}\n`);
  }
  return 0;
}

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'serve the AgentJet tools to coding agents (Model Context Protocol over stdio)',
  run: (args) => runMcp(args),
};
