// Swarm facts read from the user's files without running them: `SwarmClient("http://…")`
// constructions in Python (the servers a workspace talks to) and configs that enable swarm mode.
import { normalizeSwarmUrl } from './api';

export interface SwarmClientCall {
  /** 0-based line and column of `SwarmClient`. */
  line: number;
  column: number;
  endColumn: number;
  /** The first argument when it is a string literal that is an http(s) URL. */
  url?: string;
}

const CALL = /\bSwarmClient\s*\(\s*(?:server_url\s*=\s*)?(?:(["'])([^"'\n]{1,300})\1)?/g;

/** Every `SwarmClient(...)` construction; comments and the class definition are skipped. */
export function findSwarmClientCalls(text: string): SwarmClientCall[] {
  const out: SwarmClientCall[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.includes('SwarmClient')) continue;
    const hash = line.indexOf('#');
    CALL.lastIndex = 0;
    for (let m = CALL.exec(line); m; m = CALL.exec(line)) {
      if (hash >= 0 && m.index > hash) break;
      if (/\bclass\s+$|\bdef\s+$/.test(line.slice(0, m.index))) continue;
      const call: SwarmClientCall = { line: i, column: m.index, endColumn: m.index + 'SwarmClient'.length };
      if (m[2] && /^https?:\/\//i.test(m[2])) {
        try {
          call.url = normalizeSwarmUrl(m[2]);
        } catch {
          /* not a URL */
        }
      }
      out.push(call);
    }
  }
  return out;
}

/** The line (0-based) of `enable_swarm_mode: true` in an AgentJet config, or undefined. */
export function swarmModeLine(text: string): number | undefined {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^\s+enable_swarm_mode\s*:\s*(true|True|TRUE|yes|on)\s*(#.*)?$/.test(lines[i]!)) return i;
  }
  return undefined;
}
