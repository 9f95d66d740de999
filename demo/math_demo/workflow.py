"""A single-turn math agent: one question in, one answer out (the judge scores it)."""
from ajet import AjetTuner, Workflow, WorkflowOutput, WorkflowTask

SYSTEM_PROMPT = "Solve the problem. Put the final answer in \\boxed{}."


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
        # reward=None: the judge (task_judge.judge_protocol) computes it from metadata.
        return WorkflowOutput(reward=None, metadata={"final_answer": answer})
