import { mkdir, writeFile } from 'node:fs/promises';
import { renderToolReference } from '../src/capabilities/reference.js';
import { openApiYaml } from '../src/http/openapi.js';
import { VERSION } from '../src/version.js';

/** The generated docs, committed; test/unit/surfaces.test.ts fails when they fall behind. */
export const GENERATED: Record<string, () => string> = {
  'docs/reference/tools.md': renderToolReference,
  'docs/reference/openapi.yaml': () => openApiYaml(VERSION),
};

if (process.argv[1]?.endsWith('gen-docs.ts')) {
  await mkdir('docs/reference', { recursive: true });
  for (const [path, render] of Object.entries(GENERATED)) {
    await writeFile(path, render());
    process.stdout.write(`wrote ${path}\n`);
  }
}
