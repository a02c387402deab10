import type { FastifyInstance } from 'fastify';
import { AdminLink } from './admin/link.js';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { RequestGuard } from './http/guard.js';
import { attachLiveTunnel } from './http/live-tunnel.js';
import { CLOSE } from './live/tunnel.js';
import { connectBackends, createParts, type Backends, type Parts } from './parts.js';
import { VERSION } from './package.js';
import { TokenBook } from './workspace/tokens.js';

export interface HttpServer extends Parts {
  app: FastifyInstance;
  /** the one-time admin link's code, for the banner only: set when no token is configured and the store is this process's */
  adminCode?: string;
}

/** createServer with the configured store connected first (Redis is pinged at boot). */
/** `fence` says how the Grid's browsers are fenced, for /ready (the embedded Grid's report, or the external one's). */
export async function openServer(config: Config, gridUrl: string, fence?: string): Promise<HttpServer> {
  return createServer(config, gridUrl, await connectBackends(config), fence);
}

export function createServer(config: Config, gridUrl: string, backends?: Backends, fence?: string): HttpServer {
  const parts = createParts(config, gridUrl, backends);
  const issued = adminLinkFor(config);
  const app = buildApp(parts.deps, {
    version: VERSION,
    authToken: config.authToken,
    adminToken: config.adminToken,
    adminLink: issued?.link,
    tokens: TokenBook.from(config.authToken, config.tokensFile),
    guard: new RequestGuard(config),
    mirrorTools: config.mirrorTools === 'on',
    flowTools: { enabled: config.flowTools === 'on', max: config.flowToolsMax },
    maxBodyBytes: config.maxBodyBytes,
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
    admin: parts.admin,
    features: {
      flows: parts.deps.flows !== undefined,
      files: config.dataDir !== undefined,
      secrets: parts.deps.secrets?.catalogue.enabled ?? false,
      live: true,
    },
    live: parts.liveView,
  });
  const guard = new RequestGuard(config);
  attachLiveTunnel(app.server, { live: parts.liveView, guard, routePrefix: config.routePrefix });
  // Before Fastify stops listening: a viewer learns the server restarts, and reconnects.
  app.addHook('preClose', async () => {
    parts.liveView.tunnels.closeAll(CLOSE.restart, 'The server is restarting; reconnect in a moment.');
    // An open event stream would hold the close; the page reconnects and resumes.
    parts.events.endStreams();
  });
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
  };
}

/**
 * A server with no token at all gets a one-time admin link for its terminal. Not with Redis: the
 * session lives in one replica's memory, and the next request may reach another replica.
 */
export function adminLinkFor(config: Config): ReturnType<typeof AdminLink.issue> | undefined {
  const tokenless =
    config.adminToken === undefined && config.authToken === undefined && config.tokensFile === undefined;
  return tokenless && config.sessionStore !== 'redis' ? AdminLink.issue(config.adminLinkTtl * 1000) : undefined;
}
