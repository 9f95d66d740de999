// Trajectory files (`trajectory/{train,eval}/step_<N>/<task_id>.json`): OpenAI-format messages,
// one list per timeline, normalised for the chat-transcript view.
import type { TrajectoryData, TrajectoryMessage } from '../protocol/tokenlog';

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) {
    // Multi-part content: [{type: 'text', text: ...}, ...]
    return v
      .map((p) =>
        p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : JSON.stringify(p),
      )
      .join('\n');
  }
  return typeof v === 'object' ? JSON.stringify(v, null, 2) : String(v);
}

function message(m: unknown): TrajectoryMessage {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return { role: 'unknown', content: text(m), toolCalls: [] };
  const o = m as Record<string, unknown>;
  const calls = Array.isArray(o.tool_calls) ? o.tool_calls : [];
  return {
    role: typeof o.role === 'string' ? o.role : 'unknown',
    content: text(o.content),
    name: typeof o.name === 'string' ? o.name : undefined,
    toolCallId: typeof o.tool_call_id === 'string' ? o.tool_call_id : undefined,
    toolCalls: calls.map((c) => {
      const co = (c && typeof c === 'object' ? c : {}) as Record<string, unknown>;
      const fn = (co.function && typeof co.function === 'object' ? co.function : {}) as Record<string, unknown>;
      let args = text(fn.arguments);
      try {
        args = JSON.stringify(JSON.parse(args), null, 2);
      } catch {
        // not JSON: show as written
      }
      return { id: typeof co.id === 'string' ? co.id : undefined, name: typeof fn.name === 'string' ? fn.name : '?', arguments: args };
    }),
  };
}

export type TrajectoryResult = { ok: true; data: TrajectoryData } | { ok: false; error: string };

export function parseTrajectory(json: string): TrajectoryResult {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (err) {
    return { ok: false, error: `invalid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'not a trajectory: expected a JSON object' };
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o.traj)) return { ok: false, error: 'not a trajectory: no "traj" list' };
  const rewards: [string, string][] = [];
  if (o.reward_structure && typeof o.reward_structure === 'object') {
    for (const [k, val] of Object.entries(o.reward_structure as Record<string, unknown>))
      rewards.push([k, typeof val === 'string' ? val : JSON.stringify(val)]);
  }
  // `traj` is a list of timelines; tolerate a flat list of messages too.
  const flat = o.traj.length > 0 && !Array.isArray(o.traj[0]);
  const timelines = (flat ? [o.traj] : o.traj).map((t) => (Array.isArray(t) ? t.map(message) : [message(t)]));
  return {
    ok: true,
    data: {
      taskId: typeof o.task_id === 'string' ? o.task_id : String(o.task_id ?? ''),
      tag: typeof o.task_tag === 'string' ? o.task_tag : undefined,
      rewards,
      timelines,
    },
  };
}
