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

/**
 * Ports of `ajet-swarm start` processes in a process list (`ajet-swarm start`, or
 * `python -m ajet.swarm_cli start`), `--swarm-port N` or AgentJet's default 10086.
 */
export function localSwarmPorts(procs: readonly { args: string }[]): number[] {
  const ports = new Set<number>();
  for (const p of procs) {
    const tok = p.args.trim().split(/\s+/);
    // The program itself (or the script python runs) is ajet-swarm / ajet.swarm_cli, then `start`.
    let at = -1;
    for (let i = 0; i < Math.min(tok.length, 3); i++) {
      const base = tok[i]!.split('/').pop() ?? '';
      if (base === 'ajet-swarm' || tok[i]!.endsWith('ajet/swarm_cli.py')) at = i + 1;
      else if (tok[i] === '-m' && tok[i + 1] === 'ajet.swarm_cli') at = i + 2;
      if (at >= 0) break;
      if (i === 0 && !/python[\d.]*$/.test(base)) break;
    }
    if (at < 0 || tok[at] !== 'start') continue;
    const m = /--swarm-port(?:=|\s+)(\d{1,5})\b/.exec(p.args);
    const port = m ? Number(m[1]) : 10086;
    if (port > 0 && port < 65536) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}
