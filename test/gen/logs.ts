// The odd token logs the engine, the CLI and the viewer must survive, written by our generator:
//   hostile.json.log     6 records; HTML/JS-looking and control-character tokens (every HOSTILE_TOKENS entry)
//   plain.json.log       4 records x 2 timelines; uncompressed JSON payloads
//   truncated.json.log   5 records; the last one cut mid-write (as a killed writer leaves it)
//   beast-logger-sample.json.log  8 records in the shapes beast-logger's own demo writes: plain
//                        print_dict-style messages, a nested evaluation record, and a nested record
//                        whose token ids are not numbers, with no titles (logprobs), spread over lines
// and, beside them (not in logs/):
//   crlf/plain.json.log  plain.json.log with CRLF line endings
//   rotated/             rollout.json.log plus two loguru-rotated siblings (rollout.json.<stamp>.log)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { frame, pyJson, rolloutRecords, writeRolloutLog, type RolloutOptions } from './rollout';

const ODD_LOGS = { hostile: 6, plain: 4, truncated: 5, sample: 8 } as const;

function records(o: RolloutOptions & { entries: number }): string {
  let out = '';
  let n = 0;
  for (const { when, payload } of rolloutRecords(o)) {
    if (n++ >= o.entries) break;
    out += frame(when, payload, { plain: o.plain ?? false });
  }
  return out;
}

/** The text of hostile.json.log. */
export function hostileLogText(): string {
  return records({ entries: ODD_LOGS.hostile, tokens: 300, hostile: true, seed: 11 });
}

function sample(): string {
  const src = '__main__:<module>:42';
  const t = (min: number) => new Date(Date.UTC(2026, 0, 4, 8, min, 0, 250));
  let out = '';
  const msgs: [string, string, string | undefined][] = [
    ['First message', '#FF88cc', 'an attachment'],
    ['Second message', '#3333cc', undefined],
    ['Third message', '#3333cc', 'another attachment'],
    ['Fourth message', '#3333cc', undefined],
    ['Fifth message', '#3333cc', 'a third attachment'],
    ['Fifth message', '#3333cc', 'a third attachment'],
  ];
  msgs.forEach(([header, color, attach], i) => {
    const p: Record<string, unknown> = { header, color, content: '主内容 — main content' };
    if (attach !== undefined) p.attach = attach;
    out += frame(t(10 * Math.min(i, 4)), p, { plain: true, source: src });
  });
  // A nested evaluation record: per-task timelines with numeric ids and AgentJet's two colours.
  const words = [
    '<|im_start|>',
    'system',
    '\n',
    'You',
    ' are',
    ' a',
    ' helpful',
    ' assistant',
    '.',
    '<|im_end|>',
    '\n',
    '<|im_start|>',
    'assistant',
    '\n',
    'Sure',
    '.',
    '<|im_end|>',
  ];
  const nested: Record<string, unknown> = {};
  for (let k = 1; k <= 3; k++) {
    const text = Array.from({ length: 40 * k }, (_, i) => words[i % words.length]!);
    nested[`5e1f00a.${k}`] = {
      task_id: `5e1f00a_${k}`,
      reward: 0.02 * (k - 1),
      advantage: 0.02 * (k - 1),
      content: { text, count: text.map((_, i) => 151_000 + (i % 600)), color: text.map((_, i) => (i < 11 ? '#D98510' : '#09ABCF')) },
    };
  }
  out += frame(
    t(40),
    {
      header: 'Evaluation of a small dataset',
      color: '#337711',
      content: 'Total tasks: 3, Success: 0, Failure: 1, Half-success: 2',
      attach: 'Scenarios: 1',
      nested: true,
      nested_json: nested,
    },
    { plain: true, source: src },
  );
  // Non-numeric ids, no titles, an off-palette colour, and the JSON spread over several lines.
  const odd = {
    'X1.Y2.Z3': {
      col1: 'v1',
      col2: 'v2',
      content: {
        text: ['Every', 'token', 'here', 'is', 'odd', '.'],
        count: ['A000', 'B111', 'C222', 'D333', 'E444', 'F555'],
        color: Array(6).fill('#fa1111'),
      },
    },
    'X1.Y2.Z4': {
      task_id: '5e1f00a_9',
      reward: 0,
      content: {
        text: ['<|im_start|>', 'user', '\n', 'Hi', '<|im_end|>'],
        count: [151644, 872, 198, 13048, 151645],
        color: Array(5).fill('#D98510'),
      },
    },
  };
  const body = `{"header": "Nested odd record", "color": "#337711", "content": "主内容", "attach": "copy", "nested": true, "nested_json":{${Object.entries(
    odd,
  )
    .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
    .join(',\n')}\n}}`;
  out += frame(t(40), body, { plain: true, source: src });
  return out;
}

/** Writes the odd logs under `root` (logs/, crlf/, rotated/). */
export function writeOddLogs(root: string): { logs: string; crlf: string; rotated: string } {
  const logs = join(root, 'logs');
  mkdirSync(logs, { recursive: true });
  writeFileSync(join(logs, 'hostile.json.log'), hostileLogText());
  writeRolloutLog(join(logs, 'plain.json.log'), { entries: ODD_LOGS.plain, tokens: 300, plain: true, seed: 12 });
  const whole = records({ entries: ODD_LOGS.truncated, tokens: 300, seed: 13 });
  const lastStart = whole.lastIndexOf('\n2026-') + 1;
  // Cut inside the last payload: the header and part of the base64 are there, the rest never came.
  writeFileSync(join(logs, 'truncated.json.log'), whole.slice(0, lastStart + Math.floor((whole.length - lastStart) * 0.6)));
  writeFileSync(join(logs, 'beast-logger-sample.json.log'), sample());

  const crlf = join(root, 'crlf');
  mkdirSync(crlf, { recursive: true });
  writeFileSync(join(crlf, 'plain.json.log'), readFileSync(join(logs, 'plain.json.log'), 'utf8').replace(/\n/g, '\r\n'));

  // loguru rotation renames the full file to <name>.<YYYY-MM-DD_HH-mm-ss_ffffff>.log and starts anew.
  const rotated = join(root, 'rotated');
  mkdirSync(rotated, { recursive: true });
  const parts = [
    ['rollout.json.2026-01-05_10-00-00_000000.log', 21],
    ['rollout.json.2026-01-05_10-30-00_000000.log', 22],
    ['rollout.json.log', 23],
  ] as const;
  parts.forEach(([name, seed], i) => {
    writeRolloutLog(join(rotated, name), {
      entries: 3,
      tokens: 60,
      seed,
      tasksPerStep: 3,
      start: new Date(Date.UTC(2026, 0, 5, 9 + i, 0)),
    });
  });
  writeFileSync(join(rotated, 'rollout.log'), 'the text log: not a sibling\n');
  return { logs, crlf, rotated };
}
