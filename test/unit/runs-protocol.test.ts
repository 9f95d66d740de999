import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDashboardState, checkDashboardToHost } from '../../core/protocol/validate';

const isDashboardToHost = (m: unknown) => checkDashboardToHost(m).ok;
const isDashboardState = (m: unknown) => checkDashboardState(m).ok;
import { expDirsFromLaunchConfigs } from '../../core/runs/launch';
import { Limiter } from '../../core/fs/seam';

test('dashboard messages from the webview are checked before use', () => {
  assert.equal(isDashboardToHost({ type: 'ready' }), true);
  assert.equal(isDashboardToHost({ type: 'openFile', path: '/x/rollout.json.log' }), true);
  assert.equal(isDashboardToHost({ type: 'openFile', path: 42 }), false);
  assert.equal(isDashboardToHost({ type: 'removeRun' }), false);
  assert.equal(isDashboardToHost({ type: 'runCommand', id: 'rm -rf' }), false);
  assert.equal(isDashboardToHost(null), false);
  assert.equal(isDashboardState({ runs: ['/a', '/b'], evalMetric: 'TGC@1' }), true);
  assert.equal(isDashboardState({ runs: [1] }), false);
  assert.equal(isDashboardState(undefined), false);
});

test('experiment roots from agentjet launch configurations', () => {
  assert.deepEqual(
    expDirsFromLaunchConfigs([
      { type: 'agentjet', name: 'a', args: ['--conf', 'x.yaml', '--exp-dir', 'runs/a'] },
      { type: 'agentjet', name: 'b', args: ['--exp-dir=/abs/b'], expDir: 'runs/c' },
      { type: 'python', name: 'c', args: ['--exp-dir', 'ignored'] },
      'garbage',
    ]),
    ['runs/a', 'runs/c', '/abs/b'],
  );
  assert.deepEqual(expDirsFromLaunchConfigs(undefined), []);
  // AgentJet 0.0.4: the child writes a relative --exp-dir under ISOLATED_AGENTJET_BASE_DIR.
  assert.deepEqual(
    expDirsFromLaunchConfigs([
      { type: 'agentjet', name: 'i', env: { ISOLATED_AGENTJET_BASE_DIR: '/iso' } },
      { type: 'agentjet', name: 'j', env: { ISOLATED_AGENTJET_BASE_DIR: 'iso2' }, args: ['--exp-dir', 'runs'] },
    ]),
    ['/iso/saved_experiments', 'runs', 'iso2/runs'],
  );
});

test('the limiter never runs more than its maximum at once and keeps every result', async () => {
  const limiter = new Limiter(3);
  let active = 0,
    peak = 0;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      limiter.run(async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setImmediate(r));
        active--;
        return i;
      }),
    ),
  );
  assert.equal(peak, 3);
  assert.deepEqual(
    results,
    Array.from({ length: 20 }, (_, i) => i),
  );
});
