import { lookup } from 'node:dns/promises';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { PORT_CLOSED, proxyPageTitle } from '../grid/proxy-page.js';
import type { PortRange } from './fence.js';
import { refusal } from './host-addresses.js';

/**
 * What the browsers' proxy (proxy.ts) does with one request: resolve the destination itself,
 * refuse what the fence closes, connect to the very address it checked, and stream the bytes.
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

const LOCALHOST_NAME = /^(?:[^.]+\.)*localhost\.?$/i;

type Opened = { socket: Socket } | { status: 403 | 502; reason: string; sentence: string };

/** Resolves `host`, refuses what the fence closes, and connects to the first address left that answers. */
async function open(host: string, port: number, allowed: readonly PortRange[], openPorts: string): Promise<Opened> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(bare) !== 0) {
    addresses = [bare];
  } else if (LOCALHOST_NAME.test(bare)) {
    // Both browsers resolve every *.localhost name to loopback themselves (RFC 6761) and the
    // system resolver may not: answer as they would, and the fence then judges loopback.
    addresses = ['127.0.0.1', '::1'];
  } else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return { status: 502, reason: 'ERR_NAME_NOT_RESOLVED', sentence: 'No such host name.' };
    }
  }
  const open = addresses.filter((a) => refusal(a, port, allowed) === undefined);
  if (open.length === 0) {
    const why = refusal(addresses[0] ?? bare, port, allowed) ?? 'closed';
    return {
      status: 403,
      reason: PORT_CLOSED,
      sentence: `Refused by selenium-flow's fence: ${why}. Only the ports in BROWSER_LOOPBACK_PORTS (now: ${openPorts}) of the host that runs the browsers are open to them.`,
    };
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

/** host and port of a CONNECT request's target (`example.com:443`, `[::1]:80`). */
function authority(target: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(target);
  const port = Number(match?.[2]);
  return match && port > 0 && port < 65_536 ? { host: match[1] ?? '', port } : undefined;
}

export async function tunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  allowed: readonly PortRange[],
  openPorts: string,
): Promise<void> {
  client.on('error', () => client.destroy());
  const target = authority(req.url ?? '');
  if (!target) {
    client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return;
  }
  const opened = await open(target.host, target.port, allowed, openPorts);
  if (!('socket' in opened)) {
    const body = `${opened.sentence}\n`;
    client.end(
      `HTTP/1.1 ${opened.status} ${opened.status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
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

export async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: readonly PortRange[],
  openPorts: string,
): Promise<void> {
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
  const opened = await open(url.hostname, port, allowed, openPorts);
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
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
    answer.pipe(res);
    answer.on('error', () => res.destroy());
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
