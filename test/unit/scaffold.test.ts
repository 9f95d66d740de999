// Scaffolding quick fix (pure part): which file gets which class, and the class lints clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kindOfKey, parseRefLine, planScaffold, scaffoldText } from '../../core/config/scaffold';
import { renderTemplate } from '../../core/templates';
import { lintFile } from '../../core/config/lint';
import { parsePython } from '../../core/config/python';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';

test('keys map to workflow or judge; ref lines parse with quotes and comments', () => {
  assert.equal(kindOfKey('user_workflow'), 'workflow');
  assert.equal(kindOfKey('judge_protocol'), 'judge');
  assert.equal(kindOfKey('path'), undefined);
  assert.deepEqual(parseRefLine('    user_workflow: "pkg.wf->My"  # note'), { key: 'user_workflow', value: 'pkg.wf->My' });
  assert.deepEqual(parseRefLine("    judge_protocol: 'a/b.py->J'"), { key: 'judge_protocol', value: 'a/b.py->J' });
});

test('plans: module and file forms; framework classes are never scaffolded', () => {
  assert.deepEqual(planScaffold('user_workflow', 'pkg.sub.wf->My', '/r'), {
    kind: 'workflow',
    className: 'My',
    file: '/r/pkg/sub/wf.py',
    packageInit: '/r/pkg/sub/wf/__init__.py',
  });
  assert.equal(planScaffold('judge_protocol', 'x/j.py->J', '/r')?.file, '/r/x/j.py');
  assert.equal(planScaffold('user_workflow', 'ajet.task_judge.x->Y', '/r'), undefined);
  assert.equal(planScaffold('user_workflow', 'not a ref', '/r'), undefined);
});

test('the created classes make the lint errors go away (new file and appended class)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-scaffold-'));
  try {
    const files = renderTemplate('math', 'p');
    files['config.yaml'] = (files['config.yaml'] ?? '')
      .replace('math_agent.workflow->MathWorkflow', 'math_agent.workflow->SecondWorkflow')
      .replace('math_agent.judge->MathAnswerJudge', 'my_judges->StrictJudge');
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    const before = await lintFile(join(dir, 'config.yaml'), { root: dir });
    assert.deepEqual(before.map((d) => d.code).sort(), ['class-ref/missing-class', 'class-ref/missing-module']);
    const wf = planScaffold('user_workflow', 'math_agent.workflow->SecondWorkflow', dir)!;
    const existing = files['math_agent/workflow.py']!;
    writeFileSync(wf.file, existing + scaffoldText(wf, existing));
    const judge = planScaffold('judge_protocol', 'my_judges->StrictJudge', dir)!;
    writeFileSync(judge.file, scaffoldText(judge, undefined));
    // A fresh resolver: the shared file cache would still remember the missing files.
    assert.deepEqual(await lintFile(join(dir, 'config.yaml'), { root: dir, resolver: new ClassResolver(new CachedFs(0)) }), []);
    const mod = parsePython(existing + scaffoldText(wf, existing));
    const cls = mod.classes.get('SecondWorkflow');
    assert.match(cls?.execute ?? '', /async def execute\(self, workflow_task: WorkflowTask, tuner: AjetTuner\) -> WorkflowOutput/);
    // Appending keeps two blank lines before the class and adds no second import when one exists.
    const appended = scaffoldText(wf, existing);
    assert.match(appended, /^\n\nclass SecondWorkflow\(Workflow\):/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
