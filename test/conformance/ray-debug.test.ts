// What a Ray debug launch adds (core/ray/tags.ts rayLaunchAdditions) against AgentJet's REAL launcher
// code: `parse_args` and `setup_environment_vars` are taken out of ajet/launcher.py with Python's
// ast (importing the module would need the whole framework: ajet/__init__ imports ajet.utils.vsdb,
// which d20cce0 gitignores) and run on our command line. Also checks the facts the Ray fixture's
// stand-in relies on: `bp` comes from ajet.utils.vsdb and vsdb.py is gitignored upstream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withUpstream } from '../util/upstream';
import { ensureTestPython } from '../harness/python';
import { rayLaunchAdditions } from '../../core/ray/tags';

const RUNNER = `
import ast, json, sys, os, argparse, types
src = open(sys.argv[1]).read()
tree = ast.parse(src)
wanted = {"parse_args", "setup_environment_vars"}
mod = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted], type_ignores=[])
ns = {"argparse": argparse, "os": os, "logger": types.SimpleNamespace(warning=lambda *a, **k: None, info=lambda *a, **k: None)}
exec(compile(mod, sys.argv[1], "exec"), ns)
sys.argv = ["ajet"] + json.loads(sys.argv[2])
args = ns["parse_args"]()
for k in ("RAY_DEBUG_POST_MORTEM", "DEBUG_TAGS", "RAY_DEBUG"):
    os.environ.pop(k, None)
env, cfg = ns["setup_environment_vars"](args, {"ajet": {"rollout": {"max_env_worker": 8}}}, "x.yaml")
print(json.dumps({"debug": args.debug, "env": {k: env.get(k) for k in ("RAY_DEBUG_POST_MORTEM", "DEBUG_TAGS", "RAY_record_task_actor_creation_sites")}, "workers": cfg["ajet"]["rollout"]["max_env_worker"]}))
`;

test(
  "AgentJet's launcher turns our --debug tags into the DEBUG_TAGS / RAY_DEBUG_POST_MORTEM we also set",
  withUpstream('agentjet-d20cce0', (dir) => {
    const add = rayLaunchAdditions(true, ['ROLLOUT', 'JUDGE'], []);
    const argv = ['--conf', 'x.yaml', '--backbone', 'verl', ...add.args];
    const out = execFileSync(ensureTestPython().python, ['-c', RUNNER, join(dir, 'ajet', 'launcher.py'), JSON.stringify(argv)], {
      encoding: 'utf8',
    });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { debug: string; env: Record<string, string | null>; workers: number };
    assert.equal(r.debug, 'ROLLOUT|JUDGE');
    assert.equal(r.env.DEBUG_TAGS, add.env.DEBUG_TAGS);
    assert.equal(r.env.RAY_DEBUG_POST_MORTEM, add.env.RAY_DEBUG_POST_MORTEM);
    assert.equal(r.env.RAY_record_task_actor_creation_sites, 'true');
    assert.equal(r.workers, 1, 'debug mode drops to one env worker');
  }),
);

test(
  "bp is ajet.utils.vsdb.vscode_conditional_breakpoint, and vsdb.py is gitignored upstream (hence the fixture's stand-in)",
  withUpstream('agentjet-d20cce0', (dir) => {
    assert.match(
      readFileSync(join(dir, 'ajet', '__init__.py'), 'utf8'),
      /from ajet\.utils\.vsdb import vscode_conditional_breakpoint as bp/,
    );
    assert.match(readFileSync(join(dir, '.gitignore'), 'utf8'), /^vsdb\.py$/m);
    assert.match(readFileSync(join(dir, 'docs', 'en', 'debugging_guide.md'), 'utf8'), /--debug="TAG_1"/);
  }),
);
