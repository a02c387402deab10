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
 *
 * What the package weighs (≤ 700 kB packed, the performance spec; test/integration/package.test.ts
 * holds it): no source maps (they were 4.9 MB of a 2.1 MB tarball; the minified bundle's would
 * still be four times its size), and the bundle minified, names too (50 kB less than keeping
 * them, and esbuild's keepNames would rename the `__name` that page scripts call, see
 * src/browser/scripts.ts). A stack trace names methods as written and functions as minified;
 * `node scripts/bundle.mjs --sourcemap` makes the same build with its maps, for
 * `node --enable-source-maps dist/cli.js`, to reproduce one on.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const packages = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });

mkdirSync('dist', { recursive: true });
// What an earlier build left (old chunks, or the module-per-file output of builds before this one);
// ui.br is vite's (npm run build:ui).
for (const entry of readdirSync('dist', { withFileTypes: true }).filter((e) => e.name !== 'ui.br')) {
  rmSync(join('dist', entry.name), { recursive: true, force: true });
}

/**
 * zod's `z.locales` holds its messages in 50 languages (~40 kB of the packed package), reachable
 * from the `z` namespace, so no bundler can drop them; the server speaks English
 * (src/capabilities/issues.ts reads `z.locales.en`). The build fails if zod stops exporting English
 * from there.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, ({ path }) => {
      const english = readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => /^export \{ default as en \} from "\.\/en\.js";$/.test(line));
      if (english.length !== 1) {
        throw new Error(`${path} no longer exports en from ./en.js: look again at what english-only-zod keeps`);
      }
      return { contents: english[0], loader: 'js' };
    });
  },
};

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
  // The SDK's Node shims bring its own bundled copy of ajv and ajv-formats (~45 kB packed); ours
  // validate with the ajv this package depends on (src/mcp/sdk-shims.ts says what for).
  alias: { '@modelcontextprotocol/server/_shims': './src/mcp/sdk-shims.ts' },
  plugins: [englishOnlyZod],
  minify: true,
  sourcemap: process.argv.includes('--sourcemap'),
  metafile: true,
  logLevel: 'warning',
});

// The packages inside the bundle ship their licences beside it, as their MIT terms ask. An input's
// path is its real path, relative to here: node_modules may be a link to another checkout's.
const bundled = new Map(
  Object.keys(metafile.inputs).flatMap((input) => {
    const match = /^(?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    return match ? [[match[1], match[0]]] : [];
  }),
);
const notices = [...bundled.keys()].sort().map((name) => {
  const dir = bundled.get(name);
  const licence = readdirSync(dir).find((file) => /^licen[cs]e/i.test(file));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!licence) {
    throw new Error(`${name} is bundled into dist/ but ships no LICENSE file to ship with it`);
  }
  return `${name}@${version}\n\n${readFileSync(join(dir, licence), 'utf8').trim()}\n`;
});
writeFileSync(join('dist', 'THIRD-PARTY-LICENSES.txt'), notices.join(`\n${'-'.repeat(72)}\n\n`));
