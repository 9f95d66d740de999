"""Rule-based judge: 1.0 when the boxed answer equals the task's reference answer."""
import re

BOXED = re.compile(r"\\boxed\{([^}]*)\}")


def extract_boxed(text: str) -> str:
    """The content of the last \\boxed{...} in text, or "" when there is none."""
    found = BOXED.findall(text or "")
    return found[-1].strip().replace(",", "") if found else ""


class MathAnswerJudge:
    """AgentJet's judge protocol: built with the config, returns (reward, is_success)."""

    def __init__(self, config=None):
        self.config = config

    def compute_reward(self, workflow_task, workflow_output) -> tuple:
        expected = str(workflow_task.task.metadata.get("answer", "")).strip()
        got = extract_boxed(str(workflow_output.metadata.get("final_answer", "")))
        success = bool(got) and got == expected
        return (1.0 if success else 0.0), success
