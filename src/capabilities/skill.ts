import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFound } from '../errors.js';
import { PACKAGE_ROOT } from '../package.js';

/** The skill ships in the package, beside dist/. */
export const SKILL_DIR = join(PACKAGE_ROOT, 'skills', 'selenium-flow');

/** Where SKILL.md's relative links (references/FLOWS.md) resolve when it is read as this resource. */
export const SKILL_URI = 'skill://selenium-flow/SKILL.md';
export const REFERENCE_URI = 'skill://selenium-flow/references/';

/** A reference is a page SKILL.md links to: an upper-case Markdown name, nothing that walks a path. */
const REFERENCE_NAME = /^[A-Z][A-Z0-9_-]{0,39}\.md$/;
const MAX_REFERENCES = 32;
/** Far above any page we ship; a bound all the same, since every read answers the whole file. */
const MAX_REFERENCE_BYTES = 256 * 1024;

let cached: string | undefined;
let names: readonly string[] | undefined;
const references = new Map<string, string>();

export async function readSkill(): Promise<string> {
  cached ??= await readFile(join(SKILL_DIR, 'SKILL.md'), 'utf8');
  return cached;
}

/** The references the skill ships, from its directory (read once): what resources/list shows. */
export function skillReferences(): readonly string[] {
  if (!names) {
    let files: string[] = [];
    try {
      files = readdirSync(join(SKILL_DIR, 'references'));
    } catch {
      // a build without the references still serves SKILL.md
    }
    names = files
      .filter((f) => REFERENCE_NAME.test(f))
      .sort()
      .slice(0, MAX_REFERENCES);
  }
  return names;
}

/** One reference by name; only the names skillReferences lists are ever opened. */
export async function readSkillReference(name: string): Promise<string> {
  const known = skillReferences();
  if (!known.includes(name)) {
    throw new NotFound(`No skill reference ${JSON.stringify(name.slice(0, 60))}; the skill has ${known.join(', ')}.`);
  }
  let text = references.get(name);
  if (text === undefined) {
    text = (await readFile(join(SKILL_DIR, 'references', name), 'utf8')).slice(0, MAX_REFERENCE_BYTES);
    references.set(name, text);
  }
  return text;
}
