import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { packUi } from '../src/ui-archive.js';
import { buildApps } from './apps/build.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * dist/ui/ (the page) and dist/apps/ (apps/build.ts), once both are built, into the one file the
 * server reads them from and the package ships, dist/ui.br (src/ui-archive.ts says why one).
 */
function archive(): void {
  const files = new Map<string, Buffer>();
  for (const dir of ['ui', 'apps']) {
    for (const entry of readdirSync(join(dist, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) {
        const path = join(entry.parentPath, entry.name);
        files.set(path.slice(dist.length), readFileSync(path));
      }
    }
  }
  // In name order, so the same build makes the same file.
  writeFileSync(join(dist, 'ui.br'), packUi(new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)))));
  for (const dir of ['ui', 'apps']) {
    rmSync(join(dist, dir), { recursive: true, force: true });
  }
}

// The page is served by the server itself at <ROUTE_PREFIX>/admin/, so every URL it uses is
// relative (base './'): the same build works under any prefix and behind any proxy path.
// When it ends, the MCP Apps (ui/apps/) are built, each into one document of its own, and the
// page and the apps go into dist/ui.br.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [
    svelte({ configFile: false }),
    {
      name: 'selenium-flow-apps',
      apply: 'build',
      closeBundle: async () => {
        await buildApps();
        archive();
      },
    },
  ],
  build: {
    outDir: join(dist, 'ui'),
    emptyOutDir: true,
    target: 'es2022',
    // No inlined data: URLs: the page's CSP allows scripts and styles from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
