import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

// The page tests drive what the package ships: ui/ is built into dist/ui.br before any of them
// starts, so a fresh clone's `npm test` (or a run of one file) never tests a stale or missing
// build. In a child process: rolldown's native threads would keep vitest's own process alive.
export default function setup(): void {
  const vite = fileURLToPath(new URL('node_modules/vite/bin/vite.js', new URL('../../', import.meta.url)));
  const built = spawnSync(process.execPath, [vite, 'build', '--config', 'ui/vite.config.ts', '--logLevel', 'warn'], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (built.status !== 0) {
    throw new Error(`npm run build:ui failed:\n${built.stdout}\n${built.stderr}`);
  }
}
