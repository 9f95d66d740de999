// Project templates: every generated project lints with zero problems, its Python compiles, and
// `agentjet new` writes it (and refuses to overwrite); the debug rollout runs in the test backbone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '../util/net';
import { pathToFileURL } from 'node:url';
import { ALL_TEMPLATES, TEMPLATES, conflicts, projectNameFrom, renderTemplate } from '../../core/templates';
import { lintFile } from '../../core/config/lint';
import { ensureTestPython } from '../harness/python';
import { repoRoot } from '../util/paths';

function writeProject(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

function cli(cwd: string, ...args: string[]) {
  return spawnSync(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
      join(repoRoot, 'cli', 'main.ts'),
      ...args,
    ],
    { encoding: 'utf8', cwd, env: { ...process.env, LANG: 'C.UTF-8', LANGUAGE: '' } },
  );
}

for (const tpl of TEMPLATES) {
  test(`template ${tpl.id}: the generated config lints with zero problems`, async () => {
    const dir = mkdtempSync(join(tmpdir(), `agentjet-tpl-${tpl.id}-`));
    try {
      const files = renderTemplate(tpl.id, `my_${tpl.id}`);
      for (const need of ['config.yaml', 'README.md', 'data/train.jsonl', 'data/val.jsonl', '.vscode/launch.json', tpl.workflowFile]) {
        assert.ok(files[need], `${tpl.id} has ${need}`);
      }
      assert.match(files[tpl.workflowFile] ?? '', new RegExp(`class ${tpl.workflowClass}\\(Workflow\\)`));
      assert.match(
        files[tpl.workflowFile] ?? '',
        /async def execute\(self, workflow_task: WorkflowTask, tuner: AjetTuner\) -> WorkflowOutput:/,
      );
      writeProject(dir, files);
      const diags = await lintFile(join(dir, 'config.yaml'), { root: dir });
      assert.deepEqual(
        diags.map((d) => `${d.severity} ${d.code} ${d.range.start.line + 1}: ${d.message}`),
        [],
      );
      // Every JSONL line parses and has the fields AgentJet's JsonlTaskReader reads.
      for (const f of ['data/train.jsonl', 'data/val.jsonl']) {
        for (const line of readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)) {
          const row = JSON.parse(line) as Record<string, unknown>;
          assert.ok(typeof row.task_id === 'string' && typeof row.main_query === 'string' && typeof row.metadata === 'object');
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a broken template would be caught: a wrong class name gives a lint error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-tpl-bad-'));
  try {
    const files = renderTemplate('math', 'bad');
    files['config.yaml'] = (files['config.yaml'] ?? '').replace('->MathWorkflow', '->NoSuchWorkflow');
    writeProject(dir, files);
    const diags = await lintFile(join(dir, 'config.yaml'), { root: dir });
    assert.ok(
      diags.some((d) => d.code === 'class-ref/missing-class'),
      JSON.stringify(diags),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('generated Python compiles, and judges score a right answer 1.0 and a wrong one 0.0', () => {
  const { python } = ensureTestPython();
  for (const tpl of TEMPLATES) {
    const dir = mkdtempSync(join(tmpdir(), `agentjet-tpl-py-${tpl.id}-`));
    try {
      const files = renderTemplate(tpl.id, tpl.id);
      writeProject(dir, files);
      const pys = Object.keys(files).filter((f) => f.endsWith('.py'));
      const r = spawnSync(python, ['-m', 'py_compile', ...pys], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // The judges, run for real (they need no framework).
  const cases: Array<[string, string, string, string, number]> = [
    ['math', 'math_agent.judge', 'MathAnswerJudge', '{"answer": "42"}', 1],
    ['math', 'math_agent.judge', 'MathAnswerJudge', '{"answer": "41"}', 0],
    ['tools', 'tool_agent.judge', 'ToolAnswerJudge', '{"answer": "42"}', 1],
    ['game', 'guess_game.judge', 'GuessGameJudge', '{"secret": "cat"}', 1],
  ];
  for (const [id, mod, cls, meta, want] of cases) {
    const dir = mkdtempSync(join(tmpdir(), 'agentjet-tpl-judge-'));
    try {
      writeProject(dir, renderTemplate(id as 'math', id));
      const script = `
import types, json
from ${mod} import ${cls}
task = types.SimpleNamespace(task=types.SimpleNamespace(metadata=json.loads('${meta}')))
out = types.SimpleNamespace(metadata={"final_answer": "so \\\\boxed{42}", "tool_calls": 1, "guess": "Cat", "questions": 1})
print(${cls}(config=None).compute_reward(task, out)[0])`;
      const r = spawnSync(python, ['-c', script], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(
        Number(r.stdout.trim()) >= want && (want === 1 ? Number(r.stdout.trim()) === 1 : Number(r.stdout.trim()) === 0),
        true,
        `${id} ${meta}: ${r.stdout}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('project names are sanitised; conflicts list the existing files', () => {
  assert.equal(projectNameFrom('my agent!'), 'my_agent');
  assert.equal(projectNameFrom('---'), 'agentjet_project');
  assert.deepEqual(
    conflicts({ 'a.txt': '', 'b.txt': '' }, (p) => p === 'b.txt'),
    ['b.txt'],
  );
});

test('agentjet new writes a project, lists templates, refuses to overwrite, rejects bad usage', async () => {
  const base = mkdtempSync(join(tmpdir(), 'agentjet-new-'));
  try {
    const list = cli(base, 'new', '--list');
    assert.equal(list.status, 0);
    assert.deepEqual(
      list.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
      ALL_TEMPLATES.map((t) => t.id),
    );
    const r = cli(base, 'new', 'tools', 'proj');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Created .*proj/);
    const files = renderTemplate('tools', 'proj');
    for (const rel of Object.keys(files)) assert.equal(readFileSync(join(base, 'proj', rel), 'utf8'), files[rel]);
    assert.deepEqual(await lintFile(join(base, 'proj', 'config.yaml'), { root: join(base, 'proj') }), []);
    writeFileSync(join(base, 'proj', 'README.md'), 'mine');
    const again = cli(base, 'new', 'tools', 'proj');
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already has .*README\.md.*nothing was written/);
    assert.equal(readFileSync(join(base, 'proj', 'README.md'), 'utf8'), 'mine');
    const bad = cli(base, 'new', 'nope', 'x');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown template 'nope'/);
    assert.equal(existsSync(join(base, 'x')), false);
    assert.equal(cli(base, 'new').status, 2);
    const zh = cli(base, 'new', '--lang', 'zh-cn', 'math', 'zh');
    assert.equal(zh.status, 0, zh.stderr);
    assert.match(zh.stdout, /已创建/);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

// The debug rollout in the test backbone (stand-in ajet on PYTHONPATH), as F5 runs it.
for (const tpl of TEMPLATES) {
  test(`template ${tpl.id}: the debug rollout runs to a reward in the test backbone`, async () => {
    const { python } = ensureTestPython();
    const dir = mkdtempSync(join(tmpdir(), `agentjet-tpl-run-${tpl.id}-`));
    try {
      const files = renderTemplate(tpl.id, tpl.id);
      // A port of our own: other test runs may hold the default 18000.
      const port = await freePort();
      files['config.yaml'] = (files['config.yaml'] ?? '').replace(
        'debug_first_n_tasks: 2',
        `debug_first_n_tasks: 2\n    debug_vllm_port: ${port}`,
      );
      writeProject(dir, files);
      const env = { ...process.env, PYTHONPATH: join(repoRoot, 'test', 'fixtures', 'backbone') };
      const r = spawnSync(
        python,
        ['-m', 'ajet.launcher', '--backbone', 'debug', '--conf', 'config.yaml', '--exp-dir', 'out', '--autokill'],
        { cwd: dir, env, encoding: 'utf8', timeout: 120_000 },
      );
      const all = r.stdout + r.stderr;
      assert.match(all, /Debug rollout finished: 2 task\(s\)/, all.slice(-1500));
      assert.ok(readdirSync(join(dir, 'out')).length > 0);
    } finally {
      // The launcher puts companions under the working folder's saved_experiments, whatever --exp-dir says.
      killCompanions(join(dir, 'out'));
      killCompanions(join(dir, 'saved_experiments'));
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** Stops the stand-in vLLM companion the launcher left running (its process group, from the .pgid file). */
function killCompanions(expDir: string): void {
  const folder = join(expDir, 'companion_logs', 'companion');
  if (!existsSync(folder)) return;
  for (const f of readdirSync(folder).filter((n) => n.endsWith('.pgid'))) {
    const pgid = Number(readFileSync(join(folder, f), 'utf8').trim());
    if (pgid > 1) {
      try {
        process.kill(-pgid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
  }
}
