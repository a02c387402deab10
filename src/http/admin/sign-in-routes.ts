import { z } from 'zod';
import { BadRequest } from '../../errors.js';
import { adminSignIn, adminSignInOf, redeemAdminCode } from '../../oauth/admin-sign-in.js';
import type { PlainRoute } from '../routes.js';
import { ADMIN_API } from './routes.js';

/** RFC 7636: a verifier is 43-128 characters of [A-Za-z0-9-._~]. */
const Redeem = z.strictObject({
  code: z.string().min(1).max(2048),
  code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/),
});
const Redeemed = z.object({ token: z.string(), expires_in: z.number().optional() });

const open = { tag: 'admin', access: 'public' } as const;

/**
 * The admin page's OAuth sign-in (OAUTH_ISSUER with OAUTH_ADMIN_CLIENT_ID): where to send a
 * person, and the redemption of the code the issuer sends them back with. Public like the page
 * (the code and its PKCE verifier are the proof), behind the same Host and Origin checks.
 */
export const SIGN_IN_ROUTES: readonly PlainRoute[] = [
  {
    ...open,
    method: 'GET',
    path: `${ADMIN_API}/sign-in`,
    summary:
      "How the admin page signs in: the issuer's authorization endpoint, the page's client and scope (OAUTH_ISSUER)",
    answers: adminSignIn,
    handler: async (_request, reply, context) => {
      void reply.header('cache-control', 'no-store');
      return adminSignInOf(context.oauth);
    },
  },
  {
    ...open,
    method: 'POST',
    path: `${ADMIN_API}/sign-in/token`,
    summary:
      "Redeems the authorization code the issuer sent the admin page back with (and the page's PKCE verifier) for an operator's access token",
    body: Redeem,
    answers: Redeemed,
    handler: async (request, reply, context) => {
      const parsed = Redeem.safeParse(request.body);
      if (!parsed.success) {
        throw new BadRequest(
          'Send {"code": "<the code the issuer sent back>", "code_verifier": "<the PKCE verifier, 43-128 characters>"} as JSON.',
        );
      }
      void reply.header('cache-control', 'no-store');
      return redeemAdminCode(context.oauth, parsed.data.code, parsed.data.code_verifier);
    },
  },
];
