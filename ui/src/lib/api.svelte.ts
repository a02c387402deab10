/**
 * The page's one door to the admin API. The token lives in sessionStorage (gone with the tab)
 * and travels only as an Authorization header — never in a URL, where logs and history keep it.
 */
import type { AdminApi, AdminRoute } from '../../../src/http/admin/api-map';

const TOKEN_KEY = 'selenium-flow:admin-token';
/** how the token came: pasted (or the admin link's session), or from OAUTH_ISSUER */
const VIA_KEY = 'selenium-flow:admin-via';

export type SignedInVia = 'token' | 'oauth';

export const session = $state({
  token: sessionStorage.getItem(TOKEN_KEY) ?? '',
  via: sessionStorage.getItem(VIA_KEY) === 'oauth' ? 'oauth' : 'token',
  /** why the sign-in form is showing, when it is not the first visit */
  refusal: '',
  /** false while the server cannot be reached; every poll that succeeds sets it back */
  online: true,
  /** true while the banner's one-time admin link is being exchanged for a session */
  linking: false,
});

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export function signIn(token: string, via: SignedInVia = 'token'): void {
  session.token = token;
  session.via = via;
  session.refusal = '';
  sessionStorage.setItem(TOKEN_KEY, token);
  sessionStorage.setItem(VIA_KEY, via);
}

export function signOut(refusal = ''): void {
  session.token = '';
  session.refusal = refusal;
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(VIA_KEY);
}

/** `workspaces/a b/files` → an address under this page's own path (…/admin/api/…), whatever the prefix. */
export function apiUrl(path: string): string {
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- only its href string leaves; nothing reacts to the URL object
  return new URL(`api/${path}`, document.baseURI).href;
}

/** A path segment from outside, encoded once. */
export const seg = (name: string) => encodeURIComponent(name);

interface Call {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** YAML text goes as text, everything else as JSON */
  text?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The raw response of a successful call (2xx); a refusal throws ApiError with the server's sentence. */
export async function call(path: string, options: Call = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, ...options.headers };
  let body: string | undefined;
  if (options.text !== undefined) {
    headers['content-type'] = 'application/yaml';
    body = options.text;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path), { method: options.method ?? 'GET', headers, body, signal: options.signal });
  } catch (err) {
    if ((err as Error).name !== 'AbortError') {
      session.online = false;
    }
    throw err;
  }
  // A proxy in front of a server that went away answers 502/503 with a page of its own.
  const gateway = response.status === 502 && !isJson(response);
  session.online = !gateway;
  // 304: the caller sent If-None-Match and nothing changed (a polled read, see apiChanged).
  if (response.ok || response.status === 304) {
    return response;
  }
  const answer: unknown = isJson(response) ? await response.json().catch(() => undefined) : undefined;
  const message =
    (answer as { error?: { message?: string } } | undefined)?.error?.message ??
    `The server answered HTTP ${response.status}.`;
  if (response.status === 401) {
    // An access token expires: the server's sentence says so, and signing in again is one click.
    signOut(
      session.via === 'oauth'
        ? message
        : 'The server refused that token. Paste the ADMIN_TOKEN (or MCP_AUTH_TOKEN) this server runs with, or open the admin link it printed when it started.',
    );
  }
  throw new ApiError(response.status, message, answer);
}

type PathOf<R extends AdminRoute> = R extends `${string} ${infer P}` ? P : never;
type SegmentsOf<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? K | SegmentsOf<Rest> : never;
/** The `{x}` segments a route's path names, each a value to fill in. */
export type ParamsOf<R extends AdminRoute> = Record<SegmentsOf<PathOf<R>>, string>;
/** What the server answers on a route, as it declares it (src/http/admin/api-map.ts). */
export type AnswerOf<R extends AdminRoute> = AdminApi[R]['answer'];
type RouteCall<R extends AdminRoute> = Omit<Call, 'method' | 'body'> & { body?: AdminApi[R]['body'] };

/** `workspaces/{workspace}/flows` filled in: each segment encoded once. */
export function pathOf<R extends AdminRoute>(route: R, params: ParamsOf<R>): string {
  const values: Record<string, string> = params;
  return route.slice(route.indexOf(' ') + 1).replace(/\{(\w+)\}/g, (_all, key: string) => seg(values[key] ?? ''));
}

function methodOf(route: AdminRoute): NonNullable<Call['method']> {
  return route.slice(0, route.indexOf(' ')) as NonNullable<Call['method']>;
}

/**
 * A call by the route map: `api('GET workspaces/{workspace}', { workspace })` answers what that
 * route declares, so the page cannot ask a path the server does not serve or misread its answer.
 */
export async function api<R extends AdminRoute>(
  route: R,
  params: ParamsOf<R>,
  options: RouteCall<R> = {},
): Promise<AnswerOf<R>> {
  const response = await call(pathOf(route, params), { ...options, method: methodOf(route) });
  return (await response.json()) as AnswerOf<R>;
}

/**
 * A polled read that sends back the ETag of the last answer it took: undefined when the
 * server says nothing changed (304, no body), so a poll of an unchanged view costs no bytes
 * and no re-render.
 */
export async function apiChanged<R extends AdminRoute>(
  route: R,
  params: ParamsOf<R>,
  last: { etag?: string },
  options: RouteCall<R> = {},
): Promise<AnswerOf<R> | undefined> {
  const headers = { ...options.headers, ...(last.etag ? { 'if-none-match': last.etag } : {}) };
  const response = await call(pathOf(route, params), { ...options, method: methodOf(route), headers });
  if (response.status === 304) {
    return undefined;
  }
  last.etag = response.headers.get('etag') ?? undefined;
  return (await response.json()) as AnswerOf<R>;
}

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('json');
}

/** What a failure says to a person: the server's own sentence, or that it cannot be reached. */
export function describe(err: unknown): string {
  if (err instanceof ApiError) {
    return err.message;
  }
  return 'The server cannot be reached; the page keeps trying.';
}
