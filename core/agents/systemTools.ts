// The agent tools about the environment: a swarm server's status (swarm/api) and doctor (doctor/*).
import { t } from '../l10n';
import { AgentJetFactsService, defaultCacheDir as defaultFactsCacheDir } from '../config/agentjetFacts';
import { baseFacts } from '../config/releases';
import { DEFAULT_SWARM_URL, SwarmApi, fetchStatus, normalizeSwarmUrl } from '../swarm/api';
import { statusText } from '../swarm/format';
import { WorkspaceTrust } from '../trust/policy';
import { swarmRefusal } from './swarmAccess';
import { ToolError, needsInterpreter, str, json, type AgentTool } from './toolkit';

export const swarmStatusTool: AgentTool = {
  name: 'agentjet_swarm_status',
  title: 'AgentJet swarm server status',
  description:
    "Asks an AgentJet swarm server (ajet-swarm start) for its state: engine status (ENGINE.OFFLINE, BOOTING, ROLLING, ROLLING_POST, WEIGHT_SYNCING, WEIGHT_EXPORTING), global step, experiment folder, model path and the current batch's rollout pool. Read-only (HTTP GET). Only loopback, the servers the user configured and the ones the workspace names; another URL needs the user's setting.",
  inputSchema: {
    type: 'object',
    properties: { url: { type: 'string', maxLength: 2000, description: `The server (default ${DEFAULT_SWARM_URL}).` } },
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: true,
  async run(args, env, signal) {
    let url: string;
    try {
      url = normalizeSwarmUrl(str(args, 'url') || DEFAULT_SWARM_URL);
    } catch (e) {
      throw new ToolError(e instanceof Error ? e.message : String(e));
    }
    // An agent's URL is untrusted: only servers the user or the workspace chose, or loopback.
    const refused = await swarmRefusal(url, env.swarm);
    if (refused) throw new ToolError(refused);
    try {
      const s = env.swarm?.status ? await env.swarm.status(url, signal) : await fetchStatus(new SwarmApi(url, { timeoutMs: 2500 }), signal);
      return `${statusText(s)}\n${json(s)}`;
    } catch (e) {
      throw new ToolError((e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim());
    }
  },
};

export const doctorTool: AgentTool = {
  name: 'agentjet_doctor',
  title: 'Check the AgentJet environment',
  description:
    "Checks the Python environment AgentJet runs in (runs the workspace's interpreter, a probe script that imports its packages, and a real import of verl and trinity; only with an interpreter handed in): Python, ajet/astuner and its launcher, debugpy, vLLM, verl, trinity, Ray, NVIDIA GPUs and the vLLM port; each problem with a fix, and which AgentJet judges configs here.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  runsWorkspaceCode: 'always',
  network: false,
  async run(_args, env, signal) {
    const root = env.roots[0]!;
    // Only the interpreter the trust owner handed in: never one found here.
    const python = env.mayRunPython ? await env.python?.() : undefined;
    if (!python) throw new ToolError(needsInterpreter('agentjet_doctor'));
    const [{ gather }, { evaluate, summary }, { toText }, { DOCTOR_PROBE }] = await Promise.all([
      import('../doctor/run'),
      import('../doctor/checks'),
      import('../doctor/report'),
      import('../doctor/script'),
    ]);
    const input = await gather({
      python,
      script: DOCTOR_PROBE,
      cwd: root,
      port: 18000,
      trusted: true,
      imports: true,
      ...(signal ? { signal } : {}),
    });
    const checks = evaluate(input);
    const service = new AgentJetFactsService({ cacheDir: env.factsCacheDir ?? defaultFactsCacheDir(), trust: new WorkspaceTrust(true) });
    service.setFolder(root, python);
    const judge = (await service.ready(root))?.label ?? baseFacts().label;
    return `${toText(checks, python)}${t('Configs are judged by {0}.', judge)}\n${json({ python, ...summary(checks) })}`;
  },
};
