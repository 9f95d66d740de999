// AgentJet's conditional breakpoints in Python source: `bp("TAG")` (from `from ajet import bp`) and
// `vscode_conditional_breakpoint("TAG")` (ajet/utils/vsdb.py). A launch with `--debug "A|B"` arms
// tags A and B (the launcher sets DEBUG_TAGS and RAY_DEBUG_POST_MORTEM; vsdb splits on `|`).
import { allowInConsole, DEBUGGER_LINES } from './dedup';

export interface BpCall {
  tag: string;
  /** 0-based line and column of the call's name. */
  line: number;
  column: number;
  /** End column of the tag's closing quote. */
  endColumn: number;
}

const CALL = /\b(?:bp|vscode_conditional_breakpoint)\(\s*(?:tag\s*=\s*)?(["'])([^"'\\\n]{1,200})\1/g;

/** All `bp("TAG")` calls with a literal tag; commented-out lines are skipped. */
export function findBpCalls(text: string): BpCall[] {
  if (!text.includes('bp(') && !text.includes('vscode_conditional_breakpoint(')) return [];
  const out: BpCall[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const hash = l.indexOf('#');
    CALL.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = CALL.exec(l))) {
      if (hash >= 0 && hash < m.index) break;
      out.push({ tag: m[2]!, line: i, column: m.index, endColumn: m.index + m[0].length });
    }
  }
  return out;
}

/** The value of `--debug` for a set of tags (AgentJet splits DEBUG_TAGS on `|`). */
export function debugTagsArg(tags: readonly unknown[] | string): string {
  const list = typeof tags === 'string' ? tags.split('|') : Array.isArray(tags) ? tags : [];
  return [
    ...new Set(
      list
        .filter((t): t is string => typeof t === 'string')
        .map((t) => t.trim())
        .filter((t) => t && !t.includes('|')),
    ),
  ].join('|');
}

/** The tag of a `bp("TAG")` call on one source line, if any. */
export function tagOnLine(line: string): string | undefined {
  return findBpCalls(line)[0]?.tag;
}

export interface RayLaunchAdditions {
  env: Record<string, string>;
  args: string[];
}

/**
 * What `rayDebug` / `debugTags` add to a launch: RAY_DEBUG=1 (Ray's debugpy debugger), and with tags
 * AgentJet's `--debug "A|B"`. DEBUG_TAGS and RAY_DEBUG_POST_MORTEM are also put in the environment so
 * `bp()` works in programs that do not go through AgentJet's launcher; the launcher sets the same.
 * Args already carrying `--debug`/`--db` are left alone.
 */
export function rayLaunchAdditions(
  rayDebug: unknown,
  debugTags: readonly unknown[] | string | undefined,
  args: readonly string[],
  launchEnv: NodeJS.ProcessEnv = {},
): RayLaunchAdditions {
  const tags = debugTagsArg(debugTags ?? []);
  if (rayDebug !== true && !tags) return { env: {}, args: [] };
  const env: Record<string, string> = {
    RAY_DEBUG: '1',
    // Paused workers on other nodes are found in the console: each debugger line must reach it.
    RAY_DEDUP_LOGS_ALLOW_REGEX: allowInConsole(launchEnv.RAY_DEDUP_LOGS_ALLOW_REGEX, DEBUGGER_LINES),
  };
  const extra: string[] = [];
  if (tags) {
    env.DEBUG_TAGS = tags;
    env.RAY_DEBUG_POST_MORTEM = '1';
    if (!args.some((a) => a === '--debug' || a === '--db' || a.startsWith('--debug=') || a.startsWith('--db=')))
      extra.push('--debug', tags);
  }
  return { env, args: extra };
}

/** True when `offset` sits inside the array value of a "debugTags" key (cheap text check). */
export function insideDebugTags(text: string, offset: number): boolean {
  const before = text.slice(Math.max(0, offset - 2000), offset);
  const key = before.lastIndexOf('"debugTags"');
  if (key < 0) return false;
  const tail = before.slice(key);
  return /^"debugTags"\s*:\s*\[[^\]]*$/.test(tail);
}
