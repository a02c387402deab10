import type { MessagePort } from 'node:worker_threads';
import type WebSocket from 'ws';
import type * as BidiMapper from 'chromium-bidi/out/Default/gen/src/bidiMapper/BidiMapper.js';
import type * as CdpClient from 'chromium-bidi/out/Default/gen/src/cdp/CdpClient.js';
import type * as CdpConnection from 'chromium-bidi/out/Default/gen/src/cdp/CdpConnection.js';

/** What the server asks of a mapper thread. */
export type ToThread = { kind: 'command'; id: number; method: string; params: object } | { kind: 'close' };

/** What a mapper thread tells the server. */
export type FromThread =
  /** the mapper runs: BiDi commands may come */
  | { kind: 'ready' }
  /** the DevTools websocket did not open, or the mapper did not start */
  | { kind: 'refused'; message: string }
  /** one message the mapper sends: an answer to a command, or an event */
  | { kind: 'bidi'; message: unknown }
  /** the DevTools websocket closed; `tooLarge` when a message over its cap closed it */
  | { kind: 'closed'; tooLarge: boolean };

/** What a mapper thread is started with. */
export interface ThreadData {
  /** the browser's DevTools websocket on the Grid, with the Grid's credentials */
  address: string;
  /** the largest DevTools message taken (devtoolsMessageCap) */
  maxPayload: number;
  /** file URLs of what it loads: the thread has no module of its own to resolve them from */
  modules: { ws: string; mapper: string; cdp: string; client: string };
}

/** What a mapper thread runs with, loaded by the text that starts it (THREAD_SOURCE). */
export interface ThreadDeps {
  port: MessagePort;
  data: ThreadData;
  WebSocket: typeof WebSocket;
  BidiServer: typeof BidiMapper.BidiServer;
  MapperCdpConnection: typeof CdpConnection.MapperCdpConnection;
  CloseError: typeof CdpClient.CloseError;
}

/**
 * The body of a mapper thread (bidi-over-cdp.ts): chromium-bidi's mapper over the browser's
 * DevTools websocket, relaying BiDi to the server through the thread's port.
 *
 * It runs in a worker thread of its own because the mapper is not ours to mend: it leaves
 * promises unawaited (a tab that closes before the mapper's Target.setAutoAttach answers
 * rejects one), and its event handlers throw into the socket's. In the server's thread either
 * stopped the whole process. Here it ends this thread, which the server hears as this
 * browser's monitor failing, and nothing else.
 *
 * It travels as its source text (a worker started with `eval`, which the bundle and the tests'
 * transforms both leave alone): it may use its argument and the globals of a thread, nothing
 * else of this module.
 */
export function mapperThread({ port, data, WebSocket, BidiServer, MapperCdpConnection, CloseError }: ThreadDeps): void {
  const tell = (message: FromThread) => port.postMessage(message);
  // The one rejection the mapper leaves unawaited by design: a DevTools command on a target that
  // went away before it answered. The browser's own window does it whenever a person types in the
  // address bar (its omnibox opens and closes a tab the mapper attaches to), and the mapper goes
  // on without that tab. Any other rejection is a failure: rethrown, it ends this thread.
  process.on('unhandledRejection', (reason) => {
    if (!(reason instanceof CloseError)) {
      throw reason;
    }
  });
  void serve();

  async function serve(): Promise<void> {
    const socket = new WebSocket(data.address, { perMessageDeflate: false, maxPayload: data.maxPayload });
    let tooLarge = false;
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
    } catch (err) {
      tell({
        kind: 'refused',
        message: `its websocket did not open: ${err instanceof Error ? err.message : 'no reason'}`,
      });
      return;
    }
    socket.on('error', (err: Error & { code?: string }) => {
      tooLarge ||= err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
    });
    socket.once('close', () => tell({ kind: 'closed', tooLarge }));
    const devtools = new MapperCdpConnection({
      setOnMessage: (handler) => socket.on('message', (raw: Buffer) => void handler(raw.toString('utf8'))),
      sendMessage: (message) => socket.send(message),
      close: () => socket.close(),
    });
    let toMapper: ((command: never) => Promise<void> | void) | undefined;
    let mapper: { close(): void };
    try {
      mapper = await BidiServer.createAndStart(
        {
          setOnMessage: (handler) => {
            toMapper = handler;
          },
          sendMessage: (message) => tell({ kind: 'bidi', message }),
          close: () => undefined,
        },
        devtools,
        await devtools.createBrowserSession(),
        // the mapper's own tab, which it leaves out of the contexts it reports: it has none here
        '',
      );
    } catch (err) {
      tell({
        kind: 'refused',
        message: `its BiDi mapper did not start: ${err instanceof Error ? err.message : 'no reason'}`,
      });
      socket.terminate();
      return;
    }
    port.on('message', (message: ToThread) => {
      if (message.kind === 'close') {
        mapper.close();
        socket.close();
        return;
      }
      // Any command, as the monitor asks it: the mapper checks it, and answers an error if it is wrong.
      void toMapper?.({ id: message.id, method: message.method, params: message.params } as never);
    });
    tell({ kind: 'ready' });
  }
}
