import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GridProxy {
  url: string;
  /** the Grid ids of every session the real Grid created through this proxy */
  created: string[];
  /** "METHOD /path" of every request passed on, in order */
  requests: string[];
  /** the Authorization header of every request that carried one (what the server sends the Grid) */
  authorizations: string[];
  /** hold each new-session answer this long before passing it on (a Grid whose queue is waiting) */
  holdNewSessionsMs: number;
  /** paths answered as a Grid without that command answers (404 "unknown command"), never passed on */
  unknownCommands: RegExp[];
  close(): Promise<void>;
}

/**
 * A pass-through in front of the real Grid, for the things a test cannot otherwise see or
 * cause on a shared Grid: which sessions one server opened (other test files open theirs on
 * the same Grid), what it asked the Grid, a new-session request that waits (the real Grid's queue does, when its
 * slots are full), and a command the Grid does not have (another vendor's Grid). Every other byte goes to and
 * comes from the real Grid, unchanged.
 */
export async function startGridProxy(gridUrl: string): Promise<GridProxy> {
  const target = new URL(gridUrl);
  const proxy: GridProxy = {
    url: '',
    created: [],
    requests: [],
    authorizations: [],
    holdNewSessionsMs: 0,
    unknownCommands: [],
    close: async () => undefined,
  };
  const server: Server = createServer((incoming, outgoing) => {
    proxy.requests.push(`${incoming.method ?? ''} ${incoming.url ?? ''}`);
    if (incoming.headers.authorization !== undefined) {
      proxy.authorizations.push(incoming.headers.authorization);
    }
    const path = incoming.url ?? '';
    if (proxy.unknownCommands.some((command) => command.test(path))) {
      incoming.resume();
      const message = `Unable to find handler for (${incoming.method ?? ''}) ${path}`;
      outgoing.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      outgoing.end(JSON.stringify({ value: { error: 'unknown command', message, stacktrace: '' } }));
      return;
    }
    const forward = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          const newSession = incoming.method === 'POST' && incoming.url === '/session';
          if (newSession) {
            try {
              const id = (JSON.parse(body.toString('utf8')) as { value?: { sessionId?: string } }).value?.sessionId;
              if (id) {
                proxy.created.push(id);
              }
            } catch {
              // not a session: nothing to record
            }
          }
          const pass = () => {
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            outgoing.end(body);
          };
          if (newSession && proxy.holdNewSessionsMs > 0) {
            setTimeout(pass, proxy.holdNewSessionsMs);
          } else {
            pass();
          }
        });
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The same credentials as the real Grid's URL: the server sends them, the proxy passes them on.
  const userinfo = target.username ? `${target.username}:${target.password}@` : '';
  proxy.url = `http://${userinfo}127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
