// Runs the extension-host suites (dist/test/exthost) inside a real VS Code: a VS Code server plus
// headless Chromium opening a temporary copy of demo/ with this extension in development mode
// (what @vscode/test-electron does on a desktop). Prints "exthost: N passed, N failed".
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  openSync,
  readSync,
  closeSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, testOutputDir } from '../util/paths';
import { waitFor } from '../util/poll';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage, startServer } from './server';
import { ensureTestPython } from './python';

interface Outcome {
  passed: number;
  failed: number;
  skipped?: number;
  skippedTitles?: string[];
  failures: { title: string; error: string }[];
}

/** 300 Kubernetes manifests, a CI file and a Python service: YAML and Python, no AgentJet. */
function unrelatedWorkspace(root: string): void {
  for (let d = 0; d < 10; d++) {
    const dir = join(root, 'deploy', `service-${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 30; f++)
      writeFileSync(
        join(dir, `manifest-${f}.yaml`),
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: svc-${d}-${f}\ndata:\n  LEVEL: info\n`,
      );
  }
  mkdirSync(join(root, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(root, '.github', 'workflows', 'ci.yml'), 'name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n');
  mkdirSync(join(root, 'app'), { recursive: true });
  writeFileSync(join(root, 'app', 'main.py'), 'import os\n\n\ndef main():\n    print(os.getcwd())\n');
}

const TIMEOUT_MS = Number(process.env.AGENTJET_EXTHOST_TIMEOUT_MS ?? 15 * 60_000);

async function main(): Promise<number> {
  const testsIndex = join(repoRoot, 'dist', 'test', 'exthost', 'index.js');
  if (!existsSync(testsIndex) || !existsSync(join(repoRoot, 'dist', 'extension.js'))) {
    console.error('dist/ is missing: run `npm run build` first');
    return 2;
  }
  const work = mkdtempSync(join(tmpdir(), 'agentjet-exthost-'));
  // AGENTJET_EXTHOST_WORKSPACE=unrelated: a folder of Kubernetes/CI YAML and Python with no AgentJet
  // in it, for the suites in test/exthost/unrelated (what the first stage must not load there).
  const unrelated = process.env.AGENTJET_EXTHOST_WORKSPACE === 'unrelated';
  const workspace = join(work, unrelated ? 'services' : 'demo');
  if (unrelated) unrelatedWorkspace(workspace);
  else cpSync(join(repoRoot, 'demo'), workspace, { recursive: true });
  // On the oldest VS Code the suites check what the editor's API does for us; the host-never-waits
  // suite measures our own code on large inputs (about 45 s) and runs on the newest only.
  const exclude = process.env.AGENTJET_CODE_SERVER_VERSION === 'oldest' ? '90-host-never-waits' : '';
  if (exclude) console.log(`[harness] left out on this VS Code: ${exclude} (run on the newest)`);
  const resultFile = join(work, 'result.json');
  const logFile = join(work, 'progress.log');
  const server = await startServer({
    extensionDevelopment: true,
    env: {
      AGENTJET_TEST_RESULT: resultFile,
      AGENTJET_TEST_LOG: logFile,
      AGENTJET_REPO_ROOT: repoRoot,
      // The tests' Python (pip venv with debugpy >= 1.8; Debian's python3 only as the fallback).
      AGENTJET_TEST_PYTHON: ensureTestPython().python,
      ...(process.env.AGENTJET_TEST_GREP ? { AGENTJET_TEST_GREP: process.env.AGENTJET_TEST_GREP } : {}),
      ...(unrelated ? { AGENTJET_TEST_SUITES: 'unrelated' } : {}),
      ...(exclude ? { AGENTJET_TEST_EXCLUDE: exclude } : {}),
    },
  });
  const browser = await launchBrowser();
  const started = Date.now();
  let page: Page | undefined;
  try {
    const url = server.url(workspace, [
      ['extensionDevelopmentPath', server.remoteUri(repoRoot)],
      ['extensionTestsPath', server.remoteUri(testsIndex)],
    ]);
    // Mocha's reporter runs in the extension host; its console reaches the page prefixed.
    page = await openPage(browser, url, (text) => {
      if (process.env.AGENTJET_HARNESS_DEBUG) process.stdout.write(`[page] ${text}\n`);
    });
    let shown = 0;
    const echoProgress = () => {
      if (!existsSync(logFile)) return;
      const size = statSync(logFile).size;
      if (size <= shown) return;
      const buf = Buffer.alloc(size - shown);
      const fd = openSync(logFile, 'r');
      try {
        readSync(fd, buf, 0, buf.length, shown);
      } finally {
        closeSync(fd);
      }
      shown = size;
      process.stdout.write(buf.toString('utf8'));
    };
    await waitFor(
      () => {
        echoProgress();
        if (server.process.exitCode !== null) throw new Error(`VS Code server exited (${server.process.exitCode})`);
        if (existsSync(resultFile)) return true;
        // The test host ended without a result (a suite that cannot load ends it at once): say so
        // now instead of waiting out the whole timeout.
        if (/Extension Host Process exited/.test(server.output()))
          throw new Error('the extension host ended before the tests reported (a suite failed to load? see the server output)');
        return false;
      },
      'the result file of the extension-host tests',
      TIMEOUT_MS - (Date.now() - started),
      250,
    );
    // The file is written once, after the last test; read it whole.
    const outcome = await waitFor(
      () => {
        try {
          return JSON.parse(readFileSync(resultFile, 'utf8')) as Outcome;
        } catch {
          return undefined;
        }
      },
      'a readable result file',
      2_000,
      100,
    );
    echoProgress();
    for (const f of outcome.failures) console.log(`\n✖ ${f.title}\n${f.error}`);
    console.log(`exthost time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const title of outcome.skippedTitles ?? []) console.log(`- skipped: ${title}`);
    console.log(`exthost: ${outcome.passed} passed, ${outcome.failed} failed, ${outcome.skipped ?? 0} skipped`);
    return outcome.failed > 0 ? 1 : 0;
  } catch (err) {
    console.error(`exthost harness: ${err instanceof Error ? err.message : String(err)}`);
    // What the window showed when it went wrong (a dialog, a notification, an error page).
    if (page) {
      mkdirSync(testOutputDir, { recursive: true });
      const shot = join(testOutputDir, 'exthost-failure.png');
      await page.screenshot({ path: shot }).then(
        () => console.error(`screenshot: ${shot}`),
        () => undefined,
      );
    }
    console.error(`--- server output (tail) ---\n${server.output().slice(-4000)}`);
    console.log('exthost: 0 passed, 1 failed');
    return 1;
  } finally {
    await browser.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    console.log('exthost: 0 passed, 1 failed');
    process.exitCode = 1;
  },
);
