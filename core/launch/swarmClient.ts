// The `swarmClient` mode of the `agentjet` launch configuration: `python <client.py> [args]` under
// debugpy (a swarm client script using AgentJet's SwarmClient), cwd the workspace folder, env from
// `.env` like every launch. Before anything starts, the swarm server the client talks to is asked
// for its engine state; an unreachable server refuses the launch with the reason.
// Pure planning plus one HTTP look: no editor API, no processes.
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { t } from '../l10n';
import { resolveAttributes, mergedEnv, type AgentJetLaunchAttributes, type ResolvedLaunch } from './attributes';
import { SwarmApi, SwarmError, fetchStatus, normalizeSwarmUrl, type SwarmStatus } from '../swarm/api';
import { findSwarmClientCalls } from '../swarm/source';
import type { CommandLine } from './plan';

/** The attributes of a swarm-client launch (`config` must be absent). */
export interface SwarmClientAttributes extends Omit<AgentJetLaunchAttributes, 'config'> {
  /** The swarm client script to run (absolute or relative to cwd). */
  swarmClient: string;
  /** The swarm server to check first; default: AJET_SWARM_URL of the launch env, else the script's `SwarmClient("http://…")`. */
  swarmUrl?: string;
  config?: string;
}

/** Where the server URL came from. */
export type SwarmUrlSource = 'swarmUrl' | 'env' | 'script';

export interface SwarmClientLaunch extends ResolvedLaunch {
  /** The client script (absolute); also in `config` for the shared launch plumbing. */
  script: string;
  url: string | undefined;
  urlFrom: SwarmUrlSource | undefined;
}

export type SwarmClientPlanned = { ok: true; launch: SwarmClientLaunch } | { ok: false; message: string };

/** True when a launch configuration asks for the swarm-client mode. */
export function isSwarmClientLaunch(a: Record<string, unknown> | undefined): boolean {
  return !!a && a.swarmClient !== undefined;
}

/** The server URL to check: `swarmUrl`, else AJET_SWARM_URL in the launch env, else the first `SwarmClient("http…")` literal. */
export function swarmUrlFor(
  swarmUrl: string | undefined,
  env: NodeJS.ProcessEnv,
  scriptText: string | undefined,
): { url: string; from: SwarmUrlSource } | undefined {
  if (swarmUrl && swarmUrl.trim()) return { url: normalizeSwarmUrl(swarmUrl), from: 'swarmUrl' };
  const fromEnv = env.AJET_SWARM_URL;
  if (fromEnv && fromEnv.trim()) {
    try {
      return { url: normalizeSwarmUrl(fromEnv), from: 'env' };
    } catch {
      /* not a URL: try the script */
    }
  }
  const literal = scriptText ? findSwarmClientCalls(scriptText).find((c) => c.url) : undefined;
  return literal?.url ? { url: literal.url, from: 'script' } : undefined;
}

/** Validates and resolves a swarm-client launch; `message` says what is wrong. */
export function planSwarmClient(
  a: SwarmClientAttributes,
  base: NodeJS.ProcessEnv = process.env,
  read: (p: string) => string | undefined = tryRead,
): SwarmClientPlanned {
  if (typeof a.swarmClient !== 'string' || !a.swarmClient.trim())
    return { ok: false, message: t('"swarmClient" must be the path of the swarm client script (a .py file).') };
  if (typeof a.config === 'string' && a.config.trim())
    return {
      ok: false,
      message: t(
        'A launch configuration has either "config" (an AgentJet YAML to run) or "swarmClient" (a swarm client script), not both.',
      ),
    };
  if (a.swarmUrl !== undefined && typeof a.swarmUrl !== 'string')
    return { ok: false, message: t('"swarmUrl" must be a string (http://HOST:PORT).') };
  const cwd = a.cwd;
  const script = isAbsolute(a.swarmClient) ? a.swarmClient : join(cwd ?? process.cwd(), a.swarmClient);
  if (!/\.py$/i.test(script)) return { ok: false, message: t('The swarm client {0} is not a Python script (.py).', script) };
  const text = read(script);
  if (text === undefined) return { ok: false, message: t('The swarm client script {0} does not exist or cannot be read.', script) };
  const r = resolveAttributes({ ...a, config: script }, base);
  let url: ReturnType<typeof swarmUrlFor>;
  try {
    url = swarmUrlFor(a.swarmUrl, mergedEnv(r, base), text);
  } catch (e) {
    return { ok: false, message: t('"swarmUrl": {0}', (e as Error).message) };
  }
  return { ok: true, launch: { ...r, script, url: url?.url, urlFrom: url?.from } };
}

/** `python <script> args...`. */
export function swarmClientCommand(l: SwarmClientLaunch): CommandLine {
  return { command: l.python, args: [l.script, ...l.args] };
}

export type ServerChecked = { ok: true; status: SwarmStatus } | { ok: false; message: string };

/** Asks the server for its engine state and rollout pool; refusal text when it cannot be reached. */
export async function checkSwarmServer(url: string, timeoutMs = 3000): Promise<ServerChecked> {
  let api: SwarmApi | undefined;
  try {
    api = new SwarmApi(url, { timeoutMs });
    return { ok: true, status: await fetchStatus(api) };
  } catch (e) {
    // The reason without SwarmApi's own "swarm server URL: " prefix (the message names the URL).
    const raw = e instanceof SwarmError || e instanceof Error ? e.message : String(e);
    const why = api && raw.startsWith(`swarm server ${api.url}: `) ? raw.slice(`swarm server ${api.url}: `.length) : raw;
    return {
      ok: false,
      message: t(
        'The swarm server {0} is not reachable ({1}). Nothing was launched: start it (ajet-swarm start) or set "swarmUrl" to the right server.',
        url,
        why,
      ),
    };
  }
}

function tryRead(p: string): string | undefined {
  try {
    return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
