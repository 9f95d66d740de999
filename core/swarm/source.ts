// Swarm facts read from the user's files without running them: `SwarmClient("http://…")`
// constructions in Python (the servers a workspace talks to) and configs that enable swarm mode.
import { normalizeSwarmUrl } from './api';

export interface SwarmClientCall {
  /** 0-based line and column of `SwarmClient`. */
  line: number;
  column: number;
  endColumn: number;
  /**
   * The first argument when it is an http(s) URL: a string literal, or a name the same file assigns
   * one constant URL to (`URL = "http://…"`, or the default of `os.getenv("X", "http://…")`, as
   * AgentJet's own swarm clients do).
   */
  url?: string;
  /** The name the URL came through, when the argument was a name. */
  via?: string;
}

const CALL = /\bSwarmClient\s*\(\s*(?:server_url\s*=\s*)?(?:(["'])([^"'\n]{1,300})\1|([A-Za-z_]\w{0,80})\s*[,)])?/g;

/** `NAME = "…"`, `NAME: str = "…"`, `NAME = os.getenv("X", "…")` / `os.environ.get("X", "…")` (one line). */
const ASSIGN =
  /^\s*([A-Za-z_]\w{0,80})\s*(?::\s*[\w.[\]]+\s*)?=\s*(?:(["'])([^"'\n]{1,300})\2|os\.(?:getenv|environ\.get)\(\s*["'][^"'\n]*["']\s*,\s*(["'])([^"'\n]{1,300})\4\s*\))\s*(?:#.*)?$/;

/**
 * Names the file assigns exactly one string value to (a second, different value, or any other
 * assignment of the name, makes it no constant).
 */
export function stringConstants(text: string): Map<string, string> {
  const seen = new Map<string, string | null>();
  for (const line of text.split('\n')) {
    if (!line.includes('=')) continue;
    const m = ASSIGN.exec(line);
    if (m) {
      const [, name = '', , lit, , envDefault] = m;
      const value = lit ?? envDefault ?? '';
      const prev = seen.get(name);
      seen.set(name, prev === undefined || prev === value ? value : null);
      continue;
    }
    // Any other assignment to a name (`URL = build()`, `URL += "x"`) spoils it.
    const other = /^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?[-+*/|&]?=(?!=)/.exec(line);
    if (other?.[1]) seen.set(other[1], null);
  }
  const out = new Map<string, string>();
  for (const [k, v] of seen) if (v !== null) out.set(k, v);
  return out;
}

function urlOf(s: string | undefined): string | undefined {
  if (!s || !/^https?:\/\//i.test(s)) return undefined;
  try {
    return normalizeSwarmUrl(s);
  } catch {
    return undefined; // not a URL
  }
}

/** Every `SwarmClient(...)` construction; comments and the class definition are skipped. */
export function findSwarmClientCalls(text: string): SwarmClientCall[] {
  const out: SwarmClientCall[] = [];
  let constants: Map<string, string> | undefined;
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
      const literal = urlOf(m[2]);
      if (literal) call.url = literal;
      else if (m[3] && m[3] !== 'None') {
        constants ??= stringConstants(text);
        const viaName = urlOf(constants.get(m[3]));
        if (viaName) {
          call.url = viaName;
          call.via = m[3];
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
