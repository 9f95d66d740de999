// The environment gates the preflight and Check Environment read from a framework's code
// (core/diagnose/gates.ts) against that code itself: each tree's own verify_python_env and
// check_debugpy_version (run by python/run_gates.py with stand-in verl and debugpy versions)
// decide, for every version and backbone, and ours must decide the same. AgentJet 2026 (ajet),
// ASTuner of November and December 2025 (astuner), ASTune (astune, launcher.py at its root).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { withUpstream, type UpstreamName } from '../util/upstream';
import { ensureTestPython } from '../harness/python';
import { repoRoot } from '../util/paths';
import { readGates, verlAllowed } from '../../core/diagnose/gates';
import { nodeFs } from '../../core/fs/seam';
import { compareVersions } from '../../core/process/version';

const VERL = ['0.4.1', '0.5.0.post1', '0.5.0.dev2', '0.7.0.post1', '0.7.1', '0.8.0.dev1', '1.0.5.0.post1'];
const DEBUGPY = ['1.6.7', '1.7.0', '1.8.0', '1.8.11'];
const BACKBONES = ['verl', 'trinity', 'debug'];

interface Real {
  verify: Record<string, Record<string, boolean>> | null;
  debugpy: Record<string, boolean> | null;
}

function runReal(files: string[], root: string): Real {
  const r = spawnSync(ensureTestPython().python, [join(repoRoot, 'test', 'conformance', 'python', 'run_gates.py')], {
    input: JSON.stringify({ files, verl: VERL, debugpy: DEBUGPY, backbones: BACKBONES, root }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Real;
}

// Each tree's launch code, named independently of core/diagnose/gates.ts: launch_utils.py and the
// launcher its console script or documented command runs.
const trees: [UpstreamName, 'ajet' | 'astuner' | 'astune', string[]][] = [
  ['agentjet-d20cce0', 'ajet', ['ajet/utils/launch_utils.py', 'ajet/launcher.py']],
  ['agentjet-c68c154', 'ajet', ['ajet/utils/launch_utils.py', 'ajet/launcher.py']],
  ['astuner-f9fab4f', 'astuner', ['astuner/utils/launch_utils.py', 'astuner/cli/launcher.py']],
  ['astuner-61e9359', 'astuner', ['astuner/utils/launch_utils.py', 'astuner/cli/launcher.py']],
  ['astune-ba24412p', 'astune', ['astune/utils/launch_utils.py', 'launcher.py']],
];

for (const [name, pkg, files] of trees)
  test(
    `${name}: the verl and debugpy versions our gates refuse are the ones its own code refuses`,
    withUpstream(name, async (dir) => {
      const pkgDir = join(dir, pkg);
      const real = runReal(
        files.map((f) => join(dir, f)),
        pkg,
      );
      const gates = await readGates(nodeFs(), pkgDir);
      assert.equal(gates.verlCheck, real.verify !== null, 'verify_python_env found');
      assert.equal(gates.debugpyCheck, real.debugpy !== null, 'check_debugpy_version found and called');
      for (const backbone of BACKBONES)
        for (const v of VERL) {
          const ours = !gates.verlCheck || verlAllowed(gates, v, backbone);
          assert.equal(ours, real.verify?.[backbone]?.[v] ?? true, `verl ${v} --backbone ${backbone}`);
        }
      for (const v of DEBUGPY) {
        const ours = !gates.debugpyCheck || compareVersions(v, gates.debugpyMin) >= 0;
        assert.equal(ours, real.debugpy?.[v] ?? true, `debugpy ${v}`);
      }
    }),
  );
