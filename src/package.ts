import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * selenium-flow's own package: where it is installed (the files it ships beside its code live
 * there: dist/ui.br, skills/), its version and its licence, all from its package.json, read once.
 * Found by walking up rather than by a fixed `../..`: this module runs from src/ (tsx), from a
 * chunk in dist/chunks/ (the bundle, npm run build), or inline in dist/cli.js, each a different
 * depth below the root. The nearest package.json above must be ours: a copy of dist/ run outside
 * its package stops here instead of serving pages from whatever package.json lies further up.
 */
const manifest = nearestManifest(dirname(fileURLToPath(import.meta.url)));

export const PACKAGE_ROOT: string = manifest.root;

export const VERSION: string = manifest.version;

/** The SPDX identifier of its licence (MIT). */
export const LICENSE: string = manifest.license;

/** The admin page and the apps, as `vite build` (npm run build:ui) leaves them: src/ui-archive.ts. */
export const UI_ARCHIVE: string = join(PACKAGE_ROOT, 'dist', 'ui.br');

function nearestManifest(start: string): { root: string; version: string; license: string } {
  for (let dir = start; dirname(dir) !== dir; dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    if (existsSync(path)) {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        'name' in parsed &&
        parsed.name === 'selenium-flow' &&
        'version' in parsed &&
        typeof parsed.version === 'string' &&
        'license' in parsed &&
        typeof parsed.license === 'string'
      ) {
        return { root: dir, version: parsed.version, license: parsed.license };
      }
      break;
    }
  }
  throw new Error(`selenium-flow's package.json is not the nearest one above ${start}: reinstall selenium-flow.`);
}
