import { request, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ADDRESS_CLOSED, PORT_CLOSED, proxyPageTitle } from '../grid/proxy-page.js';
import { destination, isHostAddress } from './host-addresses.js';
import type { NameResolver } from './proxy-names.js';

/**
 * What the browsers' proxy (proxy.ts) does with one request: read the destination one way,
 * resolve it itself, refuse what the fence closes, connect to the very address it checked, and
 * stream the bytes.
 */
const CONNECT_TIMEOUT_MS = 30_000;
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/** Chromium's name for each way a connection fails, so navigate answers as if there were no proxy. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'ERR_CONNECTION_REFUSED',
  ETIMEDOUT: 'ERR_CONNECTION_TIMED_OUT',
  ECONNRESET: 'ERR_CONNECTION_RESET',
  EHOSTUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  ENETUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  EADDRNOTAVAIL: 'ERR_ADDRESS_UNREACHABLE',
  EINVAL: 'ERR_ADDRESS_UNREACHABLE',
};

/**
 * What every request is judged by: what the fence closes, the resolver that keeps each browser's
 * lookups apart, and who asks. The embedded Grid's proxy (proxy.ts) and the fence of a Grid this
 * server did not start (grid-fence.ts) differ only here.
 */
export interface Fence {
  /** why the browsers may not open `address`:`port` (asked for by `name`, when by a name), or undefined */
  refusal(address: string, port: number, name: string | undefined): string | undefined;
  /** what opens what `refusal` closes, said after its reason */
  remedy: string;
  /** BROWSER_LOOPBACK_PORTS as a person writes it, for a refusal page's title */
  openPorts: string;
  names: NameResolver;
  /** why a port of this host that `refusal` leaves open is closed all the same: a selenium-flow instance holds it (listeners.ts) */
  instances(port: number): Promise<string | undefined>;
  /** which browser asks, by the socket it came on: the key its lookups are counted under */
  clientOf(socket: Socket): string;
}

type Opened = { socket: Socket } | { status: 403 | 429 | 502; reason: string; sentence: string };

/** Opens `host`:`port` for the browser whose own proxy address is `browser`, or says why not. */
async function open(host: string, port: number, fence: Fence, browser: string): Promise<Opened> {
  const read = destination(host);
  if ('unreadable' in read) {
    return {
      status: 403,
      reason: 'ERR_ADDRESS_INVALID',
      sentence: `Refused by selenium-flow's fence: ${read.unreadable}.`,
    };
  }
  let addresses: string[];
  if ('addresses' in read) {
    addresses = read.addresses;
  } else {
    const resolved = await fence.names.resolve(read.name, browser);
    if ('failed' in resolved) {
      return lookupFailed(resolved.failed, fence.names.perBrowser);
    }
    addresses = resolved.addresses;
  }
  const name = 'name' in read ? read.name : undefined;
  let open = addresses.filter((a) => fence.refusal(a, port, name) === undefined);
  if (open.length === 0) {
    const first = addresses[0] ?? '';
    const why = fence.refusal(first, port, name) ?? 'closed';
    return {
      status: 403,
      reason: isHostAddress(first) ? PORT_CLOSED : ADDRESS_CLOSED,
      sentence: `Refused by selenium-flow's fence: ${why}. ${fence.remedy}`,
    };
  }
  if (open.some(isHostAddress)) {
    const held = await fence.instances(port);
    if (held !== undefined) {
      open = open.filter((a) => !isHostAddress(a));
      if (open.length === 0) {
        return { status: 403, reason: PORT_CLOSED, sentence: `Refused by selenium-flow's fence: ${held}.` };
      }
    }
  }
  let code = 'ECONNREFUSED';
  for (const address of open) {
    const attempt = await connectTo(address, port);
    if ('socket' in attempt) {
      return attempt;
    }
    code = attempt.code;
  }
  return {
    status: 502,
    reason: REASONS[code] ?? 'ERR_CONNECTION_FAILED',
    sentence: `The connection failed (${code}).`,
  };
}

function lookupFailed(failed: 'busy' | 'not-found' | 'unanswered', perBrowser: number): Opened {
  switch (failed) {
    case 'busy':
      return {
        status: 429,
        reason: 'ERR_NAME_RESOLUTION_FAILED',
        sentence: `Refused by selenium-flow's fence: this browser already waits on ${perBrowser} name lookups through its proxy, the most one browser may (the others keep their own); retry when some have answered.`,
      };
    case 'not-found':
      return { status: 502, reason: 'ERR_NAME_NOT_RESOLVED', sentence: 'No such host name.' };
    case 'unanswered':
      return {
        status: 502,
        reason: 'ERR_NAME_RESOLUTION_FAILED',
        sentence: 'The host name could not be looked up: no DNS server answered for it in time; retry later.',
      };
  }
}

function connectTo(address: string, port: number): Promise<{ socket: Socket } | { code: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    socket.setTimeout(CONNECT_TIMEOUT_MS, () =>
      socket.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
    );
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeAllListeners('error');
      resolve({ socket });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? 'ECONNREFUSED' }));
  });
}

/** host and port of a CONNECT request's target (`example.com:443`, `[::1]:80`); the host is read by `destination`. */
function authority(target: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]*\]|[^:[\]]+):(\d{1,5})$/.exec(target);
  const port = Number(match?.[2]);
  return match && port > 0 && port < 65_536 ? { host: match[1] ?? '', port } : undefined;
}

export async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer, fence: Fence): Promise<void> {
  client.on('error', () => client.destroy());
  const target = authority(req.url ?? '');
  if (!target) {
    client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return;
  }
  const opened = await open(target.host, target.port, fence, fence.clientOf(req.socket));
  if (!('socket' in opened)) {
    const body = `${opened.sentence}\n`;
    client.end(
      `HTTP/1.1 ${opened.status} ${STATUS_CODES[opened.status] ?? ''}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return;
  }
  const upstream = opened.socket;
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) {
    upstream.write(head);
  }
  upstream.pipe(client);
  client.pipe(upstream);
}

function page(res: ServerResponse, status: number, reason: string, sentence: string, openPorts: string): void {
  const escaped = sentence.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const body = `<!doctype html><meta charset="utf-8"><title>${proxyPageTitle(reason, openPorts)}</title><p>${escaped}</p>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(body);
}

/** Headers without the hop-by-hop ones (and those the Connection header names), as a flat raw list. */
function endToEnd(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') {
      for (const token of (raw[i + 1] ?? '').split(',')) {
        named.add(token.trim().toLowerCase());
      }
    }
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) {
      kept.push(raw[i] ?? '', raw[i + 1] ?? '');
    }
  }
  return kept;
}

export async function forward(req: IncomingMessage, res: ServerResponse, fence: Fence): Promise<void> {
  const openPorts = fence.openPorts;
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    page(res, 400, 'ERR_INVALID_URL', 'This is a proxy: ask it for an absolute http:// URL.', openPorts);
    return;
  }
  if (url.protocol !== 'http:') {
    page(res, 400, 'ERR_INVALID_URL', 'Only http:// is forwarded; other schemes come as CONNECT.', openPorts);
    return;
  }
  const port = Number(url.port || 80);
  const opened = await open(url.hostname, port, fence, fence.clientOf(req.socket));
  if (!('socket' in opened)) {
    // A navigation shows why (navigate reads the title back); a page's own fetch fails as it
    // would without a proxy, rather than resolving with an answer that came from here.
    if (isNavigation(req)) {
      page(res, opened.status, opened.reason, opened.sentence, openPorts);
    } else {
      req.socket.destroy();
    }
    return;
  }
  const socket = opened.socket;
  const upstream = request({
    createConnection: () => socket,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: endToEnd(req.rawHeaders),
    setHost: false,
  });
  upstream.on('response', (answer) => {
    answer.on('error', () => res.destroy());
    try {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
    } catch {
      // A site may answer a status line Node parses but will not send on (a code below 100, a
      // control character in its reason): thrown here, it would stop the whole server.
      socket.destroy();
      // writeHead kept the reason it refused, and would refuse it again for the page.
      res.statusMessage = '';
      if (isNavigation(req)) {
        page(res, 502, 'ERR_INVALID_HTTP_RESPONSE', 'The site answered a status line no browser takes.', openPorts);
      } else {
        res.destroy();
      }
      return;
    }
    answer.pipe(res);
  });
  // The site cut the connection: the browser sees its own connection cut too, as without a proxy.
  upstream.on('error', () => {
    socket.destroy();
    res.destroy();
  });
  res.on('close', () => {
    if (!res.writableFinished) {
      upstream.destroy();
    }
  });
  req.pipe(upstream);
}

/**
 * Whether a browser asks for a page to show. Sec-Fetch-Mode says so, but only to trustworthy
 * origins; to plain http:// ones both browsers send Upgrade-Insecure-Requests on navigations alone
 * (a page's no-cors fetch cannot add it, a cors one would need a preflight this proxy refuses first).
 */
function isNavigation(req: IncomingMessage): boolean {
  const mode = req.headers['sec-fetch-mode'];
  return mode === 'navigate' || (mode === undefined && req.headers['upgrade-insecure-requests'] === '1');
}
