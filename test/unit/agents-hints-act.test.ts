// The acting tools' hints cannot drift from what they do (issue 44), as agents-hints.test.ts does for
// the reading ones: each is called on a copy of the demo (stand-in backbone) with a recording
// environment, without and with an interpreter handed in: an interpreter that leaves a marker, the
// workspace's files compared before and after (edits), the client's launches counted (starts, stops),
// and the answer's outcome (waits). What it did gives its `acts` nature and its hints, which must be
// the declared ones. Without acting allowed (no launches in the environment) each is refused.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoCopy, standInBackbone, type DemoCopy } from '../util/debugWorkspace';
import { ensureTestPython } from '../harness/python';
import { ACT_TOOLS, AgentLaunches, callTool, toolHints, type AgentToolEnv, type ToolHints } from '../../core/agents/tools';
import { resolveAttributes } from '../../core/launch/attributes';

const dir = mkdtempSync(join(tmpdir(), 'aj-hints-act-'));
const marker = join(dir, 'ran.log');
const python = join(dir, 'python');
writeFileSync(
  python,
  `#!/bin/sh\nprintf 'ran %s\\n' "$1" >> '${marker}'\nPYTHONPATH='${standInBackbone}' exec '${ensureTestPython().python}' "$@"\n`,
);
chmodSync(python, 0o755);
const ran = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

let w: DemoCopy;
const all: AgentLaunches[] = [];
before(async () => {
  w = await demoCopy('aj-hints-act-ws-');
});
after(async () => {
  for (const l of all) await l.close(15_000);
  await w?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** The workspace's files (not the runs the launches write) and a hash of each. */
function files(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'saved_experiments' && e.name !== 'launcher_record' && e.name !== '.agentjet-vscode') walk(p);
      } else if (e.isFile()) out.set(p, createHash('sha1').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(w.dir);
  return out;
}

type Nature = 'waits' | 'edits' | 'starts' | 'stops';

const CALLS: Record<string, { args: Record<string, unknown>; prepare?: (launches: AgentLaunches) => void | Promise<void> }> = {
  agentjet_wait: { args: { path: 'saved_experiments/math_demo_20260103_1010', timeoutS: 2 } },
  agentjet_apply_fix: {
    args: { path: 'typo.yaml', line: 4 },
    prepare: () => writeFileSync(join(w.dir, 'typo.yaml'), 'ajet:\n  project_name: typo\n  rollout:\n    max_env_workr: 4\n'),
  },
  agentjet_debug_task: { args: { config: 'math_agent.yaml', taskId: 'demo-000' } },
  agentjet_train: { args: { config: 'math_agent.yaml', backbone: 'verl' } },
  agentjet_stop: {
    args: { run: 'launch-1' },
    // A launch of this client to stop (started here, so the call itself only stops).
    prepare: async (launches) => {
      const env = { AJET_STANDIN_STEP_S: '0.3', AJET_STANDIN_STEPS: '1000' };
      const l = launches.start(
        'train',
        resolveAttributes({ config: w.config, cwd: w.dir, python, backbone: 'verl', noDebug: true, env }),
        'test',
      );
      while (!l.runDir && !l.end) await launches.changedWithin(5000);
      assert.ok(l.runDir && !l.end, l.output());
      launches.started = 0;
    },
  },
};

test('every acting tool has a call here', () => {
  assert.deepEqual(Object.keys(CALLS).sort(), ACT_TOOLS.map((x) => x.name).sort());
});

for (const tool of ACT_TOOLS)
  test(`${tool.name}: refused unless acting is allowed`, async () => {
    const r = await callTool(tool.name, CALLS[tool.name]!.args, {
      roots: [w.dir],
      mayRunPython: true,
      python: () => Promise.resolve(python),
    });
    assert.equal(r.isError, true);
    assert.match(r.text, /--allow-act/);
  });

for (const tool of ACT_TOOLS)
  test(`${tool.name}: the declared nature and hints are what it does, with and without an interpreter`, async () => {
    for (const given of [false, true]) {
      const launches = new AgentLaunches({ watchdog: false });
      all.push(launches);
      await CALLS[tool.name]!.prepare?.(launches);
      rmSync(marker, { force: true });
      const env: AgentToolEnv = {
        roots: [w.dir],
        mayRunPython: given,
        python: () => Promise.resolve(given ? python : undefined),
        launches,
        factsCacheDir: join(dir, 'facts'),
        logCacheDir: join(dir, 'logs'),
      };
      const before = files();
      const answer = await callTool(tool.name, CALLS[tool.name]!.args, env);
      const after = files();
      const why = `${tool.name} (interpreter ${given ? 'given' : 'not given'}): ${answer.text.slice(0, 600)}\n${ran()}`;
      const didRun = ran() !== '';
      if (!given) assert.equal(didRun, false, `nothing runs without an interpreter handed in: ${why}`);
      if (tool.runsWorkspaceCode === 'always' && !given) {
        assert.equal(answer.isError, true, why);
        assert.match(answer.text, /--python PATH/, why);
        assert.equal(launches.started, 0, why);
        continue;
      }
      assert.equal(answer.isError, false, why);
      const edited = [...after].some(([p, h]) => before.get(p) !== h) || before.size !== after.size;
      const waited = /"outcome": "(reached|ended|stalled|timeout)"/.test(answer.text);
      const did: Nature[] = [
        ...(waited ? (['waits'] as const) : []),
        ...(edited ? (['edits'] as const) : []),
        ...(launches.started > 0 ? (['starts'] as const) : []),
        ...(launches.stops > 0 ? (['stops'] as const) : []),
      ];
      assert.deepEqual(did, [tool.acts], why);
      const observed: ToolHints = {
        readOnlyHint: !didRun && (did[0] === 'waits' || did.length === 0),
        destructiveHint: didRun || edited || launches.stops > 0,
        idempotentHint: !didRun && !edited && launches.started === 0,
        openWorldHint: didRun,
      };
      assert.deepEqual(toolHints(tool, given), observed, why);
      await launches.close(15_000);
    }
    if (tool.runsWorkspaceCode !== 'never') assert.match(ran(), /^ran /m, tool.name);
  });
