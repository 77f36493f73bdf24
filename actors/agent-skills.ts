import type { SkillInfo } from '../store/skills.js';
import type { AgentDoc } from '../store/workspace.js';

/**
 * The skills an agent has: the catalog narrowed to the `skills` of its AGENT.md (all of them when the key is
 * absent). The same catalog list and document give the same array, so the prompt's skills section is reused.
 */
export function agentSkills(catalog: () => SkillInfo[]): (doc: AgentDoc) => SkillInfo[] {
  let last: { all: SkillInfo[]; allowed: readonly string[] | undefined; skills: SkillInfo[] } | undefined;
  return (doc) => {
    const all = catalog();
    const allowed = doc.frontmatter.skills;
    if (last?.all !== all || last.allowed !== allowed) {
      last = { all, allowed, skills: allowed ? all.filter((s) => allowed.includes(s.name)) : all };
    }
    return last.skills;
  };
}
