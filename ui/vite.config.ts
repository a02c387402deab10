import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { buildApps } from './apps/build.js';

// The page is served by the server itself at <ROUTE_PREFIX>/admin/, so every URL it uses is
// relative (base './'): the same build works under any prefix and behind any proxy path.
// When it ends, the MCP Apps (ui/apps/) are built, each into one document of its own.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [svelte({ configFile: false }), { name: 'selenium-flow-apps', apply: 'build', closeBundle: buildApps }],
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inlined data: URLs: the page's CSP allows scripts and styles from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
