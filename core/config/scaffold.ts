// Scaffolding quick fixes (pure): for a class reference whose class (or module) is missing, the
// Python file to create or append to and the class to write: a Workflow subclass with the real
// `execute` signature for rollout.user_workflow, a judge with `compute_reward` for judge_protocol.
import { isAbsolute, join, normalize } from 'node:path';
import { parseClassRef } from './classref';

export type ScaffoldKind = 'workflow' | 'judge';

/** The diagnostic codes a scaffold fix applies to. */
export const SCAFFOLD_CODES = new Set(['class-ref/missing-class', 'class-ref/missing-module', 'class-ref/missing-file']);

const WORKFLOW_KEYS = new Set(['user_workflow', 'agentscope_workflow', 'agentscope_learn_protocol']);
const JUDGE_KEYS = new Set(['judge_protocol']);

export function kindOfKey(key: string): ScaffoldKind | undefined {
  if (WORKFLOW_KEYS.has(key)) return 'workflow';
  if (JUDGE_KEYS.has(key)) return 'judge';
  return undefined;
}

/** `    user_workflow: "pkg.mod->Cls"  # comment` → key and unquoted value. */
export function parseRefLine(line: string): { key: string; value: string } | undefined {
  const m = /^\s*([A-Za-z_][\w]*)\s*:\s*(.*?)\s*$/.exec(line);
  if (!m) return undefined;
  let value = (m[2] ?? '').replace(/\s+#.*$/, '').trim();
  if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) value = value.slice(1, -1);
  const [, key = ''] = m;
  return { key, value };
}

export interface ScaffoldPlan {
  kind: ScaffoldKind;
  className: string;
  /** Absolute path of the Python file to create or append to. */
  file: string;
  /** Other candidate: a package's __init__.py when the module is a folder. */
  packageInit: string;
}

/** Where the class of `value` (as written in a config) lives, resolved from `root` (the launcher's cwd). */
export function planScaffold(key: string, value: string, root: string): ScaffoldPlan | undefined {
  const kind = kindOfKey(key);
  if (!kind) return undefined;
  const ref = parseClassRef(value);
  if ('error' in ref) return undefined;
  if (ref.form === 'file') {
    const file = isAbsolute(ref.target) ? normalize(ref.target) : join(root, ref.target);
    return { kind, className: ref.className, file, packageInit: file };
  }
  const parts = ref.target.split('.');
  if (parts[0] === 'ajet' || parts[0] === 'astuner' || parts[0] === 'astune') return undefined; // the framework's own code
  return { kind, className: ref.className, file: join(root, ...parts) + '.py', packageInit: join(root, ...parts, '__init__.py') };
}

/** The class text; `fresh` adds the imports a new file needs. */
export function classSkeleton(kind: ScaffoldKind, className: string, fresh: boolean, existing = ''): string {
  if (kind === 'workflow') {
    const needsImport = fresh || !/from ajet import[^\n]*\bWorkflow\b/.test(existing);
    return (
      (needsImport ? 'from ajet import AjetTuner, Workflow, WorkflowOutput, WorkflowTask\n\n\n' : '') +
      `class ${className}(Workflow):
    """An AgentJet workflow: runs one task and returns its output (the judge scores it)."""

    async def execute(self, workflow_task: WorkflowTask, tuner: AjetTuner) -> WorkflowOutput:
        client = tuner.as_raw_openai_sdk_client()
        reply = await client.chat.completions.create(
            model="agentjet-model",
            messages=[{"role": "user", "content": workflow_task.task.main_query}],
        )
        answer = reply.choices[0].message.content or ""
        return WorkflowOutput(reward=None, metadata={"final_answer": answer})
`
    );
  }
  return `class ${className}:
    """An AgentJet judge: built with the config; compute_reward returns (reward, is_success)."""

    def __init__(self, config=None):
        self.config = config

    def compute_reward(self, workflow_task, workflow_output) -> tuple:
        expected = str(workflow_task.task.metadata.get("answer", "")).strip()
        got = str(workflow_output.metadata.get("final_answer", "")).strip()
        success = bool(got) and got == expected
        return (1.0 if success else 0.0), success
`;
}

/** Text to write: the whole new file, or what to append to `existing` (blank lines included). */
export function scaffoldText(plan: ScaffoldPlan, existing: string | undefined): string {
  if (existing === undefined) return classSkeleton(plan.kind, plan.className, true);
  const body = classSkeleton(plan.kind, plan.className, false, existing);
  const sep =
    existing.length === 0
      ? ''
      : existing.endsWith('\n\n\n')
        ? ''
        : existing.endsWith('\n\n')
          ? '\n'
          : existing.endsWith('\n')
            ? '\n\n'
            : '\n\n\n';
  // An import the new class needs goes at the end too: correct Python, and the user may move it.
  return sep + body;
}
