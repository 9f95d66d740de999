import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateText } from '/work/wt-31/core/config/validate';
import { ClassResolver } from '/work/wt-31/core/config/classref';
import { CachedFs } from '/work/wt-31/core/config/fs';
function generated(lines: number): string {
  const base = readFileSync(join('/work/wt-31', 'demo', 'math_agent.yaml'), 'utf8').split('\n');
  const out = [...base];
  let i = 0;
  out.push('actor_rollout_ref:');
  while (out.length < lines) {
    out.push(`  block_${i}:`, `    lr_${i}: 0.001`, `    enable_${i}: true`, `    name_${i}: "value ${i}"`, `    list_${i}:`, `      - a`, `      - b`);
    i++;
  }
  return out.slice(0, lines).join('\n') + '\n';
}
const resolver = new ClassResolver(new CachedFs(60_000));
for (const n of [5000, 5000, 20000]) {
  const text = generated(n);
  const ts: number[] = [];
  for (let i = 0; i < 25; i++) { const t0 = performance.now(); validateText(text, { root: '/tmp', resolver }); if (i >= 5) ts.push(performance.now() - t0); }
  ts.sort((a, b) => a - b);
  console.log(n, ts[10]!.toFixed(1), 'ms', ((ts[10]! * 1000) / n).toFixed(1), 'us/line');
}
