// Loaded by VS Code as `extensionTestsPath`: runs every compiled suite in this folder with mocha,
// inside the real extension host, and writes the outcome where the harness looks for it.
import { appendFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

interface Outcome {
  passed: number;
  failed: number;
  /** Pending tests (`test.skip`, a `this.skip()` inside a test): counted, so none can vanish. */
  skipped: number;
  skippedTitles: string[];
  failures: { title: string; error: string }[];
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000, reporter: 'spec' });
  const grep = process.env.AGENTJET_TEST_GREP;
  if (grep) mocha.grep(grep);
  // AGENTJET_TEST_EXCLUDE: suites left out (comma-separated names without .test.js; see run-exthost.ts).
  // AGENTJET_TEST_SUITES names another folder of suites (the unrelated-workspace run: test/harness/run-exthost.ts).
  const dir = join(__dirname, process.env.AGENTJET_TEST_SUITES === 'unrelated' ? 'unrelated' : 'suites');
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter(
          (f) => f.endsWith('.test.js') && !(process.env.AGENTJET_TEST_EXCLUDE ?? '').split(',').includes(f.replace(/\.test\.js$/, '')),
        )
        .sort()
    : [];
  for (const f of files) mocha.addFile(join(dir, f));
  const resultFile = process.env.AGENTJET_TEST_RESULT;
  return new Promise((resolve, reject) => {
    const outcome: Outcome = { passed: 0, failed: 0, skipped: 0, skippedTitles: [], failures: [] };
    const runner = mocha.run((failures) => {
      if (resultFile) writeFileSync(resultFile, JSON.stringify(outcome, null, 2));
      if (failures > 0) reject(new Error(`${failures} extension-host test(s) failed`));
      else resolve();
    });
    const progress = (line: string) => {
      if (process.env.AGENTJET_TEST_LOG) appendFileSync(process.env.AGENTJET_TEST_LOG, `${line}\n`);
    };
    runner.on('suite', (s) => {
      if (s.title) progress(`  ${s.title}`);
    });
    runner.on('pass', (t) => {
      outcome.passed++;
      progress(`    ✔ ${t.title} (${t.duration ?? 0} ms)`);
    });
    runner.on('pending', (t) => {
      outcome.skipped++;
      outcome.skippedTitles.push(t.fullTitle());
      progress(`    - ${t.title} (skipped)`);
    });
    runner.on('fail', (t, err: unknown) => {
      progress(`    ✖ ${t.title}`);
      outcome.failed++;
      outcome.failures.push({ title: t.fullTitle(), error: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err) });
    });
  });
}
