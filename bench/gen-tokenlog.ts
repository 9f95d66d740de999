// A small streaming generator of AgentJet-shaped rollout logs for the benchmark (same record
// shape and size mix as the context tracker writes: two timelines of ~3,000 tokens, a prompt
// then alternating trained / context segments, logprob-shaded colours, Python json.dumps
// separators, zlib + base64). Deterministic for a seed.
import { closeSync, openSync, writeSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { prng, shade } from '../test/gen/rollout';

const WORDS = (
  'the of to and a in is it you that he was for on are with as I his they be at one have this from or had by word but what some ' +
  'we can out other were all there when up use your how said an each she which do their time if will way about many then them write would ' +
  'like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than ' +
  'call first who may down side been now find answer tool python result compute total step reward final print import math def return value'
).split(' ');
const SPECIAL = ['<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<think>', '</think>'];
const UNICODE = ['你好', '世界', 'é', 'ß', '😀', '→', '∑', '\t', '  ', '\n\n', '"', '\\'];
const PUNCT = [',', '.', '\n', ':', '(', ')', '=', '+', '0', '1', '2', '42'];

const TRAINED = '#09abcf';
const CONTEXT = '#d98510';

const py = (v: string) => JSON.stringify(v);

/** Writes records until the file holds `targetBytes`; returns records and bytes written. */
export function writeTokenLog(path: string, targetBytes: number, seed = 1, rare = 'zebra-quokka-7'): { records: number; bytes: number } {
  const r = prng(seed);
  const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)]!;
  const fd = openSync(path, 'w');
  let bytes = 0,
    n = 0;
  let when = Date.UTC(2026, 0, 5, 10, 0, 0);
  try {
    while (bytes < targetBytes) {
      const step = Math.floor(n / 8);
      const task = Math.floor(r() * 2 ** 28)
        .toString(16)
        .padStart(7, '0');
      const reward = pick([0, 0, 0.5, 1, 1]);
      const outcome = reward.toFixed(1);
      const items: string[] = [];
      for (let idx = 0; idx < 2; idx++) {
        const total = Math.max(16, Math.floor(3000 * (0.5 + r())));
        const nPrompt = Math.max(8, Math.floor(total * (0.2 + 0.3 * r())));
        const text: string[] = [],
          title: string[] = [],
          count: string[] = [],
          color: string[] = [];
        let mask = 0,
          seg = nPrompt;
        for (let i = 0; i < total; i++) {
          if (i === seg) {
            mask = i === nPrompt ? 1 : 1 - mask;
            seg = i + (mask ? 20 + Math.floor(r() * 380) : 10 + Math.floor(r() * 190));
          }
          const x = r();
          const tok =
            n % 1000 === 500 && i === 100
              ? rare
              : x < 0.03
                ? pick(UNICODE)
                : x < 0.05
                  ? pick(SPECIAL)
                  : x < 0.15
                    ? pick(PUNCT)
                    : (r() < 0.8 ? ' ' : '') + pick(WORDS);
          const lp = i >= nPrompt ? (-Math.log(1 - r()) / 1.2) * -1 : 0;
          text.push(py(tok));
          title.push(i >= nPrompt ? `"${lp.toFixed(4)}"` : '"N/A"');
          count.push(`"${Math.floor(r() * 151643)}"`);
          color.push(`"${shade(i >= nPrompt && mask ? TRAINED : CONTEXT, lp)}"`);
        }
        const adv = (reward - 0.5 + (r() - 0.5) * 0.2).toFixed(3);
        items.push(
          `${py(`${task}.${outcome}.${idx}`)}: {"item_id": "item", "outcome": "${outcome}", "len_prompt_ids": ${nPrompt}, "len_response_ids": ${total - nPrompt}, "len_input_ids": ${total}, ` +
            `"raw_reward": "${reward.toFixed(3)}", "step_reward": "${reward.toFixed(3)}", "step_advantage": "${adv}", "step_advantage_simple": "${adv}", ` +
            `"content": {"text": [${text.join(', ')}], "title": [${title.join(', ')}], "count": [${count.join(', ')}], "color": [${color.join(', ')}]}}`,
        );
      }
      const json = `{"header": "[${step}] Task ${task} (Reward ${reward.toFixed(3)})", "color": "#337711", "content": "This is the main content of the nested JSON", "attach": "copy this", "nested": true, "nested_json": {${items.join(', ')}}}`;
      const d = new Date(when);
      const stamp = d.toISOString().replace('T', ' ').slice(0, 23);
      const rec = `${stamp} | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - \nbase64:${deflateSync(Buffer.from(json)).toString('base64')}\n`;
      bytes += writeSync(fd, rec);
      when += 50 + Math.floor(r() * 3950);
      n++;
    }
  } finally {
    closeSync(fd);
  }
  return { records: n, bytes };
}

if (require.main === module) {
  const [out, mb] = process.argv.slice(2);
  if (!out) {
    console.error('usage: gen-tokenlog.ts <out.json.log> [MB]');
    process.exit(2);
  }
  console.log(writeTokenLog(out, Number(mb ?? 10) * 1048576));
}
