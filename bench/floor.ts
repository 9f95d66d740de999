// The inflate-only floor of `npm run bench:tokens`, bundled by the bench (bench-output/floor.js) and
// run like the CLI: a node process that opens the log as `agentjet log` does (core/logs/wholelog),
// plans the same tasks and runs them on the same pool and worker bundle (AGENTJET_LOG_WORKER,
// AGENTJET_LOG_WORKERS), where each task only reads, base64-decodes and inflates every payload.
// Timed from outside (whole process), as the CLI's commands are.
//   node bench-output/floor.js <file.json.log>
import { allTasks, openLogs } from '../core/logs/wholelog';
import { runTasks } from '../core/logs/pool';

async function main(): Promise<void> {
  const file = process.argv[2]!;
  const opened = await openLogs([file], { siblings: false });
  let inflated = 0;
  await runTasks(allTasks(opened), { kind: 'inflate' }, (r) => {
    if (r.kind === 'inflate') inflated += r.inflated;
  });
  process.stdout.write(`NOTE ${(inflated / 1048576).toFixed(0)} MB of JSON\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
