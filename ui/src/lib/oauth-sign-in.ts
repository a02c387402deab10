/**
 * Signing in through OAUTH_ISSUER (authorization code + PKCE): the page sends the person to the
 * issuer with a fresh state and a code challenge, and the issuer sends them back here with a
 * code, which the server redeems (with the verifier only this tab holds) for an operator's
 * access token. The code arrives in the query: it is taken out of the address bar and history
 * before the router reads the address, and it works once, and only with the verifier.
 */
import { apiUrl, session, signIn, signOut } from './api.svelte';

export interface OAuthSignIn {
  issuer: string;
  authorization_endpoint: string;
  client_id: string;
  scope: string;
  resource: string;
  redirect_uri: string;
}

/** What this tab remembers between leaving for the issuer and coming back: never a token. */
const PENDING_KEY = 'selenium-flow:oauth-pending';

interface Pending {
  state: string;
  verifier: string;
  issuer: string;
}

/** The server's OAuth sign-in for this page, or null when it has none (then a token is pasted). */
export async function oauthSignIn(): Promise<OAuthSignIn | null> {
  const response = await fetch(apiUrl('sign-in'));
  const answer = (await response.json().catch(() => undefined)) as
    { oauth?: OAuthSignIn | null; error?: { message?: string } } | undefined;
  if (!response.ok) {
    throw new Error(answer?.error?.message ?? `The server answered HTTP ${response.status}.`);
  }
  return answer?.oauth ?? null;
}

/** Leaves for the issuer's sign-in page. */
export async function startOAuthSignIn(oauth: OAuthSignIn): Promise<void> {
  const pending: Pending = { state: randomText(), verifier: randomText(), issuer: oauth.issuer };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier));

  const url = new URL(oauth.authorization_endpoint);
  for (const [key, value] of Object.entries({
    response_type: 'code',
    client_id: oauth.client_id,
    redirect_uri: oauth.redirect_uri,
    scope: oauth.scope,
    resource: oauth.resource,
    state: pending.state,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
  })) {
    url.searchParams.set(key, value);
  }
  location.assign(url.href);
}

const query = new URLSearchParams(location.search);
if (query.has('state') && (query.has('code') || query.has('error'))) {
  history.replaceState(history.state, '', location.pathname + location.hash);
  void finish(query);
}

/** The issuer sent the person back: check the state (and `iss`, RFC 9207), then have the server redeem the code. */
async function finish(back: URLSearchParams): Promise<void> {
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = stored ? (JSON.parse(stored) as Pending) : undefined;
  if (!pending || back.get('state') !== pending.state) {
    signOut('That sign-in was not started from this tab (or was already used); sign in again.');
    return;
  }
  const iss = back.get('iss');
  if (iss !== null && iss !== pending.issuer) {
    signOut(`The sign-in came back from ${iss}, not from ${pending.issuer}; sign in again.`);
    return;
  }
  const error = back.get('error');
  if (error !== null) {
    signOut(`${pending.issuer} did not sign you in (${error}); sign in again, or ask for the operators' scope.`);
    return;
  }
  session.linking = true;
  try {
    const response = await fetch(apiUrl('sign-in/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: back.get('code'), code_verifier: pending.verifier }),
    });
    const answer = (await response.json().catch(() => undefined)) as
      { token?: string; error?: { message?: string } } | undefined;
    if (response.ok && answer?.token) {
      signIn(answer.token, 'oauth');
    } else {
      signOut(answer?.error?.message ?? `The server answered HTTP ${response.status} to the sign-in.`);
    }
  } catch {
    signOut('The server cannot be reached; sign in again once it is back.');
  } finally {
    session.linking = false;
  }
}

function randomText(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}
