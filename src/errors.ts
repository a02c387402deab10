/**
 * The error catalogue: every expected failure is one of these classes, and the
 * HTTP status of each is decided here and nowhere else. A message always ends
 * with the remedy, in one sentence a model can act on.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'quota_exceeded'
  | 'payload_too_large'
  | 'too_many_requests'
  | 'page_unreachable'
  | 'grid_unavailable'
  | 'store_unavailable'
  | 'issuer_unavailable'
  | 'stopping'
  | 'insufficient_storage'
  | 'timeout';

export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  quota_exceeded: 409,
  payload_too_large: 413,
  too_many_requests: 429,
  page_unreachable: 502,
  grid_unavailable: 503,
  store_unavailable: 503,
  issuer_unavailable: 503,
  stopping: 503,
  insufficient_storage: 507,
  timeout: 504,
};

/** When each status is answered: rendered into the OpenAPI document and the docs. */
export const WHEN: Record<ErrorCode, string> = {
  bad_request: 'bad arguments; the message says which, and the fix',
  unauthorized:
    'no bearer token, or the wrong one (an OAuth access token expired, for another server or not from OAUTH_ISSUER)',
  forbidden:
    'a write to a library the caller may not write, a secret this page may not receive, a workspace the token may not use, or an OAuth scope it lacks',
  not_found: 'no such browser (ended or reaped), element, flow, file or secret; the message says what to call',
  conflict: 'a person holds the browser, a stale If-Match, or downloads asked of a browser whose Grid keeps none',
  quota_exceeded:
    "a quota is reached: the workspace's disk (WORKSPACE_DISK_QUOTA), a token's workspaces (WORKSPACES_PER_TOKEN) or a library's flows; the message names the limit and how to free room, and nothing was saved",
  payload_too_large: 'the request body is larger than the server accepts',
  too_many_requests: 'the caller already holds as many browsers as BROWSERS_PER_CALLER allows',
  page_unreachable:
    "the browser could not load the page, or the page breaks the driver's scripts (the reason, Chromium's net::ERR_… or Firefox's error code, is named in the message)",
  grid_unavailable: 'the Selenium Grid refused or is unreachable',
  store_unavailable: 'the shared workspace store (Redis) is unreachable; retry once it is back',
  issuer_unavailable: 'the OAuth issuer (OAUTH_ISSUER) cannot be reached to check a token; retry once it answers',
  stopping:
    'this replica is stopping (SIGTERM) and takes no new call; call again (Retry-After), and another replica answers',
  insufficient_storage:
    "the server's disk (FLOW_DATA_DIR) is full: nothing was saved and nothing saved before changed; retry once its operator has freed space",
  timeout: 'a bounded wait ran out',
};

export abstract class SeleniumFlowError extends Error {
  abstract readonly code: ErrorCode;
  get status(): number {
    return STATUS_OF[this.code];
  }
}

export class BadRequest extends SeleniumFlowError {
  readonly code = 'bad_request';
}
/** Where in a flow document a refusal points: a line of its YAML, or a path into the parsed document. */
export type FlowPlace = { line: number } | { path: readonly PropertyKey[] };
/** Step n (counted from 1, as refusals say it) of a flow document. */
export function stepAt(n: number): FlowPlace {
  return { path: ['steps', n - 1] };
}
/**
 * A flow document refused at a place in it, carried as data: the admin page marks that line,
 * and nothing reads the place back out of the message.
 */
export class InvalidFlow extends BadRequest {
  constructor(
    message: string,
    readonly at?: FlowPlace,
  ) {
    super(message);
  }
}
export class Unauthorized extends SeleniumFlowError {
  readonly code = 'unauthorized';
}
export class Forbidden extends SeleniumFlowError {
  readonly code = 'forbidden';
}
/**
 * An OAuth access token without the scope a route needs (RFC 6750 §3.1): the 403 names it in
 * its WWW-Authenticate, so a client can sign in again asking for it.
 */
export class InsufficientScope extends Forbidden {
  constructor(
    readonly scope: string,
    message: string,
  ) {
    super(message);
  }
}
export class NotFound extends SeleniumFlowError {
  readonly code = 'not_found';
}
export class Conflict extends SeleniumFlowError {
  readonly code = 'conflict';
}
/** A person holds this workspace's browser in the live view (seed 004): a 409 naming await_control. */
export class Controlled extends Conflict {}

/**
 * How a Grid's operator turns managed downloads on, in each way a Grid is configured: every
 * refusal and report of them says it (doctor too).
 */
export const MANAGED_DOWNLOADS_SWITCH =
  'start its nodes with --enable-managed-downloads true (enable-managed-downloads = true under [node] in a TOML config, SE_NODE_ENABLE_MANAGED_DOWNLOADS=true in docker-selenium)';

/** What a downloads listing says, and a read or keep of one refuses with, where the Grid keeps none. */
export const DOWNLOADS_OFF = `This browser's Grid does not offer managed downloads, so its downloads cannot be listed, read or kept; to have them, ${MANAGED_DOWNLOADS_SWITCH}, then call open_session for a new browser.`;

/** A download asked of a browser whose Grid node keeps none (a stock node: managed downloads are off by default). */
export class DownloadsOff extends Conflict {
  constructor() {
    super(DOWNLOADS_OFF);
  }
}
/**
 * A quota of the caller's is reached (disk per workspace, workspaces per token, flows per library):
 * a 409, since the caller can resolve the conflict itself (free room) and call again, unlike a 413,
 * which says the request itself is too large, whatever the state.
 */
export class QuotaExceeded extends SeleniumFlowError {
  readonly code = 'quota_exceeded';
}
export class PayloadTooLarge extends SeleniumFlowError {
  readonly code = 'payload_too_large';
}
export class TooManyRequests extends SeleniumFlowError {
  readonly code = 'too_many_requests';
}
/** The page's site did not answer the browser: the server and the browser are fine. */
export class PageUnreachable extends SeleniumFlowError {
  readonly code = 'page_unreachable';
}
export class GridUnavailable extends SeleniumFlowError {
  readonly code = 'grid_unavailable';
}
/** The shared workspace store (Redis) cannot be reached; the Grid and the browsers may be fine. */
export class StoreUnavailable extends SeleniumFlowError {
  readonly code = 'store_unavailable';
}
/** OAUTH_ISSUER's metadata, keys or introspection cannot be reached: no token can be checked now. */
export class IssuerUnavailable extends SeleniumFlowError {
  readonly code = 'issuer_unavailable';
}
/** This replica is stopping: a 503 with Retry-After, so a client (or its load balancer) goes to another. */
export class Stopping extends SeleniumFlowError {
  readonly code = 'stopping';
}
/** The disk under FLOW_DATA_DIR is full (ENOSPC, EDQUOT): nothing was written, nothing before was touched. */
export class InsufficientStorage extends SeleniumFlowError {
  readonly code = 'insufficient_storage';
}
export class TimedOut extends SeleniumFlowError {
  readonly code = 'timeout';
}

/** What every surface sends for an error: `{"error": {"code", "message"}}`. */
export interface ErrorBody {
  /** `line`: the 1-based line of a refused document (a flow's YAML) the error points at */
  error: { code: ErrorCode | 'internal'; message: string; line?: number };
}

export function errorBody(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof SeleniumFlowError) {
    const at = 'line' in error && typeof error.line === 'number' ? { line: error.line } : {};
    return { status: error.status, body: { error: { code: error.code, message: error.message, ...at } } };
  }
  return {
    status: 500,
    body: { error: { code: 'internal', message: 'Internal error; this is a bug in selenium-flow, please report it.' } },
  };
}
