import { callTool } from '../capabilities/call/call.js';
import { REFERENCE_URI, skillReferences } from '../capabilities/skill.js';
import { ROLES } from '../capabilities/index.js';
import type { ResourceDefinition } from './resources.js';

/**
 * Each page SKILL.md links to (references/FLOWS.md …), listed by its own URI so the link
 * resolves against skill://selenium-flow/SKILL.md for an agent that has only MCP. The pages come
 * from the skill's directory; each reads through the skill tool, as its mirror does.
 */
export const SKILL_RESOURCES: ResourceDefinition[] = skillReferences().map((name) => ({
  uri: `${REFERENCE_URI}${name}`,
  name: `skill reference ${name}`,
  title: `Skill: ${name}`,
  description: `references/${name}, linked from SKILL.md`,
  mimeType: 'text/markdown',
  read: async (deps, caller, uri) => {
    const answer = await callTool(deps, ROLES.skill, { reference: name }, caller);
    return [{ uri, mimeType: 'text/markdown', text: String(answer.text) }];
  },
}));

export const SKILL_COMPLETIONS: Record<string, NonNullable<ResourceDefinition['complete']>> = {
  [`${REFERENCE_URI}{reference}`]: async () => [...skillReferences()],
};
