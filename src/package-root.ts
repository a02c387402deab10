import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of selenium-flow's own package.json, where the files it ships beside its code
 * live (dist/ui, dist/apps, skills/). Found by walking up rather than by a fixed `../..`: this
 * module runs from src/ (tsx), from a chunk in dist/chunks/ (the bundle, npm run build), or
 * inline in dist/cli.js, each a different depth below the root.
 */
export const PACKAGE_ROOT = packageRootAbove(dirname(fileURLToPath(import.meta.url)));

function packageRootAbove(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isOurManifest(join(dir, 'package.json'))) {
      return dir;
    }
    if (dirname(dir) === dir) {
      throw new Error(`selenium-flow's package.json is not in any folder above ${start}: reinstall selenium-flow.`);
    }
  }
}

function isOurManifest(path: string): boolean {
  if (!existsSync(path)) {
    return false;
  }
  const manifest: unknown = JSON.parse(readFileSync(path, 'utf8'));
  return typeof manifest === 'object' && manifest !== null && 'name' in manifest && manifest.name === 'selenium-flow';
}
