// A config snapshot shaped like the one AgentJet writes (`yaml.dump` of the resolved config:
// sorted keys, block mappings, indentless lists, plain and quoted one-line scalars), of about
// `kb` KB: the verl sections dominate a real one. Deterministic; invented keys, no upstream text.
export function resolvedSnapshot(o: { project: string; experiment: string; kb?: number; totalSteps?: number; logger?: string[] }): string {
  const out: string[] = [];
  const section = (name: string, i: number) => {
    out.push(`${name}:`);
    out.push(`  actor:`);
    out.push(`    clip_ratio: 0.2`);
    out.push(`    entropy_coeff: 0.0`);
    out.push(`    lr: 1.0e-06`);
    out.push(`    optim:`);
    out.push(`      betas:`);
    out.push(`      - 0.9`);
    out.push(`      - 0.999`);
    out.push(`      warmup_style: constant`);
    out.push(`    path: \${ajet.model.path}`);
    out.push(`    ppo_micro_batch_size: null`);
    out.push(`    strategy: fsdp`);
    out.push(`    use_dynamic_bsz: true`);
    out.push(`  external_lib: null`);
    out.push(`  name: '${name} ${i}'`);
    out.push(`  override_config: {}`);
    out.push(`  target_modules: all-linear`);
    out.push(`  tokenizer_path: ./models/tokenizer_${i}`);
    out.push(`  use_remove_padding: false`);
    out.push(`  workers: ${i % 9}`);
  };
  out.push('actor_rollout_ref:');
  out.push('  hybrid_engine: true');
  out.push('  model:');
  out.push('    enable_gradient_checkpointing: true');
  out.push('    path: /models/Qwen2.5-7B-Instruct');
  out.push('ajet:');
  out.push('  backbone: verl');
  out.push('  debug:');
  out.push('    debug_max_parallel: 4');
  out.push('    debug_vllm_port: 18000');
  out.push(`  experiment_name: ${o.experiment}`);
  out.push('  model:');
  out.push('    path: /models/Qwen2.5-7B-Instruct');
  out.push(`  project_name: ${o.project}`);
  out.push('  rollout:');
  out.push('    max_env_worker: 64');
  out.push('    user_workflow: tutorial.example_math_agent.math_agent->ExampleMathLearn');
  out.push('  trainer_common:');
  out.push('    checkpoint_base_dir: ./saved_checkpoints');
  out.push('    logger:');
  for (const l of o.logger ?? ['console', 'swanlab']) out.push(`    - ${l}`);
  out.push('    save_freq: 20');
  out.push('    total_epochs: 50');
  out.push('data:');
  out.push('  max_prompt_length: 3000');
  out.push('defaults:');
  out.push('- verl_default');
  out.push('- ajet_default');
  out.push('- _self_');
  out.push('hydra:');
  out.push('  searchpath:');
  out.push('  - file://ajet/default_config');
  out.push('  - file://ajet/default_config/verl');
  let bytes = out.join('\n').length;
  const target = (o.kb ?? 28) * 1024;
  for (let i = 0; bytes < target - 200; i++) {
    const before = out.length;
    section(`section_${String(i).padStart(3, '0')}`, i);
    bytes += out.slice(before).join('\n').length + 1;
  }
  out.push('trainer:');
  out.push('  default_local_dir: ${ajet.trainer_common.checkpoint_base_dir}');
  out.push('  n_gpus_per_node: 8');
  out.push('  nnodes: 1');
  if (o.totalSteps !== undefined) out.push(`  total_training_steps: ${o.totalSteps}`);
  out.push('  val_before_train: false');
  return `${out.join('\n')}\n`;
}
