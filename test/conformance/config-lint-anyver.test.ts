// `agentjet lint` over AgentJet 0.0.4's own configs with that tree as the workspace (so the
// checkout's code judges them, read at run time), and the same config judged by three AgentJets.
// Each remaining error or warning must match a row of docs/config.md's table for agentjet-c68c154,
// and no unknown-key/unread-key diagnostic may name a key the tree's defaults or schema define.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runLint } from '../../cli/lint';
import { parseConfig } from '../../core/config/parse';
import { locate } from '../../core/config/context';
import { conversionKeys, yamlKeys } from '../../core/config/codefacts';
import { dataclassKeys } from '../../core/config/pyfacts';
import { loadPython } from '../../core/config/pyparse';
import { findCheckout, findInstalled } from '../../core/config/agentjetFacts';
import { planLaunch } from '../../core/launch/lifecycle';
import { resolveAttributes } from '../../core/launch/attributes';
import { repoRoot } from '../util/paths';
import { withUpstream } from '../util/upstream';

// dataclassKeys reads a Python syntax tree: the parser loads once for the file.
before(() => loadPython());

const TREE = 'agentjet-c68c154' as const;

interface LintJson {
  files: {
    file: string;
    diagnostics: { code: string; severity: string; message: string; range: { start: { line: number; character: number } } }[];
  }[];
  errors: number;
  warnings: number;
  checked: number;
  judgedBy: string[];
}

async function lintJson(args: string[], cwd: string): Promise<{ status: number; out: LintJson }> {
  let text = '';
  const prev = process.cwd();
  process.chdir(cwd);
  try {
    const status = await runLint(
      ['--format', 'json', ...args],
      (s) => (text += s),
      () => undefined,
    );
    return { status, out: JSON.parse(text) as LintJson };
  } finally {
    process.chdir(prev);
  }
}

const docs = readFileSync(join(repoRoot, 'docs', 'config.md'), 'utf8');
const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
const rows = docs
  .split('\n')
  .filter((l) => l.startsWith(`| ${TREE} |`) && cells(l).length === 6)
  .map((l) => {
    const [, configs, code, subject, , evidence] = cells(l) as [string, string, string, string, string, string];
    return {
      configs: configs.split(',').map((c) => c.trim()),
      code,
      subject: subject.replace(/^`|`$/g, ''),
      evidence: evidence.split(',').map((e) => e.trim()),
      used: 0,
    };
  });

function globMatch(glob: string, path: string): boolean {
  return new RegExp(
    `^${glob
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(path);
}

/** Every `ajet.*` key path the tree's defaults, dataclass schema and conversion tables define. */
function definedKeys(dir: string): Set<string> {
  const dc = join(dir, 'ajet', 'default_config');
  const read = (...p: string[]) => (existsSync(join(dc, ...p)) ? readFileSync(join(dc, ...p), 'utf8') : '');
  return new Set([
    ...yamlKeys(read('ajet_default.yaml'), 'ajet'),
    ...yamlKeys(read('ajet_swarm_default.yaml'), 'ajet'),
    ...yamlKeys(read('verl', 'verl_default.yaml'), 'ajet'),
    ...dataclassKeys(read('ajet_config_schema.py'), 'ajet'),
    ...conversionKeys(read('verl', 'config_auto_convertion_verl.jsonc'), 'ajet'),
    ...conversionKeys(read('trinity', 'config_auto_convertion_trinity.jsonc'), 'ajet'),
  ]);
}

test(
  'agentjet lint over agentjet-c68c154 with that tree as the workspace: judged by the checkout, only justified diagnostics',
  withUpstream(TREE, async (dir, t) => {
    const cache = mkdtempSync(join(tmpdir(), 'ajfacts-'));
    process.env.AGENTJET_FACTS_CACHE = cache;
    try {
      const { out } = await lintJson([dir, '--root', dir], dir);
      assert.ok(
        out.judgedBy.some((j) => j.includes('AgentJet 0.0.4 at') && j.includes(join(dir, 'ajet'))),
        `judged by the checkout: ${out.judgedBy.join('; ')}`,
      );
      const defined = definedKeys(dir);
      const unjustified: string[] = [];
      const misnamed: string[] = [];
      let errors = 0,
        warnings = 0;
      for (const f of out.files) {
        const rel = f.file.split(sep).join('/');
        // Lint names files relative to its working directory, which is the tree's real path (the
        // tree may sit behind a symbolic link).
        const text = readFileSync(resolve(realpathSync(dir), f.file), 'utf8');
        const p = parseConfig(text);
        for (const d of f.diagnostics) {
          if (d.code === 'unknown-key' || d.code === 'unread-key') {
            const loc = locate(p, p.index.offset(d.range.start));
            const path = loc?.path ?? [];
            if (path[0] === 'ajet' && defined.has(path.slice(1).join('.')))
              misnamed.push(`${rel}:${d.range.start.line + 1} ${path.join('.')}`);
          }
          if (d.severity !== 'error' && d.severity !== 'warning') continue;
          if (d.severity === 'error') errors++;
          else warnings++;
          const row = rows.find((x) => x.code === d.code && d.message.includes(x.subject) && x.configs.some((g) => globMatch(g, rel)));
          if (row) row.used++;
          else unjustified.push(`${rel}:${d.range.start.line + 1} ${d.severity} ${d.code} ${d.message}`);
        }
      }
      t.diagnostic(`${TREE}: ${out.checked} configs, ${errors} errors, ${warnings} warnings, ${unjustified.length} unjustified`);
      assert.deepEqual(misnamed, [], 'no unknown/unread-key diagnostic names a key the tree defines');
      assert.deepEqual(unjustified, [], `every diagnostic needs a row for ${TREE} in docs/config.md (Upstream lint)`);
      const m = /agentjet-c68c154 \(judged as a checkout\): (\d+) configs, (\d+) errors, (\d+) warnings/.exec(docs);
      assert.ok(m, 'docs/config.md gives the counts of agentjet-c68c154');
      assert.deepEqual(
        [out.checked, errors, warnings],
        [Number(m[1]), Number(m[2]), Number(m[3])],
        'the counts in docs/config.md are current',
      );
      for (const row of rows) {
        assert.ok(row.used > 0, `row no longer needed: ${row.code} ${row.subject} in ${row.configs.join(', ')}`);
        for (const ev of row.evidence) {
          const em = /^(.+):(\d+)$/.exec(ev);
          assert.ok(em, `evidence is file:line: ${ev}`);
          const lines = readFileSync(join(dir, em[1] as string), 'utf8').split('\n');
          assert.ok((lines[Number(em[2]) - 1] ?? '').trim().length > 0, `evidence line is code: ${ev}`);
        }
      }
    } finally {
      delete process.env.AGENTJET_FACTS_CACHE;
      rmSync(cache, { recursive: true, force: true });
    }
  }),
);

// One config, three AgentJets. It uses `enable_interchange_server` (0.0.4's name), LoRA without
// layered summon (0.0.4 stops the launch), and January's `task_runner.llm_infer_submit_method`.
const CONFIG = `ajet:
  model:
    path: Qwen/Qwen2.5-7B-Instruct
  rollout:
    user_workflow: my_workflow->MyWorkflow
  task_reader:
    type: random_dummy
  enable_interchange_server: true
  lora:
    lora_rank: 8
    load_format: safetensors
  task_runner:
    llm_infer_submit_method: async
`;

/**
 * A venv with `tree` installed in editable mode: `pip install --no-deps --no-build-isolation -e`
 * (setuptools' editable finder; `wheel` comes from the local wheel mirror pip is configured
 * with), else, when pip cannot build offline, the `.pth` file an editable install of a flat
 * layout leaves. Says which.
 */
function venvWith(tree: string, at: string): { python: string; how: 'pip -e' | '.pth' } | undefined {
  if (spawnSync('python3', ['-m', 'venv', at], { encoding: 'utf8' }).status !== 0) return undefined;
  const py = join(at, 'bin', 'python');
  const pip = (...args: string[]) =>
    spawnSync(py, ['-m', 'pip', '--disable-pip-version-check', '-q', ...args], { encoding: 'utf8', timeout: 180_000 });
  if (pip('install', 'wheel').status === 0 && pip('install', '--no-deps', '--no-build-isolation', '-e', tree).status === 0)
    return { python: py, how: 'pip -e' };
  const site = spawnSync(py, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).stdout.trim();
  if (!site) return undefined;
  writeFileSync(join(site, '__editable__.agentjet.pth'), tree + '\n');
  return { python: py, how: '.pth' };
}

/** The package and pyproject.toml of a tree, copied (pip -e writes into the tree it installs). */
function copyTree(from: string, to: string): string {
  cpSync(join(from, 'ajet'), join(to, 'ajet'), { recursive: true });
  cpSync(join(from, 'pyproject.toml'), join(to, 'pyproject.toml'));
  return to;
}

test(
  'the same config judged by three AgentJets: January (bundled and checkout), 0.0.4 as a checkout, 0.0.4 installed in a venv (--python)',
  withUpstream(TREE, async (newTree, t) => {
    const oldTree = join(newTree, '..', 'agentjet-d20cce0');
    assert.ok(existsSync(join(oldTree, 'ajet')), 'agentjet-d20cce0 beside agentjet-c68c154');
    const work = mkdtempSync(join(tmpdir(), 'ajthree-'));
    process.env.AGENTJET_FACTS_CACHE = join(work, 'cache');
    try {
      // A plain project folder holding the config; the AgentJet comes from --root or --python.
      const project = join(work, 'project');
      mkdirSync(project);
      writeFileSync(join(project, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');
      const cfg = join(project, 'exp.yaml');
      writeFileSync(cfg, CONFIG);
      const verdict = (o: LintJson) =>
        (o.files[0]?.diagnostics ?? [])
          .filter((d) => d.severity === 'error' || d.severity === 'warning')
          .map((d) => `${d.code}: ${d.message}`);

      // January: a copy of the January checkout as the workspace, the config inside it.
      const jan = join(work, 'jan');
      cpSync(oldTree, jan, { recursive: true, filter: (s) => !s.includes(`${sep}tutorial${sep}`) && !s.includes(`${sep}tests${sep}`) });
      writeFileSync(join(jan, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');
      writeFileSync(join(jan, 'exp.yaml'), CONFIG);
      const a = await lintJson([join(jan, 'exp.yaml'), '--root', jan], jan);
      // 0.0.4 as a checkout.
      const now = join(work, 'now');
      cpSync(newTree, now, { recursive: true, filter: (s) => !s.includes(`${sep}tutorial${sep}`) && !s.includes(`${sep}tests${sep}`) });
      writeFileSync(join(now, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');
      writeFileSync(join(now, 'exp.yaml'), CONFIG);
      const b = await lintJson([join(now, 'exp.yaml'), '--root', now], now);
      // 0.0.4 installed (editable) in a venv given by --python; the project is no checkout.
      const installedTree = copyTree(newTree, join(work, 'installed'));
      const venv = venvWith(installedTree, join(work, 'venv'));
      assert.ok(venv, 'python3 -m venv works');
      t.diagnostic(`0.0.4 installed in the venv with ${venv.how}`);
      const py = venv.python;
      const found = await findInstalled(py);
      assert.equal(found?.pkgDir, join(installedTree, 'ajet'), 'find_spec locates the editable install without importing it');
      assert.equal(findCheckout(project), undefined);
      const c = await lintJson([cfg, '--root', project, '--python', py], project);

      assert.deepEqual(a.out.judgedBy, [`AgentJet 0.0.1 at ${join(jan, 'ajet')}`]);
      assert.deepEqual(b.out.judgedBy, [`AgentJet 0.0.4 at ${join(now, 'ajet')}`]);
      assert.deepEqual(c.out.judgedBy, [`AgentJet 0.0.4 at ${join(installedTree, 'ajet')}`]);
      const [va, vb, vc] = [verdict(a.out), verdict(b.out), verdict(c.out)];
      // January: the 0.0.4 keys are unknown to it ("added in 0.0.4"), no LoRA rule, the runner key is fine.
      assert.ok(
        va.some((m) => m.includes('`enable_interchange_server` was added in AgentJet 0.0.4')),
        va.join('\n'),
      );
      assert.ok(
        va.some((m) => m.includes('`lora` was added in AgentJet 0.0.4')),
        va.join('\n'),
      );
      assert.ok(!va.some((m) => m.includes('llm_infer_submit_method')), va.join('\n'));
      assert.equal(a.status, 0, 'January: warnings only');
      // 0.0.4 checkout: LoRA stops the launch, the runner key was removed.
      assert.ok(
        vb.some((m) => m.startsWith('cross-field/lora') && m.includes('layered_summon')),
        vb.join('\n'),
      );
      assert.ok(
        vb.some((m) => m.includes('`task_runner.llm_infer_submit_method` was removed in AgentJet 0.0.4')),
        vb.join('\n'),
      );
      assert.ok(!vb.some((m) => m.includes('enable_interchange_server')), vb.join('\n'));
      assert.equal(b.status, 1, '0.0.4: an error');
      // 0.0.4 installed: the same rules as the checkout, named after where it is installed.
      assert.deepEqual(vc, vb);
      assert.notDeepEqual(va, vb);
      // And with nothing to find, the bundled facts that fit the keys judge it (0.0.4 here).
      const d = await lintJson([cfg, '--root', project, '--python', join(work, 'no-python')], project);
      assert.deepEqual(d.out.judgedBy, ['bundled facts of AgentJet 0.0.4 (May 2026)']);
      assert.deepEqual(
        verdict(d.out).map((m) => m.replace(' (May 2026)', '')),
        vb,
      );
    } finally {
      delete process.env.AGENTJET_FACTS_CACHE;
      rmSync(work, { recursive: true, force: true });
    }
  }),
);

test(
  "an AgentJet from the future: a key added to a copy of 0.0.4 (defaults and conversion table) is known when that copy is the user's AgentJet, as a checkout and installed",
  withUpstream(TREE, async (newTree) => {
    const work = mkdtempSync(join(tmpdir(), 'ajfuture-'));
    process.env.AGENTJET_FACTS_CACHE = join(work, 'cache');
    try {
      const future = join(work, 'future');
      cpSync(newTree, future, { recursive: true, filter: (s) => !s.includes(`${sep}tutorial${sep}`) && !s.includes(`${sep}tests${sep}`) });
      const dc = join(future, 'ajet', 'default_config');
      const defaults = readFileSync(join(dc, 'ajet_default.yaml'), 'utf8');
      writeFileSync(
        join(dc, 'ajet_default.yaml'),
        defaults.replace(
          /^( {2}rollout:\n)/m,
          '$1    # tokens per GPU for the PPO update (from the future)\n    ppo_max_token_len_per_gpu: 16384\n',
        ),
      );
      const conv = readFileSync(join(dc, 'verl', 'config_auto_convertion_verl.jsonc'), 'utf8');
      writeFileSync(
        join(dc, 'verl', 'config_auto_convertion_verl.jsonc'),
        conv.replace('{', '{\n    "ajet.rollout.ppo_max_token_len_per_gpu": "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",'),
      );
      writeFileSync(
        join(future, 'pyproject.toml'),
        readFileSync(join(future, 'pyproject.toml'), 'utf8').replace('version = "0.0.4"', 'version = "0.0.9"'),
      );
      const text = CONFIG.replace('  rollout:\n', '  rollout:\n    ppo_max_token_len_per_gpu: 8192\n');
      const keyDiags = (o: LintJson) => (o.files[0]?.diagnostics ?? []).filter((d) => d.message.includes('ppo_max_token_len_per_gpu'));

      // Known AgentJets do not know it.
      const project = join(work, 'project');
      mkdirSync(project);
      writeFileSync(join(project, 'exp.yaml'), text);
      const bundled = await lintJson([join(project, 'exp.yaml'), '--root', project, '--python', join(work, 'none')], project);
      assert.equal(keyDiags(bundled.out).length, 1, 'the bundled facts call it unknown');

      // As a checkout (the workspace).
      writeFileSync(join(future, 'exp.yaml'), text);
      const asCheckout = await lintJson([join(future, 'exp.yaml'), '--root', future], future);
      assert.deepEqual(asCheckout.out.judgedBy, [`AgentJet 0.0.9 at ${join(future, 'ajet')}`]);
      assert.deepEqual(keyDiags(asCheckout.out), []);
      // F5's own check judges by the same AgentJet: the future's conversion table makes a verl key
      // beside the new ajet key an overlap error, and the launch is refused for it before anything starts.
      const fine = text.replace('    load_format: safetensors\n', '    load_format: safetensors\n    layered_summon: true\n');
      const clashText = fine + 'actor_rollout_ref:\n  actor:\n    ppo_max_token_len_per_gpu: 4096\n';
      writeFileSync(join(future, 'clash.yaml'), clashText);
      const none = join(work, 'none');
      const refused = await planLaunch(resolveAttributes({ config: join(future, 'clash.yaml'), cwd: future, python: none }));
      assert.ok(!refused.ok && refused.refusal.kinds.includes('config'), JSON.stringify(refused));
      assert.match(refused.refusal.message, /AgentJet sets it from `ajet\.rollout\.ppo_max_token_len_per_gpu`/);
      // The new key alone is no reason to refuse (the launch then stops at the missing interpreter).
      writeFileSync(join(future, 'fine.yaml'), fine);
      const plain = await planLaunch(resolveAttributes({ config: join(future, 'fine.yaml'), cwd: future, python: none }));
      assert.ok(!plain.ok && !plain.refusal.kinds.includes('config'), JSON.stringify(plain));

      // Installed (editable) in a venv.
      const venv = venvWith(future, join(work, 'venv'));
      assert.ok(venv);
      const py = venv.python;
      const installed = await lintJson([join(project, 'exp.yaml'), '--root', project, '--python', py], project);
      assert.deepEqual(installed.out.judgedBy, [`AgentJet 0.0.9 at ${join(future, 'ajet')}`]);
      assert.deepEqual(keyDiags(installed.out), []);
      // A verl key against the new conversion entry is the overlap error of the future's own table.
      writeFileSync(join(project, 'exp.yaml'), text + 'actor_rollout_ref:\n  actor:\n    ppo_max_token_len_per_gpu: 4096\n');
      const clash = await lintJson([join(project, 'exp.yaml'), '--root', project, '--python', py], project);
      assert.ok(
        (clash.out.files[0]?.diagnostics ?? []).some(
          (d) => d.code === 'cross-field/verl-overlap' && d.message.includes('ajet.rollout.ppo_max_token_len_per_gpu'),
        ),
      );
    } finally {
      delete process.env.AGENTJET_FACTS_CACHE;
      rmSync(work, { recursive: true, force: true });
    }
  }),
);
