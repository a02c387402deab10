import { describe, expect, it } from 'vitest';
import { ADMIN_API_MAP, type AdminRoute } from '../../src/http/admin/api-map.js';
import { PLAIN_ROUTES } from '../../src/http/plain-routes.js';

const PREFIX = '/admin/api/';
/** The admin API's JSON routes: the page's route map must name each, with the answer it documents. */
const jsonRoutes = PLAIN_ROUTES.filter(
  (r) => r.access === 'admin' && r.path.startsWith(PREFIX) && typeof r.answers === 'object',
);

describe("the admin page's route map", () => {
  it('names every admin JSON route with the very schema the route documents, and no route that is not there', () => {
    expect(jsonRoutes.length).toBeGreaterThan(15);
    const served = new Map(jsonRoutes.map((r) => [`${r.method} ${r.path.slice(PREFIX.length)}`, r]));
    expect([...served.keys()].sort()).toEqual(Object.keys(ADMIN_API_MAP).sort());
    for (const [key, route] of served) {
      const entry = ADMIN_API_MAP[key as AdminRoute];
      expect(route.answers, key).toBe(entry.answer);
      if ('body' in entry) {
        expect(route.body, key).toBe(entry.body);
      }
    }
  });
});
