import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../src/capabilities/call.js';
import { capabilityNamed, CAPABILITIES } from '../../src/capabilities/index.js';

const SKILL = 'skills/selenium-flow/SKILL.md';

/** Every ```json tool=<name> block in the skill: an example call a model will copy. */
function examples(markdown: string): { tool: string; args: string }[] {
  return [...markdown.matchAll(/```json tool=([a-z_]+)\n([\s\S]*?)```/g)].map((m) => ({ tool: m[1] ?? '', args: m[2] ?? '' }));
}

describe('the skill', () => {
  it('has examples that are valid calls of the real tools', async () => {
    const found = examples(await readFile(SKILL, 'utf8'));
    expect(found.length).toBeGreaterThan(5);
    for (const example of found) {
      const capability = capabilityNamed(example.tool);
      expect(capability, example.tool).toBeDefined();
      expect(() => parseArguments(capability!, JSON.parse(example.args)), `${example.tool} ${example.args}`).not.toThrow();
    }
  });

  it('names every tool a caller can use', async () => {
    const text = await readFile(SKILL, 'utf8');
    for (const capability of CAPABILITIES.filter((c) => c.name !== 'selenium_flow_skill')) {
      expect(text, capability.name).toContain(`\`${capability.name}\``);
    }
  });
});
