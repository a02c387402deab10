import type WebSocket from 'ws';
import type { WebDriver } from 'selenium-webdriver';
import { webSocket } from '../lazy.js';

/** How a browser whose call ran out of time was left, said in the 504. */
export type Recovery = 'tab_replaced' | 'browser_closed' | 'not_recovered';

interface CdpAnswer {
  id?: number;
  result?: Record<string, unknown>;
  error?: { message?: string };
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
    const { targetInfos } = (await cdp.send('Target.getTargets')) as {
      targetInfos: { targetId: string; type: string }[];
    };
    const { targetId } = (await cdp.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    for (const target of targetInfos.filter((t) => t.type === 'page')) {
      await cdp.send('Target.closeTarget', { targetId: target.targetId });
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
      let answer: CdpAnswer;
      try {
        answer = JSON.parse(data.toString()) as CdpAnswer;
      } catch {
        return;
      }
      if (answer.id !== undefined) {
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
    if (answer.error) {
      throw new Error(`${method} failed`);
    }
    return answer.result ?? {};
  }

  close(): void {
    this.socket.terminate();
  }
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
