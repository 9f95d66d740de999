// The AgentJet tools coding agents call: one definition each (name, description, input schema,
// handler), served over MCP by `agentjet mcp` (cli/mcp.ts) and as VS Code language-model tools
// (extension/agents). The handlers call the same core functions as the CLI and the views: lint
// (config/lintPaths), runs (runs/list, runs/discover, runs/curves, runs/collector), token logs
// (logs/wholelog, logs/stats, logs/session), swarm (swarm/api) and doctor (doctor/*).
//
// Every path an agent names is resolved inside the allowed roots (real paths: a symbolic link
// out of a root is refused). Every answer is bounded (lists page with offset/limit, long text is
// cut) and says how to ask for more. Every failure is an answer marked as an error, never a throw.
//
// This file is the registry and the one entry point (callTool); the tools live by subject in
// configTools.ts, runTools.ts, logTools.ts and systemTools.ts, what they share in toolkit.ts.
import { t } from '../l10n';
import { checkArgs } from './schema';
import { ToolError, bound, needsConsent, needsInterpreter, type AgentTool, type AgentToolAnswer, type AgentToolEnv } from './toolkit';
import { explainKeyTool, lintTool } from './configTools';
import { runSummaryTool, runsTool } from './runTools';
import { logRecordTool, logSearchTool, logStatsTool } from './logTools';
import { doctorTool, swarmStatusTool } from './systemTools';
import { metricsTool } from './metricsTools';
import { compareRunsTool } from './compareTools';
import { waitTool } from './waitTool';
import { applyFixTool } from './fixTool';
import { debugTaskTool, stopTool, trainTool } from './launchTools';

export {
  MAX_ANSWER_CHARS,
  bound,
  insideRoots,
  needsConsent,
  needsInterpreter,
  runsInterpreter,
  toolHints,
  type AgentTool,
  type AgentToolAnswer,
  type AgentToolEnv,
  type SwarmAccess,
  type ToolHints,
} from './toolkit';
export { summariseCurve } from './runTools';
export { renderRecord } from './logTools';

/** Every tool, in the order agents see them. */
export const AGENT_TOOLS: readonly AgentTool[] = [
  lintTool,
  explainKeyTool,
  runsTool,
  runSummaryTool,
  metricsTool,
  compareRunsTool,
  logStatsTool,
  logSearchTool,
  logRecordTool,
  swarmStatusTool,
  doctorTool,
];

/**
 * The tools that act (wait on a run, apply a fix, run one task, start and stop training): offered
 * only where the user allowed acting (`agentjet mcp --allow-act`; VS Code: a trusted workspace, and
 * the user's yes to each call), refused otherwise.
 */
export const ACT_TOOLS: readonly AgentTool[] = [waitTool, applyFixTool, debugTaskTool, trainTool, stopTool];

export { AgentLaunches, type AgentLaunch } from './launches';
export { MAX_WAIT_S } from './waitTool';

function findTool(name: string): AgentTool | undefined {
  return AGENT_TOOLS.find((x) => x.name === name) ?? ACT_TOOLS.find((x) => x.name === name);
}

/**
 * Calls a tool by name: arguments checked against its schema, the answer bounded, every failure
 * (a bad argument, a refused path, an unreadable file, a bug) an error answer with a message.
 */
export async function callTool(name: string, rawArgs: unknown, env: AgentToolEnv, signal?: AbortSignal): Promise<AgentToolAnswer> {
  const tool = findTool(name);
  if (!tool || (tool.acts && !env.launches))
    return {
      isError: true,
      text: tool
        ? needsConsent(name)
        : t(
            'no tool named {0}; the tools are {1}',
            name,
            [...AGENT_TOOLS, ...(env.launches ? ACT_TOOLS : [])].map((x) => x.name).join(', '),
          ),
    };
  if (tool.runsWorkspaceCode === 'always' && !env.mayRunPython) return { isError: true, text: needsInterpreter(name) };
  const checked = checkArgs(tool.inputSchema, rawArgs);
  if (!checked.ok) return { isError: true, text: t('{0}: {1}', name, checked.problem) };
  try {
    const text = await tool.run(checked.args, env, signal);
    return { isError: false, text: bound(text) };
  } catch (err) {
    if (signal?.aborted) return { isError: true, text: t('{0} was cancelled', name) };
    const msg = err instanceof ToolError ? err.message : `${t('{0} failed', name)}: ${err instanceof Error ? err.message : String(err)}`;
    return { isError: true, text: bound(msg, 4000) };
  }
}
