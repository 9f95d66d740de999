// The baseline of bench/bombs.ts: the naive way to read a token log, measured in the same run on the
// same file. Reads the file whole, splits it into records, inflates every `base64:` payload with
// zlib.inflateSync (no output limit) and parses the JSON.
//   node bench/naive-log.mjs <file.json.log>
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

const text = readFileSync(process.argv[2], 'utf8');
let records = 0;
let tokens = 0;
for (const line of text.split('\n')) {
  const body = line.startsWith('base64:')
    ? inflateSync(Buffer.from(line.slice(7), 'base64')).toString('utf8')
    : line.startsWith('{')
      ? line
      : '';
  if (!body) continue;
  const rec = JSON.parse(body);
  records++;
  for (const v of Object.values(rec.nested_json ?? {})) tokens += v?.content?.text?.length ?? 0;
}
console.log(`records open: ${records}, ${tokens} tokens`);
