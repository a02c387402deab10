import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { GridUnavailable } from '../errors.js';

const UNREACHABLE = 'The Selenium Grid is unreachable; check GRID_URL and that the Grid is running, then retry.';
const GRID_TIMEOUT_MS = 30_000;

/**
 * A request to the Grid. Node's fetch refuses a URL with userinfo, so a Grid URL's credentials
 * travel as a Basic authorization header instead.
 */
export async function gridFetch(url: string, init: RequestInit): Promise<Response> {
  const { address, authorization } = splitCredentials(url);
  const headers = new Headers(init.headers);
  if (authorization !== undefined) {
    headers.set('authorization', authorization);
  }
  try {
    return await fetch(address, { ...init, headers, signal: AbortSignal.timeout(GRID_TIMEOUT_MS) });
  } catch {
    throw new GridUnavailable(UNREACHABLE);
  }
}

/**
 * The keep-alive connections a Grid's browsers are driven over: one pool for every browser, since a
 * fresh TCP connection per command costs more than the command itself on a local Grid.
 */
export function gridAgent(url: string): HttpAgent {
  const options = { keepAlive: true, maxSockets: 64 };
  return new URL(url).protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
}

/**
 * A bodiless request to the Grid on `agent`'s connections, its answer's status and JSON (undefined
 * when it is not JSON). What a browser's first command needs (the Grid's /status, the end of a
 * browser) goes this way rather than by fetch: fetch is undici, ~25 ms of loading in a fresh
 * process, and its own pool; here the connection /status opened is the one the new session takes.
 * Without an agent, Node's global one.
 */
export function gridRequest(
  url: string,
  method: 'GET' | 'DELETE',
  agent?: HttpAgent,
): Promise<{ status: number; json: unknown }> {
  const { address, authorization } = splitCredentials(url);
  const send = new URL(address).protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      address,
      { method, agent, headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) } },
      (response) => {
        readJson(response).then((json) => resolve({ status: response.statusCode ?? 0, json }), reject);
      },
    );
    request.setTimeout(GRID_TIMEOUT_MS, () => request.destroy());
    request.on('error', () => reject(new GridUnavailable(UNREACHABLE)));
    request.end();
  });
}

function readJson(response: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', () => reject(new GridUnavailable(UNREACHABLE)));
    response.on('close', () => {
      if (!response.complete) {
        reject(new GridUnavailable(UNREACHABLE));
      }
    });
    response.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** A URL without its userinfo, and that userinfo as a Basic authorization header value. */
export function splitCredentials(url: string): { address: string; authorization?: string } {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') {
    return { address: url };
  }
  const userinfo = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { address: parsed.toString(), authorization: `Basic ${Buffer.from(userinfo).toString('base64')}` };
}

/** The URL as it may be shown: scheme, host, port and path, never its credentials. */
export function withoutCredentials(url: string): string {
  return splitCredentials(url).address.replace(/\/$/, '');
}
