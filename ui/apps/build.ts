import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build, type Plugin } from 'vite';

/**
 * Builds each ui/apps/<name>/ into dist/apps/<name>.html, one document with its script and
 * styles inline: an MCP App is a single ui:// resource, and a host loads nothing beside it
 * (the app's CSP allows no origin). The admin page's build runs it when it ends (vite.config.ts),
 * so `npm run build:ui` makes both, then puts both into dist/ui.br; src/mcp/apps.ts serves them.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const out = fileURLToPath(new URL('../../dist/apps/', import.meta.url));

/** Puts the built script and stylesheet into the HTML, which lands as <name>.html alone. */
function inline(name: string): Plugin {
  return {
    name: 'selenium-flow-inline-app',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const html = Object.values(bundle).find((file) => file.fileName.endsWith('.html'));
      if (!html || html.type !== 'asset') {
        throw new Error('An app builds to one HTML document.');
      }
      let text = String(html.source);
      for (const file of Object.values(bundle)) {
        const path = file.fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const ref = new RegExp(`<(script|link)[^>]*?(?:src|href)="[./]*${path}"[^>]*>(?:</script>)?`);
        if (file.type === 'chunk') {
          // `</script` inside the code would end the element early. With code splitting off, a
          // dynamic import (the viewer's noVNC) keeps Vite's preload marker, which no later step
          // fills in; one chunk has nothing to preload, so it is an empty list.
          const code = file.code.replaceAll('</script', '<\\/script').replaceAll('__VITE_PRELOAD__', '[]');
          text = text.replace(ref, () => `<script type="module">${code}</script>`);
          delete bundle[file.fileName];
        } else if (file.fileName.endsWith('.css')) {
          text = text.replace(ref, () => `<style>${String(file.source)}</style>`);
          delete bundle[file.fileName];
        }
      }
      delete bundle[html.fileName];
      this.emitFile({ type: 'asset', fileName: `${name}.html`, source: text });
    },
  };
}

export async function buildApps(): Promise<void> {
  const names = readdirSync(here, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`${here}${entry.name}/index.html`))
    .map((entry) => entry.name);
  for (const [i, name] of names.entries()) {
    await build({
      configFile: false,
      root: `${here}${name}`,
      base: './',
      logLevel: 'warn',
      plugins: [svelte({ configFile: false }), inline(name)],
      build: {
        outDir: out,
        // Only the first app empties dist/apps: the others land beside it.
        emptyOutDir: i === 0,
        target: 'es2022',
        assetsInlineLimit: Number.MAX_SAFE_INTEGER,
        cssCodeSplit: false,
        modulePreload: false,
        reportCompressedSize: false,
        rolldownOptions: {
          input: `${here}${name}/index.html`,
          output: { codeSplitting: false, entryFileNames: `${name}.js` },
        },
      },
    });
  }
}
