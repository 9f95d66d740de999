// Template: a multi-turn agent that calls a tool (a safe calculator) through OpenAI-style tool calls.
import { configYaml } from './config';
import { nextSteps, project, tasks } from './common';
import type { TemplateFiles } from './index';

const PKG = 'tool_agent';

const WORKFLOW = `"""A multi-turn tool-using agent: the model may call \`calculate\` until it answers."""
import json

from ajet import AjetTuner, Workflow, WorkflowOutput, WorkflowTask

from .tools import TOOLS, run_tool

SYSTEM_PROMPT = (
    "You answer questions that need arithmetic. Use the calculate tool for every computation. "
    "When you are done, reply with the final number in \\\\boxed{}."
)
MAX_TURNS = 4


class ToolWorkflow(Workflow):
    """Lets the model call tools for up to MAX_TURNS turns, then reports its final answer."""

    name: str = "tool_agent_workflow"

    async def execute(self, workflow_task: WorkflowTask, tuner: AjetTuner) -> WorkflowOutput:
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": workflow_task.task.main_query},
        ]
        client = tuner.as_raw_openai_sdk_client()
        answer = ""
        tool_calls_made = 0
        for _turn in range(MAX_TURNS):
            reply = await client.chat.completions.create(
                model="agentjet-model", messages=messages, tools=TOOLS
            )
            message = reply.choices[0].message
            calls = getattr(message, "tool_calls", None) or []
            messages.append({"role": "assistant", "content": message.content or ""})
            if not calls:
                answer = message.content or ""
                break
            for call in calls:
                tool_calls_made += 1
                result = run_tool(call.function.name, json.loads(call.function.arguments or "{}"))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        return WorkflowOutput(
            reward=None,
            metadata={"final_answer": answer, "tool_calls": tool_calls_made},
        )
`;

const TOOLS = `"""The tools the agent may call: their OpenAI schema and their implementation."""
import ast
import operator

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calculate",
            "description": "Evaluate an arithmetic expression with + - * / ** and parentheses.",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string", "description": "e.g. (3 + 4) * 12"}},
                "required": ["expression"],
            },
        },
    }
]

_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.USub: operator.neg,
}


def _eval(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.left), _eval(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.operand))
    raise ValueError("unsupported expression")


def run_tool(name: str, arguments: dict) -> str:
    """Runs one tool call and returns its result as text (errors too: the model reads them)."""
    if name != "calculate":
        return "error: unknown tool " + name
    try:
        value = _eval(ast.parse(str(arguments.get("expression", "")), mode="eval").body)
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError) as err:
        return "error: " + str(err)
    return str(int(value)) if float(value).is_integer() else str(value)
`;

const JUDGE = `"""Judge: 1.0 for the right answer, a small bonus when the agent used its tool."""
import re

BOXED = re.compile(r"\\\\boxed\\{([^}]*)\\}")


class ToolAnswerJudge:
    """AgentJet's judge protocol: built with the config, returns (reward, is_success)."""

    def __init__(self, config=None):
        self.config = config

    def compute_reward(self, workflow_task, workflow_output) -> tuple:
        expected = str(workflow_task.task.metadata.get("answer", "")).strip()
        found = BOXED.findall(str(workflow_output.metadata.get("final_answer", "")))
        got = found[-1].strip().replace(",", "") if found else ""
        success = bool(got) and got == expected
        used_tool = workflow_output.metadata.get("tool_calls", 0) > 0
        reward = (0.9 if success else 0.0) + (0.1 if used_tool else 0.0)
        return reward, success
`;

const TRAIN = tasks('tool', [
  ['A warehouse has 37 shelves with 148 boxes each. 1,250 boxes are shipped. How many boxes remain?', { answer: '4226' }],
  ['What is 2 to the power of 20, minus 48,576?', { answer: '1000000' }],
  ['A car uses 6.5 litres per 100 km. How many litres does it use for 1,240 km?', { answer: '80.6' }],
]);
const VAL = tasks('tool-val', [['What is (1234 + 4321) * 3?', { answer: '16665' }]]);

export function toolsTemplate(projectName: string): TemplateFiles {
  return project({
    projectName,
    pkg: PKG,
    doc: 'Tool-using agent: workflow, tools and judge for AgentJet.',
    config: configYaml({
      projectName,
      pkg: PKG,
      workflowClass: 'ToolWorkflow',
      judgeClass: 'ToolAnswerJudge',
      comment: 'AgentJet project: a multi-turn agent that calls a calculator tool.',
      temperature: 0.8,
      maxResponseInOneTurn: 1024,
      maxModelLen: 12000,
      maxPrompt: 3000,
      maxResponse: 6000,
      rolloutExtra: '    multi_turn:\n      max_steps: 4\n      expected_steps: 3\n',
    }),
    modules: { 'workflow.py': WORKFLOW, 'tools.py': TOOLS, 'judge.py': JUDGE },
    train: TRAIN,
    val: VAL,
    readme: `# ${projectName}: a multi-turn tool-using agent

Made with **AgentJet: New Project** (template \`tools\`). The model may call the \`calculate\` tool
(OpenAI tool calls) for up to 4 turns; \`${PKG}/judge.py\` rewards the right \`\\boxed{}\` answer and
gives a small bonus for using the tool. Every turn is recorded, so the token log shows the whole
conversation.

| file | what it is |
|---|---|
| \`config.yaml\` | the AgentJet config (\`ajet --conf config.yaml\`) |
| \`${PKG}/workflow.py\` | \`ToolWorkflow.execute\`: the tool-calling loop |
| \`${PKG}/tools.py\` | the tool schema and a safe calculator (add your tools here) |
| \`${PKG}/judge.py\` | \`ToolAnswerJudge.compute_reward\` |
| \`data/*.jsonl\` | a few tasks to start with |

${nextSteps(PKG, 'ToolWorkflow', 'ToolAnswerJudge')}`,
  });
}
