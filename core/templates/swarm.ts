// Template: a swarm client (AgentJet 0.0.4 swarm mode), after AgentJet's own swarm examples
// (tutorial/example_math_swarm): the client claims episodes from a swarm server, runs the agent
// against the episode's OpenAI-compatible URL, computes the reward and ends the episode.
import { jsonl } from './common';
import type { TemplateFiles } from './index';

export const SWARM_CLIENT_FILE = 'swarm_client.py';

const TRAIN = [
  { task_id: 'add-1', main_query: 'What is 17 + 25?', metadata: { answer: '42' } },
  { task_id: 'mul-1', main_query: 'What is 12 * 11?', metadata: { answer: '132' } },
  { task_id: 'sub-1', main_query: 'A box holds 50 pens. 18 are taken out. How many are left?', metadata: { answer: '32' } },
  {
    task_id: 'div-1',
    main_query: 'Share 96 apples equally among 8 children. How many apples does each child get?',
    metadata: { answer: '12' },
  },
];

const CLIENT = `# -*- coding: utf-8 -*-
"""A swarm client for AgentJet's swarm mode.

A swarm server (\`ajet-swarm start\`, on the GPU machine) holds the model and the trainer. This
script runs the agent anywhere: for each task it claims an episode, asks the model through the
episode's OpenAI-compatible URL, scores the answer and ends the episode with the reward. GRPO_N
episodes of the same task form one group.

    AJET_SWARM_URL=http://localhost:10086 python swarm_client.py            # run episodes
    python swarm_client.py --start-engine --model /path/to/Qwen2.5-7B-Instruct  # also configure and start training

Set a breakpoint in \`execute_agent\` or \`compute_reward\` and debug this file to step through one episode.
"""
import argparse
import json
import os
import re
from pathlib import Path

import httpx
from ajet.schema.task import Task, WorkflowOutput
from ajet.tuner_lib.experimental.swarm_client import SwarmClient

AJET_SWARM_URL = os.getenv("AJET_SWARM_URL", "http://localhost:10086")
GRPO_N = 4  # episodes per task (the GRPO group size)
HERE = Path(__file__).resolve().parent


def load_tasks(path: Path):
    """One JSON object per line: task_id, main_query, metadata.answer."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                yield Task(task_id=row["task_id"], main_query=row["main_query"], metadata=row.get("metadata", {}))


def compute_reward(answer: str, reference: str) -> float:
    """1.0 when the last \\\\boxed{...} in the answer equals the reference, else 0.0."""
    found = re.findall(r"\\\\boxed\\{([^}]*)\\}", answer)
    return 1.0 if found and found[-1].strip() == reference.strip() else 0.0


def execute_agent(task: Task, base_url: str, api_key: str) -> WorkflowOutput:
    """The workflow: one chat completion against the episode's model, then the reward."""
    messages = [
        {"role": "system", "content": "Solve the problem. Put the final answer in \\\\boxed{}."},
        {"role": "user", "content": task.main_query},
    ]
    response = httpx.post(
        f"{base_url}/chat/completions",
        json={"model": "any", "messages": messages, "stream": False},
        headers={"Authorization": f"Bearer {api_key}"},
        timeout=300,
    )
    response.raise_for_status()
    answer = response.json()["choices"][0]["message"]["content"] or ""
    reward = compute_reward(answer, str(task.metadata.get("answer", "")))
    return WorkflowOutput(reward=reward, metadata={"answer": answer})


def rollout(client: SwarmClient, task: Task) -> float:
    episode_uuid, endpoint = client.begin_episode(discard_episode_timeout=120)
    try:
        output = execute_agent(task, endpoint.base_url, endpoint.api_key)
    except Exception:
        client.abort_episode(episode_uuid)
        raise
    client.end_episode(task, episode_uuid, output)
    return float(output.reward or 0.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=str(HERE / "data" / "train.jsonl"))
    parser.add_argument("--episodes", type=int, default=0, help="stop after this many episodes (0: loop over the tasks forever)")
    parser.add_argument("--start-engine", action="store_true", help="send the training config and start the engine")
    parser.add_argument("--model", default=os.getenv("REMOTE_MODEL_PATH", "Qwen/Qwen2.5-7B-Instruct"))
    args = parser.parse_args()

    client = SwarmClient(AJET_SWARM_URL)
    if args.start_engine:
        from ajet.copilot.job import AgentJetJob

        job = AgentJetJob(experiment_name="${'${PROJECT}'}", algorithm="grpo", n_gpu=8, model=args.model, batch_size=32, num_repeat=GRPO_N)
        client.auto_sync_train_config_and_start_engine(job)

    done = 0
    while True:
        for task in load_tasks(Path(args.tasks)):
            for _ in range(GRPO_N):
                reward = rollout(client, task)
                done += 1
                print(f"episode {done}: task {task.task_id} reward {reward}", flush=True)
                if args.episodes and done >= args.episodes:
                    return


if __name__ == "__main__":
    main()
`;

export function swarmTemplate(projectName: string): TemplateFiles {
  return {
    [SWARM_CLIENT_FILE]: CLIENT.replace('${PROJECT}', projectName),
    'data/train.jsonl': jsonl(TRAIN),
    '.vscode/launch.json':
      JSON.stringify(
        {
          version: '0.2.0',
          configurations: [
            {
              type: 'debugpy',
              request: 'launch',
              name: `Swarm client (${projectName})`,
              program: '${workspaceFolder}/swarm_client.py',
              args: ['--episodes', '4'],
              env: { AJET_SWARM_URL: 'http://localhost:10086' },
              console: 'integratedTerminal',
              justMyCode: true,
            },
          ],
        },
        null,
        2,
      ) + '\n',
    'README.md': `# ${projectName}: an AgentJet swarm client

Made with **AgentJet: New Project** (template \`swarm\`), after AgentJet's swarm examples.
In swarm mode a **swarm server** (\`ajet-swarm start\`, on the GPU machine) holds the model and the
trainer; this **swarm client** runs the agent anywhere and sends rewards back.

| file | what it is |
|---|---|
| \`swarm_client.py\` | the client: \`execute_agent\` (the workflow), \`compute_reward\` (the reward), \`rollout\` (one episode) |
| \`data/train.jsonl\` | tasks: \`task_id\`, \`main_query\`, \`metadata.answer\` |

## Run it

1. Start a swarm server: \`ajet-swarm start\` on the GPU machine (or **AgentJet: Start Local Swarm Server…**).
2. Start training once: \`python swarm_client.py --start-engine --model /path/to/model\`.
3. Run episodes: \`AJET_SWARM_URL=http://SERVER:10086 python swarm_client.py\`; watch the server in the
   **Swarm Servers** view or with \`agentjet swarm watch --url http://SERVER:10086\`.

To step through an episode, set a breakpoint in \`execute_agent\` and press F5 ("Swarm client").
`,
  };
}
