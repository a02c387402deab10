import { z } from 'zod';
import { BadRequest, Unauthorized } from '../../errors.js';
import type { PlainRoute } from '../routes.js';
import { ADMIN_API } from './routes.js';

/** What a refused admin link is told to do. */
const ADMIN_LINK_REMEDY =
  'That admin link is wrong, used or expired; restart the server for a new link, or set ADMIN_TOKEN.';

const Exchange = z.strictObject({ code: z.string().max(200) });
const Session = z.object({ token: z.string() });

/**
 * The banner's one-time admin link, exchanged for an admin session. Public (the code is the
 * proof), behind the same Host and Origin checks as every route, so only this server's own page
 * can ask from a browser.
 */
export const SESSION_ROUTES: readonly PlainRoute[] = [
  {
    tag: 'admin',
    access: 'public',
    method: 'POST',
    path: `${ADMIN_API}/session`,
    summary: "Exchanges the banner's one-time admin link code for an admin session (servers without a token only)",
    body: Exchange,
    answers: Session,
    handler: async (request, reply, context) => {
      if (!context.adminLink) {
        throw new Unauthorized(
          'This server prints no admin link (a token is set, or its store is Redis); sign in with ADMIN_TOKEN.',
        );
      }
      const parsed = Exchange.safeParse(request.body);
      if (!parsed.success) {
        throw new BadRequest('Send {"code": "<the code after #code= in the admin link>"} as JSON.');
      }
      const token = context.adminLink.exchange(parsed.data.code);
      if (!token) {
        throw new Unauthorized(ADMIN_LINK_REMEDY);
      }
      void reply.header('cache-control', 'no-store');
      return { token };
    },
  },
];
