"""Reward: 1.0 when the boxed answer matches the reference, else 0.0."""
import re


def extract_boxed(text: str) -> str:
    match = re.search(r"\\boxed\{([^}]*)\}", text)
    return match.group(1).strip() if match else ""


class MathAnswerJudge:
    """Compares the workflow's final answer with the task's reference answer."""

    def __init__(self, config=None):
        self.config = config

    def compute_reward(self, workflow_task, workflow_output):
        expected = str(workflow_task.task.metadata.get("answer", "")).strip()
        got = extract_boxed(str(workflow_output.metadata.get("final_answer", "")))
        raw_reward = 1.0 if got and got == expected else 0.0
        return raw_reward, raw_reward == 1.0
