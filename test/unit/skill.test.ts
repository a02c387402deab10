import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../src/capabilities/call/arguments.js';
import { capabilityNamed, CAPABILITIES } from '../../src/capabilities/index.js';
import { parseFlow } from '../../src/flows/document.js';

const SKILL = 'skills/selenium-flow/SKILL.md';
const REFERENCES = 'skills/selenium-flow/references';

/** Every ```json tool=<name> block in the skill: an example call a model will copy. */
function examples(markdown: string): { tool: string; args: string }[] {
  return [...markdown.matchAll(/```json tool=([a-z_]+)\n([\s\S]*?)```/g)].map((m) => ({
    tool: m[1] ?? '',
    args: m[2] ?? '',
  }));
}

describe('the skill', () => {
  it('has examples (in SKILL.md and every reference) that are valid calls of the real tools', async () => {
    const references = (await readdir(REFERENCES)).filter((f) => f.endsWith('.md'));
    const texts = await Promise.all(
      [SKILL, ...references.map((f) => `${REFERENCES}/${f}`)].map((p) => readFile(p, 'utf8')),
    );
    const found = texts.flatMap(examples);
    expect(found.length).toBeGreaterThan(5);
    for (const example of found) {
      const capability = capabilityNamed(example.tool);
      expect(capability, example.tool).toBeDefined();
      expect(
        () => parseArguments(capability!, JSON.parse(example.args)),
        `${example.tool} ${example.args}`,
      ).not.toThrow();
    }
  });

  it('names every tool a caller can use', async () => {
    const text = await readFile(SKILL, 'utf8');
    for (const capability of CAPABILITIES.filter(
      // a row only an app calls is no tool a model's caller uses
      (c) => c.name !== 'selenium_flow_skill' && (c.app?.visibility?.includes('model') ?? true),
    )) {
      expect(text, capability.name).toContain(`\`${capability.name}\``);
    }
  });
});

describe('the skill references', () => {
  it('are each linked from SKILL.md', async () => {
    const skill = await readFile(SKILL, 'utf8');
    for (const file of (await readdir(REFERENCES)).filter((f) => f.endsWith('.md'))) {
      expect(skill, file).toContain(`references/${file}`);
    }
  });

  it('carry flow examples that save against the real schemas', async () => {
    const flows = await readFile(`${REFERENCES}/FLOWS.md`, 'utf8');
    const documents = [...flows.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    const saved = examples(flows)
      .filter((e) => e.tool === 'save_flow')
      .map((e) => (JSON.parse(e.args) as { document: string }).document);
    expect(documents.length + saved.length).toBeGreaterThan(1);
    for (const document of [...documents, ...saved]) {
      expect(() => parseFlow(document, CAPABILITIES)).not.toThrow();
    }
  });
});
