import { z } from 'zod';
import { CAPABILITIES } from '../capabilities/index.js';
import { flowDocumentJsonSchema } from '../flows/document.js';
import { metricsContentType, metricsText } from '../ops/metrics.js';
import type { PlainRoute } from './routes.js';

const OK = z.object({ status: z.literal('ok') });
const READY = z.object({
  status: z.enum(['ok', 'unavailable']),
  grid: z.boolean(),
  store: z.boolean(),
  fence: z.string().optional(),
});
/** How many of a browser's slots offer a feature; counts stay off a public route. */
const coverage = z.enum(['all', 'some', 'none']);
const BROWSER_FEATURES = z.object({
  managed_downloads: coverage.describe(
    "slots whose node keeps downloads (se:downloadsEnabled): without, a browser's downloads cannot be read or kept",
  ),
  vnc: coverage.describe('slots a person can watch (se:vncEnabled): the live view'),
  bidi: z
    .boolean()
    .nullable()
    .describe(
      'its browsers announce WebDriver BiDi (webSocketUrl, or the DevTools endpoint se:cdp for Chromium): network capture and the pages a person visits; null until one has run',
    ),
});
const INFO = z.object({
  name: z.literal('selenium-flow'),
  version: z.string(),
  auth: z.boolean(),
  features: z.record(z.string(), z.boolean()),
  browsers: z
    .array(z.string())
    .optional()
    .describe('what open_session {browser} may ask; absent while the Grid does not answer'),
  grid_features: z
    .record(z.string(), BROWSER_FEATURES)
    .optional()
    .describe("per browser, what the Grid's slots offer, read from the Grid; absent while it does not answer"),
});
const open = { tag: 'operations', access: 'public' } as const;
/** Probes answer a Host-less or IP-addressed request; the Origin check still applies to them. */
const probe = { ...open, anyHost: true } as const;

let flowSchema: Record<string, unknown> | undefined;

/** Health checks for supervisors and load balancers; with ROUTE_PREFIX they also answer at the root. */
export const PROBE_ROUTES: readonly PlainRoute[] = [
  {
    ...probe,
    method: 'GET',
    path: '/health',
    summary: 'The process answers (liveness)',
    answers: OK,
    handler: async () => ({ status: 'ok' }),
  },
  {
    ...probe,
    method: 'GET',
    path: '/started',
    summary: 'The server has started',
    answers: OK,
    handler: async () => ({ status: 'ok' }),
  },
  {
    ...probe,
    method: 'GET',
    path: '/ready',
    summary:
      'The Grid and the workspace store answer (otherwise 503, saying which does not), and how the browsers are fenced',
    answers: READY,
    handler: async (_request, reply, { ready }) => {
      const parts = await ready();
      const isReady = parts.grid && parts.store;
      return reply.code(isReady ? 200 : 503).send({ status: isReady ? 'ok' : 'unavailable', ...parts });
    },
  },
  {
    ...probe,
    method: 'GET',
    path: '/info',
    // No Grid address: a page in a browser must not learn where the Grid listens.
    summary: 'The version and the enabled features',
    answers: INFO,
    handler: async (_request, _reply, context) => {
      const features = await context.deps.workspaces.grid.offers.features().catch(() => undefined);
      return {
        name: 'selenium-flow',
        version: context.version,
        auth: !context.tokens.open || context.oauth !== undefined,
        features: context.features,
        browsers: features && [...features.keys()],
        grid_features:
          features &&
          Object.fromEntries(
            [...features].map(([name, f]) => [
              name,
              { managed_downloads: share(f.managedDownloads, f.slots), vnc: share(f.vnc, f.slots), bidi: f.bidi },
            ]),
          ),
      };
    },
  },
];

/** The probes, and the descriptions of the API. */
export const OPERATION_ROUTES: readonly PlainRoute[] = [
  ...PROBE_ROUTES,
  {
    method: 'GET',
    path: '/metrics',
    // Behind the bearer token like the API: counts of calls and binds tell how the server is used.
    summary:
      "Prometheus metrics: tool calls, latency, browsers, the Grid's slots, flow runs, secret binds, turns waiting",
    tag: 'operations',
    access: 'bearer',
    answers: 'text',
    handler: async (_request, reply, { deps }) =>
      reply.type(metricsContentType()).send(await metricsText(await deps.workspaces.grid.slotCount())),
  },
  {
    ...open,
    method: 'GET',
    path: '/openapi.json',
    summary: 'This document, as JSON',
    answers: 'json',
    handler: async (_request, _reply, { openApiJson }) => openApiJson(),
  },
  {
    ...open,
    method: 'GET',
    path: '/openapi.yaml',
    summary: 'This document, as YAML',
    answers: 'yaml',
    handler: async (_request, reply, { openApiYaml }) => reply.type('application/yaml').send(openApiYaml()),
  },
  {
    method: 'GET',
    path: '/flows/schema',
    summary: 'The JSON Schema of a flow document (flow://schema)',
    tag: 'operations',
    access: 'bearer',
    answers: 'json',
    handler: async () => (flowSchema ??= flowDocumentJsonSchema(CAPABILITIES)),
  },
];

function share(part: number, whole: number): z.infer<typeof coverage> {
  return part === 0 ? 'none' : part >= whole ? 'all' : 'some';
}
