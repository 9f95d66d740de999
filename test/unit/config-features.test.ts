import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { lintText } from '../../core/config/lint';
import { parseConfig } from '../../core/config/parse';
import { complete, hover, definition, documentLinks } from '../../core/config/features';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { PythonLocator } from '../../core/config/pythonenv';
import { LineIndex } from '../../core/config/text';
import { repoRoot } from '../util/paths';
import { demoConfig, demoDir } from './config-helpers';
import { skipForEnvironment } from '../util/envSkip';

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'agentjet-proj-'));
  mkdirSync(join(root, 'pkg', 'flows'), { recursive: true });
  writeFileSync(join(root, 'pkg', '__init__.py'), 'from .flows.impl import MyFlow\nfrom .flows import *\n');
  writeFileSync(join(root, 'pkg', 'flows', '__init__.py'), 'from .judges import Scorer as PublicScorer\n');
  writeFileSync(
    join(root, 'pkg', 'flows', 'impl.py'),
    [
      'from ajet import Workflow, WorkflowOutput',
      '',
      'DOC = """',
      'class NotAClass:',
      '"""',
      '',
      'class Helper:',
      '    pass',
      '',
      'class MyFlow(',
      '    Workflow,',
      '):',
      '    """Solves one task and reports the reward."""',
      '',
      '    async def execute(',
      '        self, workflow_task, tuner',
      '    ) -> WorkflowOutput:',
      '        return WorkflowOutput(reward=1.0)',
      '',
    ].join('\n'),
  );
  writeFileSync(join(root, 'pkg', 'flows', 'judges.py'), 'class Scorer(BaseJudge):\n    """Scores answers."""\n');
  writeFileSync(join(root, 'data.jsonl'), '{}\n');
  return root;
}

const config = (wf: string, judge = 'null') =>
  `ajet:\n  model:\n    path: Qwen/Qwen2.5-7B\n  task_reader:\n    type: jsonl_dataset_file\n    jsonl_dataset_file:\n      training:\n        file_path: data.jsonl\n  task_judge:\n    judge_protocol: ${judge}\n  rollout:\n    user_workflow: ${wf}\n`;

test('class references resolve through package re-exports, star imports and aliases, skipping strings', () => {
  const root = project();
  const codes = (wf: string, judge?: string) =>
    lintText(config(wf, judge), { root })
      .diagnostics.filter((d) => d.code.startsWith('class-ref'))
      .map((d) => d.code);
  assert.deepEqual(codes('pkg->MyFlow'), []);
  assert.deepEqual(codes('pkg.flows.impl->MyFlow'), []);
  assert.deepEqual(codes('pkg/flows/impl.py->MyFlow'), []);
  assert.deepEqual(codes(`${join(root, 'pkg', 'flows', 'impl.py')}->Helper`), []);
  assert.deepEqual(codes('pkg->MyFlow', 'pkg->PublicScorer'), [], 'star import of a package re-exporting an alias');
  assert.deepEqual(codes('pkg.flows.impl->NotAClass'), ['class-ref/missing-class'], 'a class inside a string literal is not a class');
  assert.deepEqual(codes('pkg.flows.nothere->MyFlow'), ['class-ref/missing-module']);
});

test('hover and definition of a class reference reach the class through a re-export', () => {
  const root = project();
  const text = config('pkg->MyFlow');
  const p = parseConfig(text);
  const ctx = { root, resolver: new ClassResolver(new CachedFs()) };
  const at = text.indexOf('MyFlow') + 2;
  const h = hover(p, at, ctx);
  assert.ok(h);
  assert.match(h.markdown, /class MyFlow\(Workflow\)/);
  assert.match(h.markdown, /Solves one task and reports the reward\./);
  assert.match(h.markdown, /async def execute\(self, workflow_task, tuner\) -> WorkflowOutput/);
  const d = definition(p, at, ctx);
  assert.deepEqual(d, { file: join(root, 'pkg', 'flows', 'impl.py'), line: 9, character: 6 });
  const links = documentLinks(p, ctx)
    .map((l) => l.file)
    .sort();
  assert.deepEqual(links, [join(root, 'data.jsonl'), join(root, 'pkg', '__init__.py')].sort());
});

test('framework built-ins: not flagged without Python, checked in the installed package with one', (t) => {
  if (skipForEnvironment(t, existsSync('/usr/bin/python3') ? undefined : '/usr/bin/python3 missing')) return;
  const site = mkdtempSync(join(tmpdir(), 'agentjet-site-'));
  mkdirSync(join(site, 'ajet', 'task_judge'), { recursive: true });
  writeFileSync(join(site, 'ajet', '__init__.py'), '');
  writeFileSync(join(site, 'ajet', 'task_judge', '__init__.py'), '');
  writeFileSync(
    join(site, 'ajet', 'task_judge', 'env_service_as_judge.py'),
    'class EnvServiceJudge:\n    """Asks the EnvService for the reward."""\n',
  );
  const root = project();
  const good = config('pkg->MyFlow', 'ajet.task_judge.env_service_as_judge->EnvServiceJudge');
  const badClass = config('pkg->MyFlow', 'ajet.task_judge.env_service_as_judge->EnvJudge');
  const badModule = config('pkg->MyFlow', 'ajet.task_judge.nothing->EnvServiceJudge');
  const codes = (t: string, resolver?: ClassResolver) =>
    lintText(t, { root, resolver })
      .diagnostics.filter((d) => d.code.startsWith('class-ref'))
      .map((d) => d.code);
  assert.deepEqual(codes(badClass), [], 'no Python configured: built-ins are not flagged');
  const python = spawnSync('python3', ['-c', 'print(1)']).status === 0 ? 'python3' : '/usr/bin/python3';
  const resolver = new ClassResolver(new CachedFs(), new PythonLocator(python, 8000, { ...process.env, PYTHONPATH: site }));
  assert.deepEqual(codes(good, resolver), []);
  assert.deepEqual(codes(badClass, resolver), ['class-ref/missing-class']);
  assert.deepEqual(codes(badModule, resolver), ['class-ref/missing-module']);
  const noAjet = new ClassResolver(new CachedFs(), new PythonLocator(python, 8000, { ...process.env, PYTHONPATH: '' }));
  const r = lintText(good, { root, resolver: noAjet }).diagnostics.find((d) => d.code === 'class-ref/missing-module');
  assert.ok(r && r.severity === 'error' && /no `ajet` package/.test(r.message));
});

function at(text: string, marker: string): { text: string; offset: number } {
  const i = text.indexOf(marker);
  return { text: text.slice(0, i) + text.slice(i + marker.length), offset: i };
}

test('completion: classes after ->, workflow subclasses first; modules before it', () => {
  const root = project();
  const ctx = { root, resolver: new ClassResolver(new CachedFs()) };
  const c1 = at(config('pkg.flows.impl->|'), '|');
  const classes = complete(parseConfig(c1.text), c1.offset, ctx)
    .sort((a, b) => a.sortText.localeCompare(b.sortText))
    .map((e) => e.label);
  assert.deepEqual(classes, ['MyFlow', 'Helper']);
  const c2 = at(config('pk|'), '|');
  const mods = complete(parseConfig(c2.text), c2.offset, ctx);
  assert.ok(
    mods.some(
      (m) =>
        m.label === 'impl' &&
        m.labelDescription === 'pkg.flows' &&
        m.filterText === 'pkg.flows.impl' &&
        m.insertText === 'pkg.flows.impl->' &&
        m.retrigger,
    ),
  );
});

test('completion: keys with nested snippets, booleans, root sections; nothing inside lists of other keys', () => {
  const ctx = { root: demoDir, resolver: new ClassResolver(new CachedFs()) };
  const lines = demoConfig.split('\n');
  const l = lines.findIndex((x) => x === '  debug:');
  const withKey = [...lines.slice(0, l), '  interch|', ...lines.slice(l)].join('\n');
  const c = at(withKey, '|');
  const items = complete(parseConfig(c.text), c.offset, ctx);
  const ic = items.find((i) => i.label === 'interchange_server');
  assert.ok(ic && ic.snippet);
  assert.match(ic.insertText, /^interchange_server:\n {2}interchange_method: \$\{1\|ipc,tcp\|\}|^interchange_server:\n {2}\w+: \$\{1:/);
  assert.ok(!items.some((i) => i.label === 'rollout'), 'present sections are not offered again');

  const withBool = [...lines.slice(0, l), '  debug:', '    debug_max_parallel: 1', ...lines.slice(l + 1)]
    .join('\n')
    .replace('  trainer_common:\n', '  trainer_common:\n    val_before_train: |\n');
  const b = at(withBool, '|');
  assert.deepEqual(
    complete(parseConfig(b.text), b.offset, ctx)
      .map((e) => e.label)
      .sort(),
    ['false', 'true'],
  );

  const root = at(demoConfig + '\nhyd|', '|');
  assert.ok(!complete(parseConfig(root.text), root.offset, ctx).some((e) => e.label === 'hydra'), 'hydra already present');
  const root2 = at('ajet:\n  project_name: x\ntri|\n', '|');
  assert.ok(complete(parseConfig(root2.text), root2.offset, ctx).some((e) => e.label === 'trinity'));
});

test('hover on keys gives type, default, allowed values and dialect notes', () => {
  const ctx = { root: demoDir, resolver: new ClassResolver(new CachedFs()) };
  const text = 'astuner:\n  rollout:\n    agentscope_workflow: x->Y\n  task_reader:\n    type: dataset_file\n';
  const p = parseConfig(text);
  const h1 = hover(p, text.indexOf('agentscope_workflow') + 3, ctx);
  assert.ok(h1 && /ASTuner name/.test(h1.markdown) && /user_workflow/.test(h1.markdown));
  const h2 = hover(p, text.indexOf('type') + 1, ctx);
  assert.ok(h2 && /Allowed: `env_service`/.test(h2.markdown) && /`dataset_file` \u2192 `jsonl_dataset_file`/.test(h2.markdown));
  const idx = new LineIndex(text);
  assert.deepEqual(h2.range, idx.range(text.indexOf('type'), text.indexOf('type') + 4));
});

test('agentjet lint: text and JSON output, exit codes, folders, non-configs skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-lint-'));
  writeFileSync(join(dir, 'good.yaml'), demoConfig.replace('math_demo.judge', 'math_demo.judge'));
  writeFileSync(join(dir, 'bad.yaml'), demoConfig.replace('type: jsonl_dataset_file', 'type: jsonl_file'));
  writeFileSync(join(dir, 'ci.yaml'), 'jobs: {}\n');
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'lint', ...args], {
      encoding: 'utf8',
      cwd: repoRoot,
    });
  const good = cli(join(dir, 'good.yaml'), '--root', demoDir);
  assert.equal(good.status, 0, good.stderr);
  const bad = cli(dir, '--root', demoDir);
  assert.equal(bad.status, 1);
  const line = demoConfig.split('\n').findIndex((x) => x.includes('type: jsonl_dataset_file')) + 1;
  assert.match(bad.stdout, new RegExp(`bad\\.yaml:${line}:11 error enum `, 'm'));
  assert.doesNotMatch(bad.stdout, /ci\.yaml/);
  assert.match(bad.stderr, /2 configs checked: 1 error/);
  const json = cli(join(dir, 'bad.yaml'), '--format', 'json', '--root', demoDir);
  assert.equal(json.status, 1);
  const parsed = JSON.parse(json.stdout) as { files: { file: string; diagnostics: { code: string }[] }[]; errors: number };
  assert.equal(parsed.errors, 1);
  assert.ok(parsed.files[0]?.diagnostics.some((d) => d.code === 'enum'));
  assert.equal(cli('--format', 'xml', join(dir, 'bad.yaml')).status, 2);
  assert.equal(cli(join(dir, 'missing.yaml')).status, 2);
});

test('service: syntax errors can be left to another YAML extension; other checks stay', async () => {
  const { ConfigService } = await import('../../core/config/service');
  const text = demoConfig
    .replace('    temperature: 0.9\n', '    temperature: 0.9\n    temperature: 0.8\n')
    .replace('num_repeat: 4', 'num_repeat: four');
  const all = new ConfigService({ roots: [demoDir] }).diagnose('file:///x.yaml', 1, text, join(demoDir, 'x.yaml'));
  const quiet = new ConfigService({ roots: [demoDir], reportSyntaxErrors: false }).diagnose(
    'file:///x.yaml',
    1,
    text,
    join(demoDir, 'x.yaml'),
  );
  assert.ok(all.diagnostics.some((d) => d.code === 'yaml-syntax'));
  assert.ok(!quiet.diagnostics.some((d) => d.code === 'yaml-syntax'));
  assert.ok(quiet.diagnostics.some((d) => d.code === 'type-mismatch'));
});

test('definition of an interpolation jumps to the key it names', () => {
  const text = 'ajet:\n  rollout:\n    max_model_len: 9000\n  data:\n    note: "${ajet.rollout.max_model_len}"\n';
  const p = parseConfig(text);
  const d = definition(p, text.indexOf('${ajet') + 4, { root: demoDir, resolver: new ClassResolver(new CachedFs()) });
  const idx = new LineIndex(text);
  assert.deepEqual(d, { range: idx.range(text.indexOf('max_model_len'), text.indexOf('max_model_len') + 'max_model_len'.length) });
});
