import { CATALOGUE_ADMIN_ROUTES, FLOW_ADMIN_ROUTES, WORKSPACE_ADMIN_ROUTES } from './admin/routes.js';
import { EVENT_ADMIN_ROUTES } from './admin/event-routes.js';
import { SESSION_ROUTES } from './admin/session-route.js';
import { SIGN_IN_ROUTES } from './admin/sign-in-routes.js';
import { FILE_ROUTES } from './files-routes.js';
import { LIVE_ROUTES } from './live-routes.js';
import { OPERATION_ROUTES } from './operation-routes.js';
import { PAGE_ROUTES } from './page-routes.js';
import type { PlainRoute } from './routes.js';

/** The operator's API: workspaces, flows, the catalogue and Grid, audit events, the link's session, OAuth sign-in. */
export const ADMIN_ROUTES: readonly PlainRoute[] = [
  ...WORKSPACE_ADMIN_ROUTES,
  ...FLOW_ADMIN_ROUTES,
  ...CATALOGUE_ADMIN_ROUTES,
  ...EVENT_ADMIN_ROUTES,
  ...SESSION_ROUTES,
  ...SIGN_IN_ROUTES,
];

export { FILE_ROUTES, LIVE_ROUTES, OPERATION_ROUTES, PAGE_ROUTES };

/** Every REST route that is not a tool: registered by area in app.ts and documented by openapi.ts from these rows. */
export const PLAIN_ROUTES: readonly PlainRoute[] = [
  ...OPERATION_ROUTES,
  ...FILE_ROUTES,
  ...ADMIN_ROUTES,
  ...LIVE_ROUTES,
  ...PAGE_ROUTES,
];
