import type WebSocket from 'ws';
import { webSocket } from '../lazy.js';

/** DevTools' answer to one request of ours: what it answered, or that it failed. */
interface CdpAnswer {
  id: number;
  result: Record<string, unknown>;
  failed: boolean;
}

/** A page target as DevTools lists it: chromedriver names a window by its target id. */
export interface PageTarget {
  targetId: string;
  url: string;
}

/**
 * A minimal DevTools client for Chromium's browser endpoint (the Grid's `se:cdp` proxy): one
 * socket, requests by id, each bounded. It asks the browser process, so a page whose script
 * never yields, which holds every WebDriver command up, does not hold it up.
 */
export class Cdp {
  private next = 0;
  private readonly waiting = new Map<number, (answer: CdpAnswer) => void>();

  private constructor(
    private readonly socket: WebSocket,
    private readonly timeoutMs: number,
  ) {
    socket.on('message', (data: Buffer) => {
      const answer = cdpAnswer(data.toString());
      if (answer) {
        this.waiting.get(answer.id)?.(answer);
        this.waiting.delete(answer.id);
      }
    });
  }

  static async connect(url: string, timeoutMs: number): Promise<Cdp> {
    const socket = new (webSocket())(url, { handshakeTimeout: timeoutMs, maxPayload: 16 * 1024 * 1024 });
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      }),
      timeoutMs,
    ).catch((err: unknown) => {
      socket.terminate();
      throw err;
    });
    socket.on('error', () => undefined);
    return new Cdp(socket, timeoutMs);
  }

  async send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++this.next;
    const answer = await withTimeout(
      new Promise<CdpAnswer>((resolve) => {
        this.waiting.set(id, resolve);
        this.socket.send(JSON.stringify({ id, method, params }));
      }),
      this.timeoutMs,
    ).finally(() => this.waiting.delete(id));
    if (answer.failed) {
      throw new Error(`${method} failed`);
    }
    return answer.result;
  }

  /** The browser's pages (its tabs, and Chromium's own UI pages), read without touching one. */
  async pages(): Promise<PageTarget[]> {
    const { targetInfos } = await this.send('Target.getTargets');
    if (!Array.isArray(targetInfos)) {
      throw new Error('Target.getTargets answered no targets');
    }
    return targetInfos.flatMap((target: unknown) =>
      isRecord(target) && target.type === 'page' && typeof target.targetId === 'string'
        ? [{ targetId: target.targetId, url: typeof target.url === 'string' ? target.url : '' }]
        : [],
    );
  }

  close(): void {
    this.socket.terminate();
  }
}

/** The pages of the browser at a DevTools endpoint, on one short-lived connection. */
export async function devtoolsPages(url: string, timeoutMs: number): Promise<PageTarget[]> {
  const cdp = await Cdp.connect(url, timeoutMs);
  try {
    return await cdp.pages();
  } finally {
    cdp.close();
  }
}

/** An answer to a request (it has an id); DevTools' events and anything unreadable are none. */
function cdpAnswer(text: string): CdpAnswer | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(message) || typeof message.id !== 'number') {
    return undefined;
  }
  return { id: message.id, result: isRecord(message.result) ? message.result : {}, failed: Boolean(message.error) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
