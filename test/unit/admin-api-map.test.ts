import { describe, expect, it } from 'vitest';
import { ADMIN_API_MAP } from '../../src/http/admin/api-map.js';
import { PLAIN_ROUTES } from '../../src/http/plain-routes.js';

const PREFIX = '/admin/api/';
/** The admin API's JSON routes; each row takes its method, path and schemas from the map (adminRoute). */
const jsonRoutes = PLAIN_ROUTES.filter(
  (r) => r.access === 'admin' && r.path.startsWith(PREFIX) && typeof r.answers === 'object',
);

describe("the admin page's route map", () => {
  it('is served entry for entry, once each, and no admin JSON route is left outside it', () => {
    const served = jsonRoutes.map((r) => `${r.method} ${r.path.slice(PREFIX.length)}`);
    expect(served.sort()).toEqual(Object.keys(ADMIN_API_MAP).sort());
  });
});
