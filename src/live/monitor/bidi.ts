import { z } from 'zod';
import { seleniumBiDi } from '../../browser/webdriver.js';

/** One WebDriver BiDi websocket to one browser, as the monitor uses it. */
export interface BidiConnection {
  /** A command's result, for the caller to parse; a BiDi error answer is thrown as a BidiCommandError. */
  send(method: string, params: object): Promise<unknown>;
  /** Subscribes to one event for this listener only; the returned function ends that subscription. */
  subscribe(event: string, listener: (params: unknown) => void): Promise<() => Promise<void>>;
  /** Called once when the connection ends without close() having been asked, with why. */
  onLost(listener: (lost: Lost) => void): void;
  close(): Promise<void>;
}

/** Why a connection ended unasked: `why` completes "…stopped at HH:MM UTC: " for the reasons' answers. */
export interface Lost {
  why: string;
  /** what else the log line may say (a DevTools method name): never a URL, title, Grid id or token */
  detail?: string;
}

/** The browser's own socket went away: it ended or crashed, or the Grid dropped the connection. */
export const CONNECTION_CLOSED: Lost = {
  why: "the browser's BiDi connection closed (the browser ended or crashed, or its Grid dropped the connection)",
};

/** The browser answered a BiDi command with an error (its code is the BiDi error name, e.g. "no such network data"). */
export class BidiCommandError extends Error {
  constructor(
    readonly bidiError: string,
    message: string,
  ) {
    super(`${bidiError}: ${message}`);
  }
}

/**
 * What a BiDi connection is carried by: the browser's own websocket (connectBidi), or a mapper
 * in a thread of this process over the browser's DevTools (live/monitor/bidi-over-cdp.ts).
 */
export interface BidiWire {
  /** Sends one command; answers its answer message. */
  command(method: string, params: object): Promise<Record<string, unknown>>;
  on(event: string, handler: (params: unknown) => void): void;
  off(event: string, handler: (params: unknown) => void): void;
  /** Called once when the wire closes, asked or not, with why when it was not asked. */
  onceClosed(listener: (lost: Lost) => void): void;
  /** Closes it politely: a peer that is gone may never answer. */
  close(): Promise<void>;
  /** Cuts it now. */
  terminate(): void;
}

/**
 * Opens a BiDi websocket with selenium-webdriver's connection class (the one its generated
 * modules speak through), bounded by `timeoutMs`: a Grid that accepts the TCP connection but
 * never upgrades it must not hold a call.
 */
export async function connectBidi(address: string, timeoutMs: number): Promise<BidiConnection> {
  const bidi = new (seleniumBiDi())(address);
  try {
    await withinMs(timeoutMs, 'no BiDi handshake', bidi.waitForConnection());
  } catch (err) {
    await bidi.close();
    throw err;
  }
  return bidiConnection({
    command: (method, params) => bidi.send({ method, params }),
    on: (event, handler) => bidi.on(event, handler),
    off: (event, handler) => bidi.off(event, handler),
    onceClosed: (listener) => bidi.socket.once('close', () => listener(CONNECTION_CLOSED)),
    close: () => bidi.close(),
    terminate: () => bidi.socket.terminate(),
  });
}

/** `work`, or a rejection saying `what` once `ms` have passed. */
export async function withinMs<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const CLOSE_MS = 1_000;

const subscription = z.object({ subscription: z.string() });

/** The connection the monitor uses, over either wire. */
export function bidiConnection(wire: BidiWire): BidiConnection {
  let closing = false;
  const send = async (method: string, params: object): Promise<unknown> => {
    const answer = await wire.command(method, params);
    if (answer.type === 'error') {
      throw new BidiCommandError(String(answer.error), String(answer.message));
    }
    return answer.result ?? {};
  };
  return {
    send,
    // By subscription id, so undoing one reason never ends another's subscription to the same
    // event. Written here rather than with the connection's addCallback, which only
    // selenium-webdriver 4.47+ has, and those declare Node 22 (we support Node 20).
    async subscribe(event, listener) {
      // The connection emits synchronously from its socket's message handler: a listener that
      // threw would stop the others and escape into ws.
      const handler = (params: unknown) => {
        try {
          listener(params);
        } catch {
          // The listener's own failure is its reason's to report; the connection carries on.
        }
      };
      wire.on(event, handler);
      try {
        const subscribed = subscription.safeParse(await send('session.subscribe', { events: [event] }));
        if (!subscribed.success) {
          throw new Error('session.subscribe answered without a subscription id');
        }
        const id = subscribed.data.subscription;
        // Unsubscribed before the listener goes: the browser sends every event it raised before
        // the command's answer, so an event of the last moment (a page reached just before the
        // hand-back) is still heard.
        return async () => {
          try {
            await send('session.unsubscribe', { subscriptions: [id] });
          } finally {
            wire.off(event, handler);
          }
        };
      } catch (err) {
        wire.off(event, handler);
        throw err;
      }
    },
    onLost(listener) {
      wire.onceClosed((lost) => {
        if (!closing) {
          listener(lost);
        }
      });
    },
    async close() {
      closing = true;
      // A peer that is gone never answers the closing handshake: it gets CLOSE_MS, then the socket is cut.
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          wire.terminate();
          resolve();
        }, CLOSE_MS);
      });
      await Promise.race([wire.close(), cut]);
      clearTimeout(timer);
    },
  };
}
