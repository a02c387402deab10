/**
 * `npm run build` bundles src/ into dist/: the entry dist/cli.js and its chunks in dist/chunks/
 * (a chunk per lazily imported part: the HTTP app, the embedded Grid's setup, Redis, ...).
 * Why a bundle: most of a cold start is Node resolving and compiling modules one file at a time,
 * and `stdio` listed its tools after loading about 240 of them (zod alone is 99 files, 55 of them
 * locales). Bundled, the same start loads a handful of files; `npm run bench:cold` measures it.
 *
 * One rule says what is inside: a package in `dependencies` stays a package, loaded from
 * node_modules (most at their first use: src/lazy.ts, src/browser/webdriver.ts); what src/ imports
 * from `devDependencies` (zod and the MCP SDK, both on the cold path) is bundled, so npm installs
 * it for the build only and the server and its HTTP transport share one copy of the SDK.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const packages = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });

mkdirSync('dist', { recursive: true });
// What an earlier build left (old chunks, or the module-per-file output of builds before this one);
// ui/ and apps/ are vite's (npm run build:ui).
for (const entry of readdirSync('dist', { withFileTypes: true }).filter((e) => !['ui', 'apps'].includes(e.name))) {
  rmSync(join('dist', entry.name), { recursive: true, force: true });
}

const { metafile } = await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // The range's first version is its floor (">=20.19.0 <22.0.0 || >=22.12.0": 20.19.0).
  target: `node${manifest.engines.node.match(/\d+(\.\d+){0,2}/)[0]}`,
  external: packages.flatMap((name) => [name, `${name}/*`]),
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});

// The packages inside the bundle ship their licences beside it, as their MIT terms ask.
const bundled = new Set(
  Object.keys(metafile.inputs).flatMap((input) => {
    const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    return match ? [match[1]] : [];
  }),
);
const notices = [...bundled].sort().map((name) => {
  const dir = join('node_modules', name);
  const licence = readdirSync(dir).find((file) => /^licen[cs]e/i.test(file));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!licence) {
    throw new Error(`${name} is bundled into dist/ but ships no LICENSE file to ship with it`);
  }
  return `${name}@${version}\n\n${readFileSync(join(dir, licence), 'utf8').trim()}\n`;
});
writeFileSync(join('dist', 'THIRD-PARTY-LICENSES.txt'), notices.join(`\n${'-'.repeat(72)}\n\n`));
