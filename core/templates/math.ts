// Template: a single-turn math agent with a rule-based judge (AgentJet's math tutorial, written afresh).
import { configYaml } from './config';
import { nextSteps, project, tasks } from './common';
import type { TemplateFiles } from './index';

const PKG = 'math_agent';

const WORKFLOW = `"""A single-turn math agent: one question in, one answer out (the judge scores it)."""
from ajet import AjetTuner, Workflow, WorkflowOutput, WorkflowTask

SYSTEM_PROMPT = (
    "You solve math word problems. Think step by step, "
    "then put only the final number in \\\\boxed{}."
)


class MathWorkflow(Workflow):
    """Asks the model being trained one question and hands its answer to the judge."""

    name: str = "math_agent_workflow"

    async def execute(self, workflow_task: WorkflowTask, tuner: AjetTuner) -> WorkflowOutput:
        question = workflow_task.task.main_query
        # The client talks to the model being trained (vLLM while training or debugging).
        client = tuner.as_raw_openai_sdk_client()
        reply = await client.chat.completions.create(
            model="agentjet-model",
            messages=[
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": question},
            ],
        )
        answer = reply.choices[0].message.content or ""
        # reward=None: MathJudge (task_judge.judge_protocol) computes it from metadata.
        return WorkflowOutput(reward=None, metadata={"final_answer": answer})
`;

const JUDGE = `"""Rule-based judge: 1.0 when the boxed answer equals the task's reference answer."""
import re

BOXED = re.compile(r"\\\\boxed\\{([^}]*)\\}")


def extract_boxed(text: str) -> str:
    """The content of the last \\\\boxed{...} in text, or "" when there is none."""
    found = BOXED.findall(text or "")
    return found[-1].strip().replace(",", "") if found else ""


class MathJudge:
    """AgentJet's judge protocol: built with the config, returns (reward, is_success)."""

    def __init__(self, config=None):
        self.config = config

    def compute_reward(self, workflow_task, workflow_output) -> tuple:
        expected = str(workflow_task.task.metadata.get("answer", "")).strip()
        got = extract_boxed(str(workflow_output.metadata.get("final_answer", "")))
        success = bool(got) and got == expected
        return (1.0 if success else 0.0), success
`;

const TRAIN = tasks('math', [
  ['A shop sells pens at 3 dollars each. How much do 14 pens cost?', { answer: '42' }],
  ['Tom has 5 boxes with 12 apples each and eats 7 apples. How many apples are left?', { answer: '53' }],
  ['What is 17 * 23?', { answer: '391' }],
  ['A train travels 60 km per hour for 3.5 hours. How many km does it travel?', { answer: '210' }],
]);
const VAL = tasks('math-val', [
  ['What is 125 + 378?', { answer: '503' }],
  ['Anna reads 15 pages a day. How many pages does she read in 2 weeks?', { answer: '210' }],
]);

export function mathTemplate(projectName: string): TemplateFiles {
  return project({
    projectName,
    pkg: PKG,
    doc: 'Math agent: workflow and judge for AgentJet.',
    config: configYaml({
      projectName,
      pkg: PKG,
      workflowClass: 'MathWorkflow',
      judgeClass: 'MathJudge',
      comment: 'AgentJet project: a single-turn math agent with a rule-based judge.',
      temperature: 0.9,
      maxResponseInOneTurn: 1024,
      maxModelLen: 8000,
      maxPrompt: 2000,
      maxResponse: 4000,
    }),
    modules: { 'workflow.py': WORKFLOW, 'judge.py': JUDGE },
    train: TRAIN,
    val: VAL,
    readme: `# ${projectName}: a single-turn math agent

Made with **AgentJet: New Project** (template \`math\`). The model answers each question in one
turn; \`${PKG}/judge.py\` gives reward 1.0 when the \`\\boxed{}\` answer equals the task's
\`metadata.answer\`, else 0.0.

| file | what it is |
|---|---|
| \`config.yaml\` | the AgentJet config (\`ajet --conf config.yaml\`) |
| \`${PKG}/workflow.py\` | \`MathWorkflow.execute\`: one chat completion per task |
| \`${PKG}/judge.py\` | \`MathJudge.compute_reward\`: the rule-based reward |
| \`data/*.jsonl\` | a few tasks to start with |

${nextSteps(PKG, 'MathWorkflow', 'MathJudge')}`,
  });
}
