import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The skill ships beside dist/ and src/ alike: two levels up from this module. */
export const SKILL_DIR = fileURLToPath(new URL('../../skills/selenium-flow/', import.meta.url));

let cached: string | undefined;

export async function readSkill(): Promise<string> {
  cached ??= await readFile(`${SKILL_DIR}SKILL.md`, 'utf8');
  return cached;
}
