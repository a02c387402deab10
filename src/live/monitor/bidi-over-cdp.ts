import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { bidiConnection, CONNECTION_CLOSED, withinMs, type BidiConnection, type BidiWire, type Lost } from './bidi.js';
import { mapperThread, type FromThread, type ThreadData, type ToThread } from './mapper-thread.js';

/** What chromium-bidi's mapper hands back: an answer to one of our commands, or an event. */
const mapperMessage = z.looseObject({
  type: z.string(),
  id: z.number().optional(),
  method: z.string().optional(),
  params: z.unknown().optional(),
});

/**
 * A mapper thread's heap: a captured body passes through it (base64, up to
 * NETWORK_BODY_MAX_BYTES, itself bounded by devtoolsMessageCap), and whatever a page makes the
 * mapper keep beyond this ends that browser's monitor, not the server.
 */
const THREAD_HEAP_MB = 512;

/** The thread's own mapper failed: an unawaited rejection or a throw of chromium-bidi's, or its heap. */
const MAPPER_FAILED = 'the BiDi mapper serving this Chromium failed';

/**
 * WebDriver BiDi for a Chromium browser, spoken by Chromium's own BiDi mapper (chromium-bidi,
 * the code chromedriver runs in a tab when a session asks `webSocketUrl`) running here, in a
 * worker thread of its own (live/monitor/mapper-thread.ts), over the browser's DevTools endpoint the
 * Grid proxies (`se:cdp`).
 *
 * Why not `webSocketUrl`: asked at creation, chromedriver starts its mapper in every new browser
 * before it answers, ~200 ms of each open (bench/lib/open-pairs.ts), for the few browsers that
 * ever capture network or are taken under Control. Here the mapper starts when one of those is
 * first wanted, and only then; what it speaks is the same BiDi, so the monitor cannot tell.
 * chromium-bidi loads with each such browser's thread, never at start.
 */
export async function connectBidiOverCdp(
  address: string,
  timeoutMs: number,
  maxMessageBytes: number,
): Promise<BidiConnection> {
  const { Worker } = await import('node:worker_threads');
  const data: ThreadData = { address, maxPayload: maxMessageBytes, modules: threadModules() };
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: data,
    // The server's own loaders (tsx in development) are not the thread's: it loads plain JavaScript.
    execArgv: [],
    // Taken and dropped: nothing the mapper prints may reach stdout, stdio's protocol channel.
    stdout: true,
    stderr: true,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
  worker.stdout.resume();
  worker.stderr.resume();
  const thread = new MapperThread(worker);
  try {
    await withinMs(timeoutMs, 'no BiDi mapper over DevTools', thread.started);
    // The mapper serves a session once one is asked for, as chromedriver asks for its own. A
    // page's dialogs are the agent's or the person's to answer: unasked, the mapper would dismiss
    // every one itself the moment it opened (and accept every beforeunload).
    const session = await withinMs(
      timeoutMs,
      'no BiDi session from the mapper',
      thread.wire.command('session.new', {
        capabilities: { alwaysMatch: { unhandledPromptBehavior: { default: 'ignore', beforeUnload: 'ignore' } } },
      }),
    );
    if (session.type !== 'success') {
      throw new Error(`the BiDi mapper refused a session: ${String(session.message)}`);
    }
  } catch (err) {
    thread.wire.terminate();
    throw err;
  }
  return bidiConnection(thread.wire);
}

/**
 * The largest DevTools message taken from a browser: a captured body (base64) up to
 * NETWORK_BODY_MAX_BYTES, and never less than 32 MiB. Chromium sends a page's console.log of a
 * huge string whole to every client with Runtime on, and the mapper runs in the server: a page
 * that sends more closes the connection (its capture ends, said as lost) instead of holding a
 * thread while each one is parsed.
 */
export function devtoolsMessageCap(bodyBytes: number): number {
  return Math.max(32 * 2 ** 20, Math.ceil((bodyBytes * 4) / 3) + 2 ** 20);
}

/**
 * What a mapper thread runs: its packages loaded (by the file URLs it is given: the thread has
 * no module of its own to resolve them from), then mapperThread with them. Written as text, out
 * of reach of the tests' transform, which rewrites any `import()` it sees. tsx (development,
 * the tests' child servers) wraps named inner functions in `__name(...)`, which no thread
 * defines: the text defines it as a no-op, as inPage does for pages.
 */
const THREAD_SOURCE = `const __name = (f) => f;
const { parentPort, workerData } = require('node:worker_threads');
const { ws, mapper, cdp, client } = workerData.modules;
Promise.all([import(ws), import(mapper), import(cdp), import(client)]).then(([ws, mapper, cdp, client]) =>
  (${String(mapperThread)})({
    port: parentPort,
    data: workerData,
    WebSocket: ws.default,
    BidiServer: mapper.BidiServer,
    MapperCdpConnection: cdp.MapperCdpConnection,
    CloseError: client.CloseError,
  }),
);`;

/** Where the thread loads its packages from: resolved here, where node_modules is known. */
function threadModules(): ThreadData['modules'] {
  const resolve = createRequire(import.meta.url).resolve;
  const url = (id: string) => pathToFileURL(resolve(id)).href;
  return {
    ws: url('ws'),
    mapper: url('chromium-bidi/out/Default/gen/src/bidiMapper/BidiMapper.js'),
    cdp: url('chromium-bidi/out/Default/gen/src/cdp/CdpConnection.js'),
    client: url('chromium-bidi/out/Default/gen/src/cdp/CdpClient.js'),
  };
}

/**
 * A mapper thread, as the server's side of it: commands go in by id, answers and events come
 * back, and however the thread ends (its socket closed, its mapper failed, terminated) every
 * command waiting is answered with an error and the wire says so once, with why.
 */
class MapperThread {
  readonly started: Promise<void>;
  readonly wire: BidiWire;
  private readonly events = new EventEmitter();
  private readonly waiting = new Map<number, (answer: Record<string, unknown>) => void>();
  private readonly closedListeners: ((lost: Lost) => void)[] = [];
  private lastId = 0;
  private ended: Lost | undefined;
  private exited = false;

  constructor(private readonly worker: Worker) {
    let start: { resolve: () => void; reject: (err: Error) => void } | undefined;
    this.started = new Promise<void>((resolve, reject) => {
      start = { resolve, reject };
    });
    // Settled when the thread ends before it started, whoever awaits it.
    this.started.catch(() => undefined);
    worker.on('message', (message: FromThread) => {
      switch (message.kind) {
        case 'ready':
          start?.resolve();
          break;
        case 'refused':
          start?.reject(new Error(message.message));
          this.end(CONNECTION_CLOSED);
          break;
        case 'bidi':
          this.fromMapper(message.message);
          break;
        case 'closed':
          this.end(message.tooLarge ? TOO_LARGE : CONNECTION_CLOSED);
          break;
      }
    });
    // Where the mapper's failures arrive: the thread has ended, this browser's monitor with it.
    worker.on('error', (err: unknown) => {
      start?.reject(new Error('its BiDi mapper failed as it started'));
      this.end({ why: MAPPER_FAILED, detail: failedCommand(err) });
    });
    worker.on('messageerror', () => this.end({ why: MAPPER_FAILED }));
    worker.on('exit', () => {
      this.exited = true;
      start?.reject(new Error('its BiDi mapper ended as it started'));
      this.end({ why: MAPPER_FAILED });
    });
    this.wire = {
      command: (method, params) => this.command(method, params),
      on: (event, handler) => this.events.on(event, handler),
      off: (event, handler) => this.events.off(event, handler),
      onceClosed: (listener) => {
        if (this.ended) {
          listener(this.ended);
        } else {
          this.closedListeners.push(listener);
        }
      },
      close: async () => {
        if (!this.exited) {
          const exited = new Promise((resolve) => this.worker.once('exit', resolve));
          this.post({ kind: 'close' });
          await exited;
        }
      },
      terminate: () => void this.worker.terminate().catch(() => undefined),
    };
  }

  private command(method: string, params: object): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      if (this.ended) {
        resolve({ type: 'error', error: 'unknown error', message: 'the DevTools connection is closed' });
        return;
      }
      this.lastId += 1;
      this.waiting.set(this.lastId, resolve);
      this.post({ kind: 'command', id: this.lastId, method, params });
    });
  }

  private post(message: ToThread): void {
    if (!this.exited) {
      this.worker.postMessage(message);
    }
  }

  private fromMapper(message: unknown): void {
    const parsed = mapperMessage.safeParse(message);
    if (!parsed.success) {
      return;
    }
    const { type, id, method, params } = parsed.data;
    // 'error' is EventEmitter's own: emitted with no listener, it would throw.
    if (type === 'event' && method !== undefined && method !== 'error') {
      this.events.emit(method, params);
    } else if (id !== undefined) {
      this.waiting.get(id)?.(parsed.data);
      this.waiting.delete(id);
    }
  }

  /** Once: a command the browser will now never answer fails at once, and the thread goes. */
  private end(lost: Lost): void {
    if (this.ended) {
      return;
    }
    this.ended = lost;
    for (const answer of this.waiting.values()) {
      answer({ type: 'error', error: 'unknown error', message: 'the DevTools connection closed' });
    }
    this.waiting.clear();
    this.events.removeAllListeners();
    for (const listener of this.closedListeners.splice(0)) {
      listener(lost);
    }
    void this.worker.terminate().catch(() => undefined);
  }
}

const TOO_LARGE: Lost = {
  why: 'a DevTools message from the page was larger than the server takes (a huge console.log, or a body over NETWORK_BODY_MAX_BYTES)',
};

/**
 * The DevTools method a failed mapper's error names (chromium-bidi's "Target.setAutoAttach {…}
 * call rejected…"), for the log line: only the method, never its parameters.
 */
function failedCommand(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : '';
  return /^([A-Z][A-Za-z]*\.[a-z][A-Za-z]*)\b/.exec(message)?.[1];
}
