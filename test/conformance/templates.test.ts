// The project templates against AgentJet's real code (agentjet-d20cce0): the real JsonlTaskReader
// reads the generated task data, the real pydantic Workflow base accepts the generated workflow
// classes (instantiated the way AjetTuner does, `cls(name="ajet-workflow")`), and the judges score
// real WorkflowTask/WorkflowOutput objects. Heavy framework imports (tuner, agentscope) are not
// loaded: the `ajet` package object is made by hand so only these modules execute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TEMPLATES, renderTemplate } from '../../core/templates';
import { ensureTestPython } from '../harness/python';
import { withUpstream } from '../util/upstream';

const SCRIPT = String.raw`
import importlib, importlib.util, json, sys, types
upstream, workflow_ref, judge_ref, template = sys.argv[1:5]

def package(name):
    m = types.ModuleType(name)
    m.__path__ = [upstream + "/" + name.replace(".", "/")]
    sys.modules[name] = m
    return m

ajet = package("ajet")
package("ajet.task_reader")
from ajet.schema.task import Task, WorkflowOutput, WorkflowTask
ajet.WorkflowOutput, ajet.WorkflowTask = WorkflowOutput, WorkflowTask
ajet.AjetTuner = type("AjetTuner", (), {})  # only a type annotation in user code
from ajet.workflow import Workflow
ajet.Workflow = Workflow
from ajet.task_reader.jsonl_reader import JsonlTaskReader

ns = lambda **kw: types.SimpleNamespace(**kw)
reader = JsonlTaskReader(ns(jsonl_dataset_file=ns(training=ns(file_path="data/train.jsonl"), validation=ns(file_path="data/val.jsonl"))))
tasks = reader.get_training_tasks() + reader.get_validation_tasks()

def load(ref):
    mod, cls = ref.split("->")
    return getattr(importlib.import_module(mod), cls)

wf_cls = load(workflow_ref)
assert issubclass(wf_cls, Workflow)
wf = wf_cls(name="ajet-workflow")
judge = load(judge_ref)(config=None)
scores = []
for task in tasks:
    wt = WorkflowTask(task=task, task_id=task.task_id)
    if template == "game":
        right = WorkflowOutput(reward=None, metadata={"guess": task.metadata["secret"], "questions": 1})
    else:
        right = WorkflowOutput(reward=None, metadata={"final_answer": "So the answer is \\boxed{%s}." % task.metadata["answer"], "tool_calls": 2})
    wrong = WorkflowOutput(reward=None, metadata={"final_answer": "no idea", "guess": "nothing", "questions": 3, "tool_calls": 0})
    r1, ok1 = judge.compute_reward(wt, right)
    r0, ok0 = judge.compute_reward(wt, wrong)
    scores.append([task.task_id, r1, ok1, r0, ok0])
print(json.dumps({"tasks": len(tasks), "main_query": tasks[0].main_query, "trainable_targets": wf.trainable_targets, "name": wf.name, "scores": scores}))
`;

for (const tpl of TEMPLATES) {
  test(
    `template ${tpl.id} against AgentJet's real task reader, Workflow base and schema`,
    withUpstream('agentjet-d20cce0', (root) => {
      const { python } = ensureTestPython();
      const dir = mkdtempSync(join(tmpdir(), `agentjet-conf-${tpl.id}-`));
      try {
        const files = renderTemplate(tpl.id, tpl.id);
        for (const [rel, text] of Object.entries(files)) {
          mkdirSync(dirname(join(dir, rel)), { recursive: true });
          writeFileSync(join(dir, rel), text);
        }
        const config = files['config.yaml']!;
        const wfRef = /user_workflow: (\S+)/.exec(config)![1]!;
        const judgeRef = /judge_protocol: (\S+)/.exec(config)![1]!;
        const r = spawnSync(python, ['-c', SCRIPT, root, wfRef, judgeRef, tpl.id], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, PYTHONPATH: dir },
        });
        assert.equal(r.status, 0, r.stderr.slice(-2000));
        const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
          tasks: number;
          main_query: string;
          trainable_targets: string[] | null;
          name: string;
          scores: Array<[string, number, boolean, number, boolean]>;
        };
        const rows = Object.keys(files)
          .filter((f) => f.endsWith('.jsonl'))
          .reduce((n, f) => n + files[f]!.trim().split('\n').length, 0);
        assert.equal(out.tasks, rows, 'every JSONL line is a task for the real reader');
        assert.notEqual(out.main_query, '[not defined]');
        assert.equal(out.trainable_targets === null ? null : out.trainable_targets.join(','), tpl.id === 'game' ? 'questioner' : null);
        for (const [id, right, okRight, wrong, okWrong] of out.scores) {
          assert.ok(right >= 0.9 && okRight, `${id}: a right answer scores high (${right})`);
          assert.ok(wrong <= 0.1 && !okWrong, `${id}: a wrong answer scores low (${wrong})`);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
  );
}
