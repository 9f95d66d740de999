// Template: a single-turn math agent with a rule-based judge (AgentJet's math tutorial, written afresh).
import { configYaml } from './config';
import { nextSteps, project, tasks } from './common';
import type { TemplateFiles } from './index';
import { mathSource } from './mathSources';

const PKG = 'math_agent';

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
      judgeClass: 'MathAnswerJudge',
      comment: 'AgentJet project: a single-turn math agent with a rule-based judge.',
      temperature: 0.9,
      maxResponseInOneTurn: 1024,
      maxModelLen: 8000,
      maxPrompt: 2000,
      maxResponse: 4000,
    }),
    modules: { 'workflow.py': mathSource('workflow.py'), 'judge.py': mathSource('judge.py') },
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
| \`${PKG}/judge.py\` | \`MathAnswerJudge.compute_reward\`: the rule-based reward |
| \`data/*.jsonl\` | a few tasks to start with |

${nextSteps(PKG, 'MathWorkflow', 'MathAnswerJudge')}`,
  });
}
