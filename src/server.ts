import type { FastifyInstance } from 'fastify';
import { setTimeout as delay } from 'node:timers/promises';
import { AdminLink } from './admin/link.js';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { Drain } from './http/drain.js';
import { RequestGuard } from './http/guard.js';
import { attachLiveTunnel } from './http/live-tunnel.js';
import { CLOSE } from './live/tunnel/tunnel.js';
import { connectBackends, type Backends } from './backends.js';
import { createParts, type Parts } from './parts.js';
import { VERSION } from './package.js';
import { ResourceServer } from './oauth/resource-server.js';
import { TokenBook } from './workspace/tokens.js';

export interface HttpServer extends Parts {
  app: FastifyInstance;
  /**
   * A clean stop (SIGTERM): new calls answer 503, what waits is answered, the calls in flight get
   * `graceMs` to end (then they are cut off), and the parts close. The browsers stay on the Grid.
   */
  stop(graceMs: number): Promise<void>;
  /** the one-time admin link's code, for the banner only: set when no token is configured and the store is this process's */
  adminCode?: string;
}

/**
 * createServer with the configured store connected first (Redis is pinged at boot), getting
 * ready for the first call. `fence` says how the Grid's browsers are fenced, for /ready (the
 * embedded Grid's report, or the external one's).
 */
export async function openServer(config: Config, gridUrl: string, fence?: string): Promise<HttpServer> {
  const server = createServer(config, gridUrl, await connectBackends(config), fence);
  server.warmUp.start();
  return server;
}

export function createServer(config: Config, gridUrl: string, backends?: Backends, fence?: string): HttpServer {
  const parts = createParts(config, gridUrl, backends);
  const issued = adminLinkFor(config);
  const drain = new Drain();
  if (parts.deps.control) {
    parts.deps.control.stopping = drain.signal;
  }
  const app = buildApp(parts.deps, {
    drain,
    version: VERSION,
    authToken: config.authToken,
    adminToken: config.adminToken,
    adminLink: issued?.link,
    tokens: TokenBook.from(config.authToken, config.tokensFile),
    oauth: ResourceServer.from(config),
    guard: new RequestGuard(config),
    mirrorTools: config.mirrorTools === 'on',
    flowTools: { enabled: config.flowTools === 'on', max: config.flowToolsMax },
    maxBodyBytes: config.maxBodyBytes,
    streamsPerToken: config.streamsPerToken,
    mcpSessions: parts.mcpSessions,
    onToolsListed: () => parts.warmUp.listed(),
    logLevel: config.logLevel,
    ready: async () => ({
      grid: await parts.grid.isReachable(),
      store: await parts.store.ping().then(
        () => true,
        () => false,
      ),
      ...(fence === undefined ? {} : { fence }),
    }),
    routePrefix: config.routePrefix,
    publicUrl: config.publicUrl,
    admin: parts.admin,
    features: {
      flows: parts.deps.flows !== undefined,
      files: config.dataDir !== undefined,
      secrets: parts.deps.secrets?.catalogue.enabled ?? false,
      live: true,
    },
    live: parts.liveView,
    admitWorkspace: (owner, workspace) => parts.workspacesPerToken.admit(owner, workspace),
  });
  const guard = new RequestGuard(config);
  attachLiveTunnel(app.server, { live: parts.liveView, guard, routePrefix: config.routePrefix });
  // As the stop begins: a viewer learns the server restarts, and reconnects; an open event
  // stream would hold the close, and the page reconnects and resumes.
  drain.onBegin(() => {
    parts.liveView.tunnels.closeAll(CLOSE.restart, 'The server is restarting; reconnect in a moment.');
    parts.events.endStreams();
  });
  app.addHook('preClose', async () => drain.begin());
  parts.deps.secrets?.audit.useLogger(app.log.child({ component: 'secrets' }));
  parts.deps.log = app.log.child({ component: 'calls' });
  return {
    ...parts,
    app,
    adminCode: issued?.code,
    close: async () => {
      await app.close();
      await parts.close();
    },
    stop: async (graceMs) => {
      drain.begin();
      const ended = await drain.settled(graceMs);
      const closing = app.close();
      if (!ended) {
        // A call still running (one may be stuck on a hung page) is cut off: a stop must not wait for it.
        app.server.closeAllConnections();
      }
      await Promise.race([closing, delay(1_000)]);
      await parts.close();
    },
  };
}

/**
 * A server with no token and no issuer gets a one-time admin link for its terminal. Not with Redis: the
 * session lives in one replica's memory, and the next request may reach another replica.
 */
export function adminLinkFor(config: Config): ReturnType<typeof AdminLink.issue> | undefined {
  // With an issuer the admin page signs in through it: nobody is let in by a link.
  const tokenless =
    config.adminToken === undefined &&
    config.authToken === undefined &&
    config.tokensFile === undefined &&
    config.oauthIssuer === undefined;
  return tokenless && config.sessionStore !== 'redis' ? AdminLink.issue(config.adminLinkTtl * 1000) : undefined;
}
