// The agent tools about token logs: whole-log stats, search and one record (logs/wholelog,
// logs/stats, logs/session).
import { t } from '../l10n';
import { FactsCache, defaultCacheDir as defaultLogCacheDir } from '../logs/cache';
import { allTasks, collectFacts, findRunLogs, openLogs, searchTasks } from '../logs/wholelog';
import { statsFromFacts } from '../logs/stats';
import { LogSession } from '../logs/session';
import { summarizePrefix } from '../logs/decode';
import type { RecordData, SearchHitData } from '../protocol/tokenlog';
import {
  ToolError,
  str,
  int,
  PAGE,
  MAX_ANSWER_CHARS,
  pathArg,
  json,
  shown,
  insideRoots,
  fileOrFolder,
  fittedPage,
  visible,
  type AgentTool,
  type AgentToolEnv,
} from './toolkit';

async function logMains(env: AgentToolEnv, requested: string | undefined): Promise<{ mains: string[]; target: string }> {
  const target = await insideRoots(env, requested);
  const kind = await fileOrFolder(target, requested ?? target);
  if (kind === 'file') return { mains: [target], target };
  const mains = await findRunLogs(target, 'rollout');
  if (!mains.length) throw new ToolError(t('no rollout.json.log under {0}: name a .json.log file or a run folder', shown(env, target)));
  return { mains, target };
}

export const logStatsTool: AgentTool = {
  name: 'agentjet_log_stats',
  title: 'Token log statistics',
  description:
    "Statistics of a beast-logger token log (rollout.json.log, with its rotated siblings) or of every host's rollout log in a run folder: records, timelines, tokens and trained (loss-mask) tokens, records and mean reward per training step, corrupt records and where they are.",
  inputSchema: {
    type: 'object',
    properties: { path: pathArg('A .json.log file or a run folder.'), ...PAGE },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  async run(args, env, signal) {
    const { mains } = await logMains(env, str(args, 'path'));
    const cache = new FactsCache(env.logCacheDir ?? defaultLogCacheDir());
    const opened = await openLogs(mains, { cache, within: env.roots, ...(signal ? { signal } : {}) });
    const facts = await collectFacts(opened, {
      cache,
      ...(signal ? { signal } : {}),
      ...(env.workers !== undefined ? { workers: env.workers } : {}),
    });
    const st = statsFromFacts(opened, facts);
    return fittedPage(st.steps, args, 60, (steps) =>
      json({
        ...st,
        files: st.files.map((f) => shown(env, f)),
        problems: st.problems.slice(0, 20).map((p) => ({ ...p, file: shown(env, p.file) })),
        corrupt: st.corrupt.slice(0, 20),
        steps: steps.items,
        ...(steps.note ? { more: steps.note } : {}),
      }),
    );
  },
};

/** Title, step, task and reward of some records of the opened logs (global record numbers). */
async function summaries(
  opened: Awaited<ReturnType<typeof openLogs>>,
  indices: number[],
): Promise<Map<number, ReturnType<typeof summarizePrefix>>> {
  const out = new Map<number, ReturnType<typeof summarizePrefix>>();
  let base = 0;
  for (const ix of opened.indexes) {
    for (const i of indices)
      if (i >= base && i < base + ix.count)
        await ix.readPrefixes(i - base, i - base + 1, 1536, (_j, bytes) => {
          out.set(i, summarizePrefix(bytes));
        });
    base += ix.count;
  }
  return out;
}

export const logSearchTool: AgentTool = {
  name: 'agentjet_log_search',
  title: 'Search a token log',
  description:
    'Finds the records of a token log (or a run folder) whose decoded token text, title or task id contains the query (case-insensitive): record number, step, task id, reward, and where the first match is (timeline, token). Open one with agentjet_log_record.',
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('A .json.log file or a run folder.'),
      query: { type: 'string', minLength: 1, maxLength: 1000, description: 'Text to find.' },
      ...PAGE,
    },
    required: ['path', 'query'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  async run(args, env, signal) {
    const { mains } = await logMains(env, str(args, 'path'));
    const opened = await openLogs(mains, { within: env.roots, ...(signal ? { signal } : {}) });
    const { hits, counts } = await searchTasks(allTasks(opened), str(args, 'query')!, {
      ...(signal ? { signal } : {}),
      ...(env.workers !== undefined ? { workers: env.workers } : {}),
    });
    hits.sort((a, b) => a.index - b.index);
    return fittedPage(hits, args, 20, async (p) => {
      const info = await summaries(
        opened,
        p.items.map((h) => h.index),
      );
      return json({
        recordsSearched: counts.total,
        recordsMatching: counts.hits,
        matchesInTokenText: counts.matches,
        hits: p.items.map((h: SearchHitData) => {
          const s = info.get(h.index);
          return {
            index: h.index,
            ...(s?.step !== undefined ? { step: s.step } : {}),
            ...(s?.taskId !== undefined ? { taskId: s.taskId } : {}),
            ...(s?.reward !== undefined ? { reward: s.reward } : {}),
            ...(s?.title !== undefined ? { title: visible(s.title).slice(0, 200) } : {}),
            where: h.where,
            ...(h.timeline !== undefined ? { timeline: h.timeline, token: h.token } : {}),
            matches: h.matches,
          };
        }),
        ...(p.note ? { more: p.note } : {}),
        ...(mains.length > 1
          ? { note: t("record numbers run across the hosts' logs in this order: {0}", mains.map((m) => shown(env, m)).join(', ')) }
          : {}),
      });
    });
  },
};

/** One rollout as text: its header, table, and each timeline's tokens in runs of one loss-mask value. */
export function renderRecord(index: number, file: string, r: RecordData): string {
  const lines: string[] = [];
  lines.push(`# ${t('Record {0} of {1}', index, file)}`);
  lines.push(`time: ${r.time}  kind: ${r.kind}`);
  if (r.title) lines.push(`title: ${visible(r.title)}`);
  const facts = [
    r.step !== undefined ? `step: ${r.step}` : '',
    r.taskId !== undefined ? `task: ${visible(r.taskId)}` : '',
    r.reward !== undefined ? `reward: ${r.reward}` : '',
    r.outcome !== undefined ? `outcome: ${visible(r.outcome)}` : '',
  ].filter(Boolean);
  if (facts.length) lines.push(facts.join('  '));
  for (const w of r.warnings) lines.push(`! ${w}`);
  if (r.table.length) {
    lines.push('', '## table');
    for (const [k, v] of r.table) lines.push(`${visible(k)}: ${visible(v)}`);
  }
  if (r.content && !r.timelines.length) lines.push('', '## content', visible(r.content));
  r.timelines.forEach((tl, n) => {
    lines.push('', `## timeline ${n + 1}/${r.timelines.length}: ${visible(tl.key)}`);
    const nums = [
      `outcome: ${visible(tl.outcome)}`,
      tl.rawReward !== undefined ? `raw_reward: ${tl.rawReward}` : '',
      tl.stepReward !== undefined ? `step_reward: ${tl.stepReward}` : '',
      tl.advantage !== undefined ? `advantage: ${tl.advantage}` : '',
      tl.lenPrompt !== undefined ? `len_prompt: ${tl.lenPrompt}` : '',
      tl.lenResponse !== undefined ? `len_response: ${tl.lenResponse}` : '',
    ].filter(Boolean);
    lines.push(nums.join('  '));
    const trained = tl.mask.filter((m) => m === 1).length;
    lines.push(t('{0} tokens, {1} trained (loss mask 1)', tl.text.length, trained));
    for (const w of tl.warnings) lines.push(`! ${w}`);
    // Runs of tokens with one mask value: the prompt and tool output (0) and what the model is trained on (1).
    let i = 0;
    while (i < tl.text.length) {
      const m = tl.mask[i] ?? -1;
      let j = i;
      let text = '';
      while (j < tl.text.length && (tl.mask[j] ?? -1) === m) text += tl.text[j++] ?? '';
      const label = m === 1 ? 'trained, loss mask 1' : m === 0 ? 'context, loss mask 0' : 'loss mask unknown';
      lines.push(`--- ${label} (${j - i} tokens) ---`, visible(text));
      i = j;
    }
  });
  return lines.join('\n');
}

export const logRecordTool: AgentTool = {
  name: 'agentjet_log_record',
  title: 'Read one rollout record',
  description:
    "One record of a token log as readable text: its title, step, task, reward and outcome, and every timeline's messages as the model saw them, split where the loss mask changes (trained tokens vs context), with raw reward, step reward and advantage. Pick it by record number (index, 0-based as agentjet_log_search gives it) or by task id (the first record of that task). Long records come in pages: call again with offset.",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('A .json.log file (a run folder with one host works too).'),
      index: { type: 'integer', minimum: 0, maximum: 1e9, description: 'Record number (0-based).' },
      taskId: { type: 'string', minLength: 1, maxLength: 500, description: 'Task id: the first record of this task.' },
      offset: { type: 'integer', minimum: 0, maximum: 1e10, description: 'Character offset into the record text (for the next page).' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  async run(args, env, signal) {
    const { mains } = await logMains(env, str(args, 'path'));
    if (mains.length > 1)
      throw new ToolError(
        t('the run folder has {0} logs; name one of them: {1}', mains.length, mains.map((m) => shown(env, m)).join(', ')),
      );
    const session = new LogSession(mains[0]!, { within: env.roots });
    await session.update(signal ? { signal } : {});
    // A file the open-time check refused (a link out of the roots, a FIFO): said as such.
    const refused = session.count === 0 ? session.index.problems.find((p) => p.offset === 0 && p.length === 0) : undefined;
    if (refused) throw new ToolError(t('{0}: {1}', shown(env, refused.file), refused.reason));
    const taskId = str(args, 'taskId');
    let index = typeof args.index === 'number' ? args.index : undefined;
    if (index === undefined && taskId === undefined) throw new ToolError(t('give index or taskId'));
    if (index === undefined) {
      await session.summarize(signal ? { signal } : {});
      const found: number[] = [];
      for (let i = 0; i < session.count && found.length < 50; i++) if (session.row(i).taskId === taskId) found.push(i);
      if (!found.length)
        throw new ToolError(t('no record of task {0} in {1} ({2} records)', taskId!, shown(env, mains[0]!), session.count));
      index = found[0]!;
    }
    if (index >= session.count)
      throw new ToolError(
        t('record {0} does not exist: {1} has {2} records (0 to {3})', index, shown(env, mains[0]!), session.count, session.count - 1),
      );
    const r = await session.record(index);
    if (!r) throw new ToolError(t('record {0} could not be read', index));
    if (!r.ok) throw new ToolError(t('record {0} could not be read: {1}', index, r.error));
    const text = renderRecord(index, shown(env, mains[0]!), r.record);
    const offset = int(args, 'offset', 0);
    const budget = MAX_ANSWER_CHARS - 400;
    const part = text.slice(offset, offset + budget);
    const end = offset + part.length;
    return end < text.length
      ? `${part}\n\n${t('[characters {0}-{1} of {2}; call again with offset={3} for the rest]', offset, end, text.length, end)}`
      : part || t('nothing after offset {0}: the record text has {1} characters', offset, text.length);
  },
};
