// The project's own test fixtures, generated on demand into a temporary folder (once per process,
// removed at exit). Tests call fixtures() instead of reading files from outside the repository.
//   npx tsx test/gen/index.ts OUT                    writes every fixture under OUT (to look at them)
//   npx tsx test/gen/index.ts rollout OUT.json.log [--mb N] [--entries N] [--tokens N] [--plain] [--hostile] [--seed N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeOddLogs } from './logs';
import { writeWorkspace } from './workspace';
import { writeRolloutLog } from './rollout';

export interface Fixtures {
  root: string;
  /** hostile, plain, truncated and beast-logger-sample .json.log files (nothing else). */
  logs: string;
  /** plain.json.log with CRLF line endings. */
  crlf: string;
  /** rollout.json.log with two rotated siblings. */
  rotated: string;
  /** A workspace: saved_experiments/ with math_agent (finished), appworld (failed), countdown (finished), saved_checkpoints/. */
  workspace: string;
  /** The math_agent run's rollout log: 16 records, 2 timelines each, steps 0..3. */
  rollout: string;
  /** The math_agent run's evaluation log: 2 table records. */
  evaluation: string;
}

function writeFixtures(root: string): Fixtures {
  const odd = writeOddLogs(root);
  const workspace = join(root, 'workspace');
  const [math] = writeWorkspace(workspace, { experiments: 3, steps: 4, tokens: 300 });
  const host = join(workspace, 'saved_experiments', math!, '2026_01_05_09_00', 'gpu-node-0');
  return {
    root,
    ...odd,
    workspace,
    rollout: join(host, 'rollout', 'rollout.json.log'),
    evaluation: join(host, 'evaluation', 'evaluation.json.log'),
  };
}

let memo: Fixtures | undefined;

/** The fixtures of this process (generated at the first call). */
export function fixtures(): Fixtures {
  if (memo) return memo;
  const root = mkdtempSync(join(tmpdir(), 'agentjet-fixtures-'));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  memo = writeFixtures(root);
  return memo;
}

function main(argv: string[]): void {
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  if (argv[0] === 'rollout' && argv[1]) {
    const mb = Number(flag('--mb') ?? 0);
    const r = writeRolloutLog(resolve(argv[1]), {
      ...(mb > 0 ? { targetBytes: mb * 1024 * 1024 } : { entries: Number(flag('--entries') ?? 20) }),
      tokens: Number(flag('--tokens') ?? 2000),
      seed: Number(flag('--seed') ?? 0),
      plain: argv.includes('--plain'),
      hostile: argv.includes('--hostile'),
    });
    process.stderr.write(`wrote ${r.records} records to ${argv[1]} (${(r.bytes / 1e6).toFixed(1)} MB)\n`);
    return;
  }
  if (argv.length !== 1) {
    process.stderr.write(
      'usage: tsx test/gen/index.ts OUT | rollout OUT.json.log [--mb N] [--entries N] [--tokens N] [--plain] [--hostile] [--seed N]\n',
    );
    process.exit(2);
  }
  const f = writeFixtures(resolve(argv[0]!));
  process.stdout.write(`${JSON.stringify(f, null, 2)}\n`);
}

if (require.main === module) main(process.argv.slice(2));
