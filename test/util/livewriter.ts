// A stand-in for a training process: takes the logger lock, appends rollout records, and on
// "stop" on stdin removes the lock and exits (as beast-logger does at exit); on "quiet" it stops
// writing but keeps its lock and lives on (a hung run).
export const LIVE_WRITER = String.raw`
const fs = require('fs'), path = require('path'), zlib = require('zlib');
const [exp, host] = process.argv.slice(1);
const dir = path.join(exp, '2026_02_01_12_00', host);
for (const m of ['rollout', 'regular', 'exception']) fs.mkdirSync(path.join(dir, m), { recursive: true });
fs.writeFileSync(path.join(exp, 'yaml_backup.yaml'), 'ajet:\n  project_name: live_demo\n  experiment_name: ' + path.basename(exp) + '\n');
fs.writeFileSync(path.join(dir, '.logger_lock'), String(process.pid));
fs.writeFileSync(path.join(dir, 'regular', 'regular.log'), '2026-02-01 12:00:00.000 | INFO     | ajet.launcher:main:1 - started\n');
let step = 0;
const write = () => {
  const payload = JSON.stringify({ header: '[' + step + '] Task t' + step + ' (Reward ' + (step % 2 ? '1.000' : '0.500') + ')', nested: true, nested_json: {} });
  fs.appendFileSync(path.join(dir, 'rollout', 'rollout.json.log'), '2026-02-01 12:00:00.000 | INFO     | ajet.context_tracker:generate_log:556 - \nbase64:' + zlib.deflateSync(Buffer.from(payload)).toString('base64') + '\n');
  step++;
};
write();
const timer = setInterval(write, 300);
process.stdin.on('data', (d) => {
  if (String(d).includes('quiet')) clearInterval(timer);
  if (String(d).includes('stop')) { clearInterval(timer); fs.rmSync(path.join(dir, '.logger_lock')); process.exit(0); }
});
`;
