import { Forbidden } from '../errors.js';

/**
 * Who may take Control of a browser (docs/security.md "Who may take Control"). Control is a
 * person's act, so what asks must be something no agent holds: the admin page with an admin
 * credential that is not also an agent's token, or the in-client app of a host that holds its
 * token for a person. A bearer token alone proves nothing: an agent, or a script it wrote,
 * holds the same token and may announce the same client capabilities.
 */
export const CONTROL_BY = ['admin', 'apps', 'off'] as const;
export type ControlBy = (typeof CONTROL_BY)[number];

/** How a request for Control reached the server, and what the server knows of who sent it. */
export type ControlAsker =
  /** the admin API; `person`: its credential is no agent's (ADMIN_TOKEN of its own, or the one-time link's session) */
  | { via: 'admin'; person: boolean }
  /** the live app in an MCP host; `hostHeld`: the caller's token is one a host holds for a person (TOKENS_FILE `control: true`, or OAUTH_CONTROL_SCOPE) */
  | { via: 'app'; hostHeld: boolean };

/** Why this asker may not take Control here, with what would let them; undefined when they may. */
export function controlRefusal(by: ControlBy, asker: ControlAsker): string | undefined {
  if (by === 'off') {
    return 'Control is turned off on this server (CONTROL_BY=off): the browser can be watched, not taken; the operator sets CONTROL_BY=admin to allow it on the admin page.';
  }
  if (asker.via === 'admin') {
    return asker.person
      ? undefined
      : "Control is a person's act, and this admin credential is also an agent's token (ADMIN_TOKEN is unset, so it defaults to MCP_AUTH_TOKEN, or it equals a token agents hold); set ADMIN_TOKEN to a value no agent holds and take Control with it.";
  }
  if (by === 'admin') {
    return 'On this server a person takes Control on the admin page (CONTROL_BY=admin): open its Live tab for this workspace; here you can watch.';
  }
  return asker.hostHeld
    ? undefined
    : "This client's token is not one the operator marked as held by an MCP host for a person (control: true in TOKENS_FILE, or an access token granted OAUTH_CONTROL_SCOPE), so its app cannot take Control; take it on the admin page, or watch here.";
}

/** Refuses, with the sentence, an asker who may not take Control here. */
export function checkControlAllowed(by: ControlBy, asker: ControlAsker): void {
  const refusal = controlRefusal(by, asker);
  if (refusal !== undefined) {
    throw new Forbidden(refusal);
  }
}
