"""A one-turn math agent: ask the model, return its answer for the judge."""
from ajet import AjetTuner, Workflow, WorkflowOutput, WorkflowTask

SYSTEM_PROMPT = "Solve the problem. Put the final answer in \\boxed{}."


class MathWorkflow(Workflow):
    """Asks the tuned model one math question and reports its final answer."""

    async def execute(self, workflow_task: WorkflowTask, tuner: AjetTuner) -> WorkflowOutput:
        question = workflow_task.task.main_query
        client = tuner.as_raw_openai_sdk_client()
        reply = await client.chat.completions.create(
            model="agentjet-model",
            messages=[
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": question},
            ],
        )
        answer = reply.choices[0].message.content or ""
        return WorkflowOutput(reward=None, metadata={"final_answer": answer})
