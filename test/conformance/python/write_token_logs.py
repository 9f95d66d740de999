"""Writes token logs with the real beast-logger, the way AgentJet's and ASTune's context trackers
call it (generate_log), and prints what was written as JSON for the test to compare.

usage: write_token_logs.py <beast_logger_dir> <color_hsl.py> <out_dir> <agentjet|astune> <records> <rotation>
"""
import importlib.util
import json
import random
import sys

bl_dir, color_file, out_dir, fmt, n_records, rotation = sys.argv[1:7]
sys.path.insert(0, bl_dir)
spec = importlib.util.spec_from_file_location("color_hsl", color_file)
color_hsl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(color_hsl)

from beast_logger import NestedJsonItem, SeqItem, print_nested, register_logger  # noqa: E402

register_logger(mods=[], non_console_mods=["rollout"], base_log_path=out_dir, rotation=rotation)

INVALID_LOG_PROB_VALUE = 0.0  # only compared for identity below, as the trackers do
TASKS = ["", "gsm8k.test.17", "write a poem", "t-0", "quote\"and\\slash é\nline"]
rnd = random.Random(7)
written = []
for i in range(int(n_records)):
    task_id = TASKS[i % len(TASKS)]
    step = i // 3
    success_rate = [0.0, 0.5, 1.0][i % 3]
    task_outcome = str(success_rate)
    nested = {}
    expected_timelines = []
    n_timelines = 2 if fmt == "agentjet" else 1
    for index in range(n_timelines):
        n_prompt, n_resp = rnd.randint(2, 6), rnd.randint(1, 6)
        ids = [rnd.randint(0, 150000) for _ in range(n_prompt + n_resp)]
        text_arr = [rnd.choice(["Hi", " there", "\n", "\"", "é", "-0.5", "<|im_end|>", "\\n", " 42"]) for _ in ids]
        loss_mask = [0] * n_prompt + [1] * n_resp
        if fmt == "agentjet":
            # multiagent_tracking.generate_log
            response_logprobs = [round(-rnd.random() * 3, 4) for _ in range(n_resp)]
            logprobs = [INVALID_LOG_PROB_VALUE] * n_prompt + response_logprobs
            colors = [color_hsl.adjust_color_hsl("#09ABCF", lp) if m == 1 else color_hsl.adjust_color_hsl("#D98510", lp) for m, lp in zip(loss_mask, logprobs)]
            titles = [f"{lp:.4f}" if k >= n_prompt else "N/A" for k, lp in enumerate(logprobs)]
            selectors = [task_id, task_outcome, str(index)]
            expected_lp = [None] * n_prompt + [float(f"{lp:.4f}") for lp in response_logprobs]
        else:
            # astune basic_tracker.generate_log: title is the token text, plain colours, key task.outcome
            colors = ["#09ABCF" if m == 1 else "#D98510" for m in loss_mask]
            titles = text_arr
            selectors = [task_id, task_outcome]
            expected_lp = [None] * len(ids)
        raw_reward, step_reward, adv = success_rate, success_rate, success_rate - 0.5
        nested[".".join(selectors)] = NestedJsonItem(
            item_id="item", outcome=task_outcome,
            len_prompt_ids=n_prompt, len_response_ids=n_resp, len_input_ids=n_prompt + n_resp,
            raw_reward=f"{float(raw_reward):.3f}", step_reward=f"{float(step_reward):.3f}",
            step_advantage=f"{float(adv):.3f}", step_advantage_simple=f"{float(adv):.3f}",
            content=SeqItem(text=text_arr, title=titles, count=[str(t) for t in ids], color=colors),
        )
        expected_timelines.append({"index": index, "tokens": text_arr, "ids": ids, "mask": loss_mask, "logprobs": expected_lp, "advantage": float(f"{adv:.3f}")})
    global_step = step if fmt == "agentjet" else "NA"
    header = f"[{global_step}] Task {task_id} (Reward {float(step_reward):.3f})"
    if fmt == "agentjet":
        print_nested(nested, main_content="This is the main content of the nested JSON", header=header, mod="rollout", narrow=False, attach="copy this")
    else:
        print_nested(nested, main_content="This is the main content of the nested JSON", header=header, mod="rollout", narrow=False)
    written.append({"step": step if fmt == "agentjet" else None, "task": task_id, "outcome": task_outcome, "reward": float(f"{float(step_reward):.3f}"), "timelines": expected_timelines})

from loguru import logger  # noqa: E402

logger.complete()
print("EXPECTED " + json.dumps(written, ensure_ascii=False))
