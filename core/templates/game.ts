// Template: a multi-agent game (twenty questions). Two agents share one episode; only the
// questioner is trained (Workflow.trainable_targets), the answerer plays with a fixed debug model.
import { configYaml } from './config';
import { nextSteps, project, tasks } from './common';
import type { TemplateFiles } from './index';

const PKG = 'guess_game';

const WORKFLOW = `"""A multi-agent game: a questioner (trained) guesses the secret an answerer (fixed) knows."""
from typing import List

from ajet import AjetTuner, Workflow, WorkflowOutput, WorkflowTask

MAX_QUESTIONS = 6

QUESTIONER_PROMPT = (
    "We play twenty questions. The secret is a {category}. Ask one yes/no question per turn. "
    "When you are sure, answer with 'GUESS: <word>'."
)
ANSWERER_PROMPT = (
    "We play twenty questions. The secret {category} is '{secret}'. "
    "Answer each question with only 'yes' or 'no'. Never say the secret."
)


async def say(client, system: str, history: List[dict]) -> str:
    reply = await client.chat.completions.create(
        model="agentjet-model", messages=[{"role": "system", "content": system}] + history
    )
    return (reply.choices[0].message.content or "").strip()


class GuessGameWorkflow(Workflow):
    """One game per task. Each agent gets its own client, tagged so AgentJet knows which to train."""

    name: str = "guess_game_workflow"
    # Only agents whose target_tag is listed here are trained; the others use their debug_model.
    trainable_targets: List[str] | None = ["questioner"]

    async def execute(self, workflow_task: WorkflowTask, tuner: AjetTuner) -> WorkflowOutput:
        meta = workflow_task.task.metadata
        secret, category = str(meta.get("secret", "")), str(meta.get("category", "thing"))
        questioner = tuner.as_raw_openai_sdk_client(agent_name="questioner", target_tag="questioner")
        answerer = tuner.as_raw_openai_sdk_client(
            agent_name="answerer", target_tag="answerer", debug_model="qwen-max"
        )
        q_system = QUESTIONER_PROMPT.format(category=category)
        a_system = ANSWERER_PROMPT.format(category=category, secret=secret)
        q_history: List[dict] = [{"role": "user", "content": workflow_task.task.main_query}]
        a_history: List[dict] = []
        guess = ""
        questions = 0
        for _ in range(MAX_QUESTIONS):
            move = await say(questioner, q_system, q_history)
            q_history.append({"role": "assistant", "content": move})
            if move.upper().startswith("GUESS:"):
                guess = move.split(":", 1)[1].strip()
                break
            questions += 1
            a_history.append({"role": "user", "content": move})
            answer = await say(answerer, a_system, a_history)
            a_history.append({"role": "assistant", "content": answer})
            q_history.append({"role": "user", "content": answer})
        return WorkflowOutput(
            reward=None,
            metadata={"guess": guess, "questions": questions},
        )
`;

const JUDGE = `"""Judge: a right guess earns 1.0, minus 0.1 for every question asked after the first."""


class GuessGameJudge:
    """AgentJet's judge protocol: built with the config, returns (reward, is_success)."""

    def __init__(self, config=None):
        self.config = config

    def compute_reward(self, workflow_task, workflow_output) -> tuple:
        secret = str(workflow_task.task.metadata.get("secret", "")).strip().lower()
        guess = str(workflow_output.metadata.get("guess", "")).strip().lower().rstrip(".!")
        success = bool(guess) and guess == secret
        questions = int(workflow_output.metadata.get("questions", 0))
        reward = max(0.0, 1.0 - 0.1 * max(0, questions - 1)) if success else 0.0
        return reward, success
`;

const TRAIN = tasks('game', [
  ['Guess the animal I am thinking of.', { secret: 'cat', category: 'animal' }],
  ['Guess the fruit I am thinking of.', { secret: 'banana', category: 'fruit' }],
  ['Guess the vehicle I am thinking of.', { secret: 'bicycle', category: 'vehicle' }],
]);
const VAL = tasks('game-val', [['Guess the instrument I am thinking of.', { secret: 'piano', category: 'instrument' }]]);

export function gameTemplate(projectName: string): TemplateFiles {
  return project({
    projectName,
    pkg: PKG,
    doc: 'Twenty questions: a two-agent game for AgentJet.',
    config: configYaml({
      projectName,
      pkg: PKG,
      workflowClass: 'GuessGameWorkflow',
      judgeClass: 'GuessGameJudge',
      comment: 'AgentJet project: a two-agent game (twenty questions); only the questioner is trained.',
      temperature: 0.7,
      maxResponseInOneTurn: 256,
      maxModelLen: 8000,
      maxPrompt: 2000,
      maxResponse: 4000,
      rolloutExtra: '    multi_turn:\n      max_steps: 12\n      expected_steps: 6\n',
    }),
    modules: { 'workflow.py': WORKFLOW, 'judge.py': JUDGE },
    train: TRAIN,
    val: VAL,
    readme: `# ${projectName}: a multi-agent game

Made with **AgentJet: New Project** (template \`game\`). Two agents play twenty questions: the
*questioner* asks yes/no questions and guesses, the *answerer* knows the secret from the task's
\`metadata\`. \`trainable_targets = ["questioner"]\` in \`${PKG}/workflow.py\` means only the
questioner's tokens are trained; the answerer uses its \`debug_model\`. The judge rewards a right
guess, less for every extra question.

| file | what it is |
|---|---|
| \`config.yaml\` | the AgentJet config (\`ajet --conf config.yaml\`) |
| \`${PKG}/workflow.py\` | \`GuessGameWorkflow.execute\`: the game loop between two agents |
| \`${PKG}/judge.py\` | \`GuessGameJudge.compute_reward\` |
| \`data/*.jsonl\` | a few secrets to start with |

To train the answerer too, add \`"answerer"\` to \`trainable_targets\` (or set it to \`None\`: all agents).

${nextSteps(PKG, 'GuessGameWorkflow', 'GuessGameJudge')}`,
  });
}
