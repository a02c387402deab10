import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { renderToolReference } from '../src/capabilities/reference.js';
import { openApiYaml } from '../src/http/openapi.js';
import { VERSION } from '../src/package.js';
import { renderReadme } from './settings-table.js';

/**
 * The generated docs, committed; test/unit/surfaces.test.ts fails when they fall behind. Each
 * renders from the file's current text, so a generated part may sit inside a hand-written file.
 */
export const GENERATED: Record<string, (current: string) => string> = {
  'docs/reference/tools.md': renderToolReference,
  'docs/reference/openapi.yaml': () => openApiYaml(VERSION),
  'README.md': renderReadme,
};

if (process.argv[1]?.endsWith('gen-docs.ts')) {
  await mkdir('docs/reference', { recursive: true });
  for (const [path, render] of Object.entries(GENERATED)) {
    const current = await readFile(path, 'utf8').catch(() => '');
    await writeFile(path, render(current));
    process.stdout.write(`wrote ${path}\n`);
  }
}
