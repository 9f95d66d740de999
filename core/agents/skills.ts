// AgentJet's own agent skills (`ajet/copilot/<skill>/SKILL.md` since 0.0.4: writing a swarm
// client, installing the swarm server, mapping verl settings, ...), read from the user's AgentJet:
// the checkout at the root, else (only when an interpreter may run) the installed package. The
// MCP server offers them as resources and prompts; the extension copies them where a client looks
// for skills (.claude/skills, .github/skills).
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { findCheckout, findInstalled, type FoundAgentJet } from '../config/agentjetFacts';
import { readInside, resolveInside } from '../fs/inside';
import { printable } from '../l10n/printable';

export interface AgentJetSkill {
  /** The folder name (the skill's name in its front matter, when it has one). */
  name: string;
  description: string;
  dir: string;
  /** Markdown files of the skill, SKILL.md first (names relative to `dir`). */
  files: string[];
  /** The package folder every file of the skill must really lie in, checked at each read. */
  within: string[];
}

/** Bytes of one skill file an answer carries at most. */
const MAX_SKILL_FILE_BYTES = 256 * 1024;

/** The user's AgentJet package (checkout at `root`, else the interpreter's, when `python` is given). */
export async function findAgentJet(root: string, python: string | undefined): Promise<FoundAgentJet | undefined> {
  return findCheckout(root) ?? (python ? await findInstalled(python) : undefined);
}

/**
 * The first `max` bytes of a regular file inside `within` and its size (never the whole file: a
 * 1.9 GB SKILL.md cost 2 GB to answer 256 KB, issue 39 R12); undefined when it cannot be read, is
 * not a regular file (a FIFO swapped in is refused at once, never waited on: R4) or really lies
 * outside the package (a link out: R5). Checked where it is opened, at every read (core/fs/inside).
 */
async function readHead(path: string, max: number, within: readonly string[]): Promise<{ head: Buffer; size: number } | undefined> {
  try {
    const { bytes, size } = await readInside(path, within, max);
    return { head: bytes, size };
  } catch {
    return undefined;
  }
}

/** A name or description from a skill's files as clients may show it (core/l10n/printable.ts, issue 39 R16). */
export { printable };

function frontMatter(text: string): Record<string, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const out: Record<string, string> = {};
  if (!m) return out;
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z_-]+):\s*(.*)$/.exec(line);
    if (kv) out[kv[1]!] = kv[2]!.replace(/^["']|["']$/g, '');
  }
  return out;
}

/** The skills of an AgentJet package folder (none for ASTuner-era packages, which ship no copilot folder). */
export async function listSkills(pkgDir: string): Promise<AgentJetSkill[]> {
  const base = join(pkgDir, 'copilot');
  if (!existsSync(base)) return [];
  // Everything of a skill lies in the package: a copilot folder that links out of it has none.
  const pkg = await resolveInside(pkgDir, [pkgDir]);
  if (!pkg.ok || !(await resolveInside(base, [pkg.path])).ok) return [];
  const within = [pkg.path];
  const out: AgentJetSkill[] = [];
  for (const d of (await readdir(base, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!d.isDirectory()) continue;
    const dir = join(base, d.name);
    // Listed only when SKILL.md opens as a regular file inside the package.
    const first = await readHead(join(dir, 'SKILL.md'), 4096, within);
    if (!first) continue;
    const head = first.head.toString('utf8');
    const fm = frontMatter(head);
    const others = (await readdir(dir, { withFileTypes: true }).catch(() => []))
      .filter((e) => e.isFile() && e.name.endsWith('.md') && e.name !== 'SKILL.md')
      .map((e) => e.name)
      .sort();
    out.push({
      name: printable(fm.name || d.name),
      description: printable(fm.description ?? ''),
      dir,
      files: ['SKILL.md', ...others],
      within,
    });
  }
  return out;
}

/** One file of a skill, at most MAX_SKILL_FILE_BYTES (said when cut). */
export async function readSkillFile(skill: AgentJetSkill, file: string): Promise<string | undefined> {
  if (!skill.files.includes(file)) return undefined;
  const r = await readHead(join(skill.dir, file), MAX_SKILL_FILE_BYTES, skill.within);
  if (!r) return undefined;
  if (r.size <= MAX_SKILL_FILE_BYTES) return r.head.toString('utf8');
  return `${r.head.toString('utf8')}\n…\n[${r.size} bytes; cut at ${MAX_SKILL_FILE_BYTES}]`;
}

/** Bytes one skill file may have to be copied into a workspace. */
const MAX_SKILL_COPY_BYTES = 8 * 1024 * 1024;

/** The whole of one skill file for copying (checked as readSkillFile is); undefined when it may not be read. */
export async function skillFileBytes(skill: AgentJetSkill, file: string): Promise<Buffer | undefined> {
  if (!skill.files.includes(file)) return undefined;
  const r = await readHead(join(skill.dir, file), MAX_SKILL_COPY_BYTES + 1, skill.within);
  return r && r.size <= MAX_SKILL_COPY_BYTES ? r.head : undefined;
}
