import { EventEmitter } from 'node:events';
import { z } from 'zod';
import type WebSocket from 'ws';
import { bidiConnection, withinMs, type BidiConnection } from './bidi.js';

/** What chromium-bidi's mapper hands back: an answer to one of our commands, or an event. */
const mapperMessage = z.looseObject({
  type: z.string(),
  id: z.number().optional(),
  method: z.string().optional(),
  params: z.unknown().optional(),
});

/**
 * WebDriver BiDi for a Chromium browser, spoken by Chromium's own BiDi mapper (chromium-bidi,
 * the code chromedriver runs in a tab when a session asks `webSocketUrl`) running here, over
 * the browser's DevTools endpoint the Grid proxies (`se:cdp`).
 *
 * Why not `webSocketUrl`: asked at creation, chromedriver starts its mapper in every new browser
 * before it answers, ~200 ms of each open (bench/lib/open-pairs.ts), for the few browsers that
 * ever capture network or are taken under Control. Here the mapper starts when one of those is
 * first wanted, and only then; what it speaks is the same BiDi, so the monitor cannot tell.
 * chromium-bidi loads with the first such browser, not at start.
 */
export async function connectBidiOverCdp(
  address: string,
  timeoutMs: number,
  maxMessageBytes: number,
): Promise<BidiConnection> {
  const { default: WebSocket } = await import('ws');
  const socket = new WebSocket(address, { perMessageDeflate: false, maxPayload: maxMessageBytes });
  try {
    return await withinMs(timeoutMs, 'no BiDi mapper over DevTools', startMapper(socket));
  } catch (err) {
    socket.terminate();
    throw err;
  }
}

/**
 * The largest DevTools message taken from a browser: a captured body (base64) up to
 * NETWORK_BODY_MAX_BYTES, and never less than 32 MiB. Chromium sends a page's console.log of a
 * huge string whole to every client with Runtime on, and the mapper runs in the server: a page
 * that sends more closes the connection (its capture ends, said as lost) instead of holding the
 * event loop while each one is parsed.
 */
export function devtoolsMessageCap(bodyBytes: number): number {
  return Math.max(32 * 2 ** 20, Math.ceil((bodyBytes * 4) / 3) + 2 ** 20);
}

async function startMapper(socket: WebSocket): Promise<BidiConnection> {
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.on('error', () => undefined); // a socket that fails also closes: onceClosed says so
  const [{ BidiServer }, { MapperCdpConnection }] = await Promise.all([
    import('chromium-bidi/out/Default/gen/src/bidiMapper/BidiMapper.js'),
    import('chromium-bidi/out/Default/gen/src/cdp/CdpConnection.js'),
  ]);
  const devtools = new MapperCdpConnection({
    setOnMessage: (handler) => socket.on('message', (data: Buffer) => void handler(data.toString('utf8'))),
    sendMessage: (message) => socket.send(message),
    close: () => socket.close(),
  });
  const events = new EventEmitter();
  const waiting = new Map<number, (answer: Record<string, unknown>) => void>();
  let toMapper: ((command: never) => Promise<void> | void) | undefined;
  const mapper = await BidiServer.createAndStart(
    {
      setOnMessage: (handler) => {
        toMapper = handler;
      },
      sendMessage: (message) => {
        const parsed = mapperMessage.safeParse(message);
        if (!parsed.success) {
          return;
        }
        const { type, id, method, params } = parsed.data;
        if (type === 'event' && method !== undefined) {
          events.emit(method, params);
        } else if (id !== undefined) {
          waiting.get(id)?.(parsed.data);
          waiting.delete(id);
        }
      },
      close: () => undefined,
    },
    devtools,
    await devtools.createBrowserSession(),
    // the mapper's own tab, which it leaves out of the contexts it reports: it has none here
    '',
  );
  // A command the browser will now never answer (the page or the Grid closed the socket) fails
  // at once, rather than holding its call until the call's deadline.
  socket.once('close', () => {
    for (const answer of waiting.values()) {
      answer({ type: 'error', error: 'unknown error', message: 'the DevTools connection closed' });
    }
    waiting.clear();
  });
  let lastId = 0;
  const command = (method: string, params: object) =>
    new Promise<Record<string, unknown>>((resolve) => {
      if (socket.readyState !== socket.OPEN) {
        resolve({ type: 'error', error: 'unknown error', message: 'the DevTools connection is closed' });
        return;
      }
      lastId += 1;
      waiting.set(lastId, resolve);
      // Any command, as the monitor asks it: the mapper checks it, and answers an error if it is wrong.
      void toMapper?.({ id: lastId, method, params } as never);
    });
  // The mapper serves a session once one is asked for, as chromedriver asks for its own.
  const session = await command('session.new', { capabilities: {} });
  if (session.type !== 'success') {
    throw new Error(`the BiDi mapper refused a session: ${String(session.message)}`);
  }
  return bidiConnection({
    command,
    on: (event, handler) => events.on(event, handler),
    off: (event, handler) => events.off(event, handler),
    onceClosed: (listener) => socket.once('close', listener),
    close: async () => {
      mapper.close();
      socket.close();
      await new Promise((resolve) => socket.once('close', resolve));
    },
    terminate: () => socket.terminate(),
  });
}
