// Issue 43 item 10: debugpy printed its red "frozen modules ... may miss breakpoints" warning in
// every launch on Python 3.11+ (stdlib modules frozen). It comes from the launcher's child process
// (AgentJet runs the rollout in one): debugpy >= 1.8 starts the launcher itself with
// -X frozen_modules=off (we pass it too, for older debugpy), but the child it follows gets no flag.
// The launch sets PYDEVD_DISABLE_FILE_VALIDATION=1 for every process it starts. The session is
// served as the extension serves it (inline), the backbone shaped like AgentJet's (the rollout in a
// child process, attached as VS Code does). A control launch sets PYDEVD_DISABLE_FILE_VALIDATION=0
// (a user's value wins): the warning then shows, from the child, so its absence in our launch is
// not because this Python or this output never shows it.
import { test, describe, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { demoCopy, standInBackbone, type DemoCopy } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { waitFor } from '../util/poll';
import { skipForEnvironment } from '../util/envSkip';
import { INIT, inlineShell, onReverseRequests, type Shell } from '../conformance/dapShells';

const python = ensureTestPython().python;
const WARNING = /It seems that frozen modules are being used/g;

/** Why the warning cannot show with this Python (its stdlib is not frozen), or undefined. */
function notFrozen(): string | undefined {
  const where = execFileSync(python, ['-c', 'import os; print(os.path.realpath.__code__.co_filename)'], { encoding: 'utf8' }).trim();
  return where.startsWith('<frozen')
    ? undefined
    : `${python} does not freeze its stdlib (os.path.realpath from ${where}): debugpy never warns`;
}

describe('no frozen-modules warning from debugpy in a launch', { timeout: 300_000 }, () => {
  let w: DemoCopy;
  let shell: Shell;
  before(async () => {
    w = await demoCopy('aj-frozen-');
    shell = await inlineShell();
  });
  after(async () => {
    await shell?.close();
    await w?.dispose();
  });

  /** One launch to its end, the launcher's child attached; every output text of both sessions. */
  async function launch(env: Record<string, string>): Promise<string> {
    const dc = await shell.client();
    const children: DebugProtocol.StartDebuggingRequestArguments[] = [];
    onReverseRequests(dc, (r) => {
      if (r.command === 'startDebugging') children.push(r.arguments as DebugProtocol.StartDebuggingRequestArguments);
    });
    const outputs: string[] = [];
    dc.on('output', (e: DebugProtocol.OutputEvent) => outputs.push(e.body.output));
    let child: DebugClient | undefined;
    try {
      await dc.initializeRequest(INIT);
      const terminated = dc.waitForEvent('terminated', 120_000);
      await Promise.all([
        dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
        dc.launchRequest({
          config: w.config,
          cwd: w.dir,
          python,
          env: { PYTHONPATH: standInBackbone, AJET_STANDIN_CHILD_PROCESS: '1', ...env },
        } as DebugProtocol.LaunchRequestArguments),
      ]);
      // debugpy holds the launcher's child until a session attaches to it, as VS Code's does.
      const req = await waitFor(() => children.at(-1), "debugpy to report the launcher's child process", 60_000, 100);
      const cfg = req.configuration as DebugProtocol.AttachRequestArguments & { connect: { port: number } };
      child = new DebugClient('node', '', 'python');
      await child.start(cfg.connect.port);
      child.on('output', (e: DebugProtocol.OutputEvent) => outputs.push(e.body.output));
      await child.initializeRequest({ ...INIT, adapterID: 'debugpy' });
      const attached = child.attachRequest(cfg);
      await child.waitForEvent('initialized');
      await Promise.all([child.configurationDoneRequest(), attached]);
      await terminated;
      const text = outputs.join('');
      assert.match(text, /Debug rollout finished: 2 task\(s\)/, 'the launch ran to its end');
      return text;
    } finally {
      (child as unknown as { stopAdapter(): void } | undefined)?.stopAdapter();
      await dc.stop().catch(() => undefined);
    }
  }

  test("our launch shows no warning; with PYDEVD_DISABLE_FILE_VALIDATION=0 the launcher's child shows it", async (t) => {
    if (skipForEnvironment(t, notFrozen())) return;
    const ours = await launch({});
    assert.deepEqual(ours.match(WARNING) ?? [], [], ours);
    const control = await launch({ PYDEVD_DISABLE_FILE_VALIDATION: '0' });
    // After the launcher says it starts the child: the child's warning.
    const child = control.indexOf('Starting the rollout in a child process');
    assert.ok(child >= 0 && control.slice(child).match(WARNING), `the child's warning:\n${control}`);
  });
});
