import type WebSocket from 'ws';
import type { WebDriver } from 'selenium-webdriver';
import { webSocket } from '../lazy.js';

/** How a browser whose call ran out of time was left, said in the 504. */
export type Recovery = 'tab_replaced' | 'browser_closed' | 'not_recovered';

/** DevTools' answer to one request of ours: what it answered, or that it failed. */
interface CdpAnswer {
  id: number;
  result: Record<string, unknown>;
  failed: boolean;
}

/**
 * A page whose script never yields (`while(true){}`) blocks chromedriver: every later command
 * on that browser, DELETE included, waits behind it for ever. The browser process itself still
 * answers DevTools, through the Grid's `se:cdp` proxy, so the tab is replaced from there: a blank
 * tab is opened, the old ones are closed (which ends the hung command), and the driver moves to
 * the new tab. Cookies and logins stay. If even that fails, the browser is closed.
 */
export async function recoverHungBrowser(
  driver: WebDriver,
  cdpUrl: string | undefined,
  timeoutMs: number,
): Promise<Recovery> {
  if (!cdpUrl) {
    return 'not_recovered';
  }
  let cdp: Cdp | undefined;
  try {
    cdp = await Cdp.connect(cdpUrl, timeoutMs);
    const pages = pageTargets((await cdp.send('Target.getTargets')).targetInfos);
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
    if (typeof targetId !== 'string') {
      throw new Error('Target.createTarget answered no target');
    }
    for (const page of pages) {
      await cdp.send('Target.closeTarget', { targetId: page });
    }
    // chromedriver names a window by its DevTools target id.
    await withTimeout(driver.switchTo().window(targetId), timeoutMs);
    return 'tab_replaced';
  } catch {
    try {
      await cdp?.send('Browser.close');
      return 'browser_closed';
    } catch {
      return 'not_recovered';
    }
  } finally {
    cdp?.close();
  }
}

/** A minimal DevTools client: one socket, requests by id, each bounded. */
class Cdp {
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

  close(): void {
    this.socket.terminate();
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

/** The page targets' ids in Target.getTargets' `targetInfos`. */
function pageTargets(targetInfos: unknown): string[] {
  if (!Array.isArray(targetInfos)) {
    throw new Error('Target.getTargets answered no targets');
  }
  return targetInfos.flatMap((target: unknown) =>
    isRecord(target) && target.type === 'page' && typeof target.targetId === 'string' ? [target.targetId] : [],
  );
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
