import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The page is served by the server itself at <ROUTE_PREFIX>/admin/, so every URL it uses is
// relative (base './'): the same build works under any prefix and behind any proxy path.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [svelte({ configFile: false })],
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
