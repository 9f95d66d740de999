// The experiment-loop skill (docs/skills/agentjet-experiment-loop/SKILL.md) reads as one of AgentJet's
// copilot skills (its name and description from the front matter, as the MCP server serves them), and
// names only tools that exist (agentjet_compare_runs comes with the metrics issue), so it never sends
// an agent to a tool it cannot call.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { listSkills } from '../../core/agents/skills';
import { ACT_TOOLS, AGENT_TOOLS } from '../../core/agents/tools';

const SKILL = join(repoRoot, 'docs', 'skills', 'agentjet-experiment-loop');

test("the skill is read as AgentJet's copilot skills are, and names only real tools", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-skill-'));
  try {
    cpSync(SKILL, join(dir, 'ajet', 'copilot', 'agentjet-experiment-loop'), { recursive: true });
    const skills = await listSkills(join(dir, 'ajet'));
    assert.equal(skills.length, 1);
    assert.equal(skills[0]!.name, 'agentjet-experiment-loop');
    assert.match(skills[0]!.description, /agentjet mcp --allow-act/);
    const text = readFileSync(join(SKILL, 'SKILL.md'), 'utf8');
    const named = new Set(text.match(/\bagentjet_[a-z_]+/g));
    const known = new Set([...AGENT_TOOLS, ...ACT_TOOLS].map((x) => x.name));
    const unknown = [...named].filter((n) => !known.has(n) && n !== 'agentjet_compare_runs');
    assert.deepEqual(unknown, []);
    for (const t of ACT_TOOLS) assert.ok(named.has(t.name), `the loop uses ${t.name}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
