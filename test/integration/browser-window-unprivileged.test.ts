import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attackThroughTheWindow } from '../helpers/browser-window.js';
import { serveAsUnprivileged, unprivilegedHome, type UnprivilegedServer } from '../helpers/unprivileged.js';

// browser-window.test.ts's attack with the server run as an ordinary user, as people run it: the
// embedded Grid, its displays and its browsers are all that user's, so the sandbox is the one wall
// between a person at the window and that user's files (its secrets and tokens file among them).

const ADMIN = 'window-admin-token-unprivileged';
const TOKEN = 'window-agent-token-unprivileged';
const siteUrl = inject('siteUrl');
let served: UnprivilegedServer;
let home: string;
let listener: Server;
let closedPort: number;

beforeAll(async () => {
  home = await unprivilegedHome();
  await mkdir(join(home, 'secrets', 'canary'), { recursive: true });
  await writeFile(join(home, 'secrets', 'canary', 'password'), 'a value no browser may read');
  const tokens = join(home, 'tokens.yaml');
  await writeFile(tokens, `tokens:\n  - {name: other, token: another-callers-token-1234, workspaces: ["other"]}\n`);
  served = await serveAsUnprivileged(home, {
    FLOW_DATA_DIR: join(home, 'data'),
    SECRETS_DIRS: join(home, 'secrets'),
    TOKENS_FILE: tokens,
    MCP_AUTH_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    EMBEDDED_LIVE_VIEWS: '1',
    BROWSER_LOOPBACK_PORTS: new URL(siteUrl).port,
  });
  listener = createServer((_request, response) => response.end('reached'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  closedPort = typeof address === 'object' && address ? address.port : 0;
}, 180_000);

afterAll(async () => {
  await served?.stop();
  await new Promise((resolve) => listener?.close(resolve));
  await rm(home, { recursive: true, force: true });
});

describe("a person at the browser's own window, the server run as an ordinary user", () => {
  it('offers watchable browsers, in a sandbox each: the banner says so', () => {
    expect(served.output()).toMatch(
      /Live: +1 watchable chrome and firefox slots?, each sandboxed with its window locked/,
    );
  });

  it.each(['chrome', 'firefox'] as const)(
    'reaches the page, not the user: no file dialog, internal page, devtools or file, on %s',
    async (browser) => {
      await attackThroughTheWindow({
        browser,
        base: served.base,
        agentToken: TOKEN,
        adminToken: ADMIN,
        site: siteUrl,
        closedPort,
        serversFiles: [home, join(home, 'secrets', 'canary', 'password'), join(home, 'tokens.yaml')],
      });
    },
    300_000,
  );
});
