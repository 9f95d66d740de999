// Small hand-made token logs (AgentJet-shaped records) and a whole-log reader, shared by the
// log engine tests (test/unit/logs-engine.test.ts, logs-decode.test.ts).
import { deflateSync } from 'node:zlib';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSession } from '../../core/logs/session';

export const HEADER = (t = '2026-01-05 10:00:00.000') => `${t} | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - \n`;

export interface TL {
  text: string[];
  title?: string[];
  count?: (string | number)[];
  color?: string[];
}
export function payload(step: number, task: string, reward: number, tls: TL[]): Record<string, unknown> {
  const nested: Record<string, unknown> = {};
  tls.forEach((t, i) => {
    nested[`${task}.${reward.toFixed(1)}.${i}`] = {
      item_id: 'item',
      outcome: reward.toFixed(1),
      len_prompt_ids: 1,
      len_response_ids: t.text.length - 1,
      len_input_ids: t.text.length,
      raw_reward: reward.toFixed(3),
      step_reward: reward.toFixed(3),
      step_advantage: (reward - 0.5).toFixed(3),
      step_advantage_simple: '0',
      content: {
        text: t.text,
        title: t.title ?? t.text.map((_, k) => (k === 0 ? 'N/A' : '-0.5000')),
        count: t.count ?? t.text.map((_, k) => String(100 + k)),
        color: t.color ?? t.text.map((_, k) => (k === 0 ? '#d98510' : '#09abcf')),
      },
    };
  });
  return {
    header: `[${step}] Task ${task} (Reward ${reward.toFixed(3)})`,
    color: '#337711',
    content: 'c',
    attach: 'a',
    nested: true,
    nested_json: nested,
  };
}
export const b64 = (obj: unknown) => 'base64:' + deflateSync(Buffer.from(JSON.stringify(obj))).toString('base64') + '\n';
export const rec = (obj: unknown, t?: string) => HEADER(t) + b64(obj);
export const small = (step: number, task: string, reward = 1) =>
  rec(payload(step, task, reward, [{ text: ['<|im_start|>', 'Hi', ' there'] }]));

export function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'ajlogs-'));
}

export async function readAll(path: string, opts: { siblings?: boolean; chunkSize?: number } = {}) {
  const s = new LogSession(path, { siblings: opts.siblings });
  await s.update({ chunkSize: opts.chunkSize });
  await s.summarize();
  const results = [];
  for (let i = 0; i < s.count; i++) results.push(await s.record(i));
  return { s, results };
}

/** Record starts by a naive line scan, to check the byte scanner against. */
export function naiveCount(path: string): number {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \| [A-Z]+ *\| .* -/.test(l)).length;
}
