import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { attackThroughTheWindow } from '../helpers/browser-window.js';
import { startServer, waitForWatchableSlot, type RunningServer } from '../helpers/server.js';

// The person at the browser's window (docs/security.md "What a person in Control can reach"): with
// the shared Grid, which runs as root, each browser in a sandbox with its policies. Real X input
// on the watchable browser's own display, both browsers. The same attack, with the server run as
// an ordinary user, is in browser-window-unprivileged.test.ts.

const ADMIN = 'window-admin-token';
const TOKEN = 'window-agent-token';
let running: RunningServer;
let dataDir: string;
let listener: Server;
let closedPort: number;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sf-window-'));
  await writeFile(join(dataDir, 'canary.txt'), 'the server data no browser may read');
  running = await startServer({
    ADMIN_TOKEN: ADMIN,
    MCP_AUTH_TOKEN: TOKEN,
    LIVE_VIEW: 'prefer',
    FLOW_DATA_DIR: dataDir,
  });
  listener = createServer((_request, response) => response.end('reached'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  closedPort = typeof address === 'object' && address ? address.port : 0;
}, 120_000);

afterAll(async () => {
  await running?.close();
  await new Promise((resolve) => listener?.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe("a person at the browser's own window", () => {
  it.each(['chrome', 'firefox'] as const)(
    'reaches the page, not the machine: no file dialog, internal page, devtools or file, on %s',
    async (browser) => {
      await waitForWatchableSlot(inject('gridUrl'), 180_000, browser);
      await attackThroughTheWindow({
        browser,
        base: running.url,
        agentToken: TOKEN,
        adminToken: ADMIN,
        site: inject('siteUrl'),
        closedPort,
        serversFiles: [dataDir, join(dataDir, 'canary.txt')],
        picture: `docs/security/window-${browser}.png`,
      });
    },
    300_000,
  );
});
