import { CATALOGUE_ADMIN_ROUTES, FLOW_ADMIN_ROUTES, WORKSPACE_ADMIN_ROUTES } from './admin/routes.js';
import { EVENT_ADMIN_ROUTES } from './admin/event-routes.js';
import { SESSION_ROUTES } from './admin/session-route.js';
import { FILE_ROUTES } from './files-routes.js';
import { LIVE_ROUTES } from './live-routes.js';
import { OPERATION_ROUTES } from './operation-routes.js';
import { PAGE_ROUTES } from './page-routes.js';
import type { PlainRoute } from './routes.js';

/** Every REST route that is not a tool: registered by app.ts and documented by openapi.ts from these rows. */
export const PLAIN_ROUTES: readonly PlainRoute[] = [
  ...OPERATION_ROUTES,
  ...FILE_ROUTES,
  ...WORKSPACE_ADMIN_ROUTES,
  ...FLOW_ADMIN_ROUTES,
  ...CATALOGUE_ADMIN_ROUTES,
  ...EVENT_ADMIN_ROUTES,
  ...SESSION_ROUTES,
  ...LIVE_ROUTES,
  ...PAGE_ROUTES,
];
