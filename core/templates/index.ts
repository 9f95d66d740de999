// Project templates: a template id and a project name in, a map of relative path -> file text out.
// Pure (no I/O); the extension command and `agentjet new` write the files.
import { mathTemplate } from './math';
import { toolsTemplate } from './tools';
import { gameTemplate } from './game';
import { swarmTemplate, SWARM_CLIENT_FILE } from './swarm';

/** Relative POSIX path -> file contents. */
export type TemplateFiles = Record<string, string>;

export type TemplateId = 'math' | 'tools' | 'game' | 'swarm';

export interface TemplateInfo {
  id: TemplateId;
  /** l10n key + English text of the title and the description (see core/l10n). */
  title: string;
  description: string;
  /** The file to open after creating the project, and where a breakpoint first stops. */
  workflowFile: string;
  workflowClass: string;
}

export const TEMPLATES: readonly TemplateInfo[] = [
  {
    id: 'math',
    title: 'Math agent (single turn)',
    description: 'One question, one answer, a rule-based judge that checks \\boxed{} answers.',
    workflowFile: 'math_agent/workflow.py',
    workflowClass: 'MathWorkflow',
  },
  {
    id: 'tools',
    title: 'Tool-using agent (multi-turn)',
    description: 'The model calls a calculator tool over several turns; the judge rewards the right answer.',
    workflowFile: 'tool_agent/workflow.py',
    workflowClass: 'ToolWorkflow',
  },
  {
    id: 'game',
    title: 'Multi-agent game (twenty questions)',
    description: 'Two agents play; only the questioner is trained (trainable_targets).',
    workflowFile: 'guess_game/workflow.py',
    workflowClass: 'GuessGameWorkflow',
  },
];

/** The swarm client (AgentJet 0.0.4 swarm mode): no config or judge of its own, so it is not in TEMPLATES. */
export const SWARM_TEMPLATE: TemplateInfo = {
  id: 'swarm',
  title: 'Swarm client',
  description: 'A client for an AgentJet swarm server: claims episodes, runs the agent, sends the reward.',
  workflowFile: SWARM_CLIENT_FILE,
  workflowClass: 'execute_agent',
};

/** Every template the New Project command and `agentjet new` offer. */
export const ALL_TEMPLATES: readonly TemplateInfo[] = [...TEMPLATES, SWARM_TEMPLATE];

export function findTemplate(id: string): TemplateInfo | undefined {
  return ALL_TEMPLATES.find((t) => t.id === id);
}

/** A project name usable as AgentJet's project_name (letters, digits, _ and -). */
export function projectNameFrom(folderName: string): string {
  const cleaned = folderName
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
  return cleaned || 'agentjet_project';
}

export function renderTemplate(id: TemplateId, projectName: string): TemplateFiles {
  const name = projectNameFrom(projectName);
  switch (id) {
    case 'math':
      return mathTemplate(name);
    case 'tools':
      return toolsTemplate(name);
    case 'game':
      return gameTemplate(name);
    case 'swarm':
      return swarmTemplate(name);
  }
}

/** Files of `files` that already exist according to `exists` (the caller refuses to overwrite them). */
export function conflicts(files: TemplateFiles, exists: (relPath: string) => boolean): string[] {
  return Object.keys(files).filter(exists).sort();
}
