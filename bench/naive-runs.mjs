// The baseline of bench/scale-runs.ts: the naive listing, measured in the same run on the same trees.
// One thread; for every experiment it parses the config snapshot, walks every folder, stats every file
// and reads every log whole, counting its records (what a listing without caches or limits does).
//   node bench/naive-runs.mjs <saved_experiments>
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const root = process.argv[2];
let files = 0;
let records = 0;
let bytes = 0;
function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else {
      files++;
      bytes += statSync(p).size;
      if (e.name.endsWith('.log'))
        records += readFileSync(p, 'utf8')
          .split(/\n(?=\d{4}-\d\d-\d\d )/)
          .filter((r) => r.trim()).length;
    }
  }
}
const out = [];
for (const name of readdirSync(root).sort()) {
  const exp = join(root, name);
  let project = '';
  try {
    project = String(parse(readFileSync(join(exp, 'yaml_backup.yaml'), 'utf8'))?.ajet?.project_name ?? '');
  } catch {
    /* no snapshot */
  }
  walk(exp);
  out.push(`${name}\t${project}`);
}
process.stdout.write(out.join('\n') + `\n${out.length} experiments, ${files} files, ${bytes} bytes, ${records} records\n`);
