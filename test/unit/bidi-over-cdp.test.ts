import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import { connectBidiOverCdp } from '../../src/live/monitor/bidi-over-cdp.js';
import type { Lost } from '../../src/live/monitor/bidi.js';
import { BidiMonitors } from '../../src/live/monitor/monitor.js';
import { poll } from '../../src/poll.js';

// A browser's DevTools endpoint, faked: the real one cannot be made, on demand, to hand the mapper
// a message it throws on, nor to detach a tab exactly while the mapper's command to it is in
// flight (a person typing in the address bar does, at a moment no test chooses). It answers each
// command as Chromium does, with the few results the mapper reads when it starts.
const RESULTS: Record<string, object> = {
  'Target.attachToBrowserTarget': { sessionId: 'browser-session' },
  'Target.getBrowserContexts': { defaultBrowserContextId: 'default-context', browserContextIds: [] },
  'Target.getTargets': { targetInfos: [] },
  'Browser.getVersion': { product: 'Chrome/156', userAgent: 'Mozilla/5.0 Chrome/156', protocolVersion: '1.3' },
};

interface FakeBrowser {
  address: string;
  /** the mapper's socket, once it connected */
  socket: Promise<WebSocket>;
  /** detach the tab `session` as soon as the mapper asks it anything, before answering */
  detachOnFirstCommand: Set<string>;
}

/** How long a rejection the work left unawaited has to show before none is taken to be coming. */
const ESCAPE_WINDOW_MS = 200;

let server: WebSocketServer;
let port: number;

beforeAll(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const client of server.clients) {
    client.terminate();
  }
  await new Promise((resolve) => server.close(resolve));
});

function fakeBrowser(path: string): FakeBrowser {
  const detachOnFirstCommand = new Set<string>();
  const socket = new Promise<WebSocket>((resolve) => {
    const onConnection = (client: WebSocket, request: { url?: string }) => {
      if (request.url !== path) {
        return;
      }
      server.off('connection', onConnection);
      client.on('message', (data: Buffer) => {
        const command = JSON.parse(data.toString()) as { id: number; method: string; sessionId?: string };
        if (command.sessionId !== undefined && detachOnFirstCommand.delete(command.sessionId)) {
          client.send(
            JSON.stringify({ method: 'Target.detachedFromTarget', params: { sessionId: command.sessionId } }),
          );
          return;
        }
        client.send(
          JSON.stringify({
            id: command.id,
            ...(command.sessionId === undefined ? {} : { sessionId: command.sessionId }),
            result: RESULTS[command.method] ?? {},
          }),
        );
      });
      resolve(client);
    };
    server.on('connection', onConnection);
  });
  return { address: `ws://127.0.0.1:${port}${path}`, socket, detachOnFirstCommand };
}

/** Unhandled rejections and uncaught exceptions of this process while `work` runs. */
async function escaping(work: () => Promise<void>): Promise<unknown[]> {
  const escaped: unknown[] = [];
  const note = (error: unknown) => escaped.push(error);
  process.on('unhandledRejection', note);
  process.on('uncaughtException', note);
  try {
    await work();
    // A rejection is reported after the microtasks of its turn, and nothing says none is coming:
    // a fixed while, for it to come if it would.
    await new Promise((resolve) => setTimeout(resolve, ESCAPE_WINDOW_MS));
  } finally {
    process.off('unhandledRejection', note);
    process.off('uncaughtException', note);
  }
  return escaped;
}

describe("Chromium's BiDi mapper in a thread of its own", () => {
  it('goes on when a tab goes away under one of its commands, as the address bar makes it do', async () => {
    const browser = fakeBrowser('/devtools/browser/tab-flicker');
    const escaped = await escaping(async () => {
      const connection = await connectBidiOverCdp(browser.address, 5_000, 2 ** 20);
      const lost: Lost[] = [];
      connection.onLost((why) => lost.push(why));
      const devtools = await browser.socket;
      // A tab appears and is gone before the mapper's Target.setAutoAttach to it is answered:
      // chromium-bidi leaves that command's rejection unawaited.
      browser.detachOnFirstCommand.add('tab-session');
      devtools.send(
        JSON.stringify({
          sessionId: 'browser-session',
          method: 'Target.attachedToTarget',
          params: {
            sessionId: 'tab-session',
            waitingForDebugger: true,
            targetInfo: { targetId: 'tab-1', type: 'tab', title: '', url: '', attached: true, canAccessOpener: false },
          },
        }),
      );
      // The tab is detached as the mapper's first command to it arrives.
      const commanded = await poll(
        async () => (browser.detachOnFirstCommand.has('tab-session') ? undefined : true),
        5_000,
        10,
      );
      expect(commanded, 'the mapper never sent the tab a command').toBe(true);
      // The mapper still serves: a command is answered, and nothing was lost.
      expect(await connection.send('browsingContext.getTree', {})).toEqual({ contexts: [] });
      expect(lost).toEqual([]);
      await connection.close();
    });
    expect(escaped).toEqual([]);
  });

  it('ends only its own monitor, with a sentence and a log line, when the mapper itself fails', async () => {
    const browser = fakeBrowser('/session/grid-id-never-logged/se/cdp');
    const lines: { line: object; message: string }[] = [];
    const monitors = new BidiMonitors({
      connect: (endpoint) => connectBidiOverCdp(endpoint.url, 5_000, 2 ** 20),
      log: { warn: (line, message) => lines.push({ line, message }) },
    });
    const told: (string | undefined)[] = [];
    const escaped = await escaping(async () => {
      await monitors.want(
        { gridId: 'grid-id-never-logged', bidiAddress: { url: browser.address, via: 'cdp' } },
        'capture',
        { events: [], onEvent: () => undefined, onLost: (why) => told.push(why) },
      );
      expect(monitors.openCount).toBe(1);
      const connection = monitors.connection('grid-id-never-logged');
      // The mapper parses every DevTools message in its message handler: one it cannot parse
      // throws there, out of chromium-bidi and into the thread.
      (await browser.socket).send('this is not JSON');
      // A command asked as it fails is answered with the failure, never left waiting.
      await expect(connection?.send('browser.getUserContexts', {})).rejects.toThrow(/DevTools connection/);
      const until = Date.now() + 5_000;
      while (monitors.openCount > 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    expect(escaped).toEqual([]);
    expect(monitors.state('grid-id-never-logged')).toEqual({ open: false, reasons: [] });
    expect(told).toEqual(['the BiDi mapper serving this Chromium failed']);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toBe("a browser's BiDi monitor ended: the BiDi mapper serving this Chromium failed");
    expect(lines[0]?.line).toMatchObject({ event: 'bidi_monitor_lost', reasons: ['capture'] });
    expect(JSON.stringify(lines)).not.toMatch(/grid-id-never-logged|127\.0\.0\.1|ws:/);
  });
});
