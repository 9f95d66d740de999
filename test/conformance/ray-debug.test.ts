// What a Ray debug launch adds (core/ray/tags.ts rayLaunchAdditions) against AgentJet's REAL code,
// in January 2026 (d20cce0) and 0.0.4 (c68c154): `parse_args` and `setup_environment_vars` are taken
// out of the launcher with Python's ast (importing the launcher would import the training stack) and
// run on our command line; AgentJet's real `bp` (ajet/utils/vsdb.py, loaded from its file) is then
// called with the environment we set, and must stop exactly for the armed tag, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { upstreamGitignore, withUpstream, type UpstreamName } from '../util/upstream';
import { ensureTestPython } from '../harness/python';
import { rayLaunchAdditions } from '../../core/ray/tags';

const RUNNER = `
import ast, json, sys, os, argparse, types
ns = {"argparse": argparse, "os": os, "logger": types.SimpleNamespace(warning=lambda *a, **k: None, info=lambda *a, **k: None)}
wanted = {"parse_args", "setup_environment_vars"}
for path in json.loads(sys.argv[1]):
    tree = ast.parse(open(path).read())
    body = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted]
    body += [n for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "DEFAULT_DIR" for t in n.targets)]
    exec(compile(ast.Module(body=body, type_ignores=[]), path, "exec"), ns)
sys.argv = ["ajet"] + json.loads(sys.argv[2])
args = ns["parse_args"]()
for k in ("RAY_DEBUG_POST_MORTEM", "DEBUG_TAGS", "RAY_DEBUG"):
    os.environ.pop(k, None)
env, cfg = ns["setup_environment_vars"](args, {"ajet": {"rollout": {"max_env_worker": 8}}}, "x.yaml")
print(json.dumps({"debug": args.debug, "reboot": hasattr(args, "reboot"), "env": {k: env.get(k) for k in ("RAY_DEBUG_POST_MORTEM", "DEBUG_TAGS", "RAY_record_task_actor_creation_sites")}, "workers": cfg["ajet"]["rollout"]["max_env_worker"]}))
`;

// AgentJet's vsdb.py, loaded from its file; breakpoint() is recorded with the tag it stopped for.
const BP = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("vsdb", sys.argv[1])
vsdb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vsdb)
hits = []
sys.breakpointhook = lambda *a, **k: hits.append(sys._getframe(1).f_locals.get("tag"))
for tag in ["ROLLOUT", "ROLLOUT", "OTHER", "JUDGE"]:
    vsdb.vscode_conditional_breakpoint(tag)
print(json.dumps(hits))
`;

// Where each version defines the two functions, and what its debug mode does to the env workers.
const TREES: { tree: UpstreamName; files: string[]; workers: number; reboot: boolean }[] = [
  // ajet/launcher.py:22 parse_args, :210 setup_environment_vars (drops to one worker), --reboot at :87.
  { tree: 'agentjet-d20cce0', files: ['ajet/launcher.py'], workers: 1, reboot: true },
  // 0.0.4: setup_environment_vars moved to ajet/utils/launch_utils.py:39 and only warns about
  // max_env_worker (:57); --reboot is gone.
  { tree: 'agentjet-c68c154', files: ['ajet/utils/launch_utils.py', 'ajet/launcher.py'], workers: 8, reboot: false },
];

for (const { tree, files, workers, reboot } of TREES) {
  test(
    `${tree}: AgentJet's launcher turns our --debug tags into the DEBUG_TAGS / RAY_DEBUG_POST_MORTEM we also set`,
    withUpstream(tree, (dir) => {
      const add = rayLaunchAdditions(true, ['ROLLOUT', 'JUDGE'], []);
      const python = ensureTestPython().python;
      const paths = JSON.stringify(files.map((f) => join(dir, f)));
      const run = (argv: string[]) =>
        JSON.parse(
          execFileSync(python, ['-c', RUNNER, paths, JSON.stringify(argv)], { encoding: 'utf8' })
            .trim()
            .split('\n')
            .pop()!,
        ) as {
          debug: string;
          reboot: boolean;
          env: Record<string, string | null>;
          workers: number;
        };
      const r = run(['--conf', 'x.yaml', '--backbone', 'verl', ...add.args]);
      assert.equal(r.debug, 'ROLLOUT|JUDGE');
      assert.equal(r.env.DEBUG_TAGS, add.env.DEBUG_TAGS);
      assert.equal(r.env.RAY_DEBUG_POST_MORTEM, add.env.RAY_DEBUG_POST_MORTEM);
      assert.equal(r.env.RAY_record_task_actor_creation_sites, 'true');
      assert.equal(r.workers, workers, 'what debug mode does to max_env_worker');
      assert.equal(r.reboot, reboot, '--reboot exists only before 0.0.4');
      // `--db` is the launcher's alias of --debug (rayLaunchAdditions leaves args that carry it alone).
      assert.equal(run(['--conf', 'x.yaml', '--db', 'JUDGE']).debug, 'JUDGE');
      assert.deepEqual(rayLaunchAdditions(true, ['ROLLOUT'], ['--db', 'JUDGE']).args, []);

      // AgentJet's own bp() with the environment we set: stops for each armed tag, once per process.
      const vsdb = join(dir, 'ajet', 'utils', 'vsdb.py');
      const hits = execFileSync(python, ['-c', BP, vsdb], { encoding: 'utf8', env: { ...process.env, ...add.env } });
      assert.deepEqual(JSON.parse(hits.trim()), ['ROLLOUT', 'JUDGE']);
      const none = execFileSync(python, ['-c', BP, vsdb], { encoding: 'utf8', env: { ...process.env, DEBUG_TAGS: 'ROLLOUT' } });
      assert.deepEqual(JSON.parse(none.trim()), [], 'without RAY_DEBUG_POST_MORTEM bp() never stops');
    }),
  );

  test(
    `${tree}: bp is ajet.utils.vsdb.vscode_conditional_breakpoint; vsdb.py is in the tree although its .gitignore names it`,
    withUpstream(tree, (dir) => {
      const init = readFileSync(join(dir, 'ajet', '__init__.py'), 'utf8');
      if (tree === 'agentjet-d20cce0') assert.match(init, /from ajet\.utils\.vsdb import vscode_conditional_breakpoint as bp/);
      else {
        // 0.0.4 imports lazily (ajet/__init__.py:12-22), so `import ajet` is cheap: ask Python itself.
        const out = execFileSync(
          ensureTestPython().python,
          ['-c', 'import ajet, ajet.utils.vsdb as v; print(ajet.bp is v.vscode_conditional_breakpoint)'],
          { encoding: 'utf8', env: { ...process.env, PYTHONPATH: dir } },
        );
        assert.equal(out.trim(), 'True');
      }
      assert.match(upstreamGitignore(dir), /^vsdb\.py$/m);
      assert.ok(existsSync(join(dir, 'ajet', 'utils', 'vsdb.py')), 'tracked in git all the same');
      assert.match(readFileSync(join(dir, 'docs', 'en', 'debugging_guide.md'), 'utf8'), /--debug="TAG_1"/);
    }),
  );
}
