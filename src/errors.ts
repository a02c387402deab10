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
  | 'payload_too_large'
  | 'too_many_requests'
  | 'page_unreachable'
  | 'grid_unavailable'
  | 'store_unavailable'
  | 'timeout';

export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  too_many_requests: 429,
  page_unreachable: 502,
  grid_unavailable: 503,
  store_unavailable: 503,
  timeout: 504,
};

/** When each status is answered: rendered into the OpenAPI document and the docs. */
export const WHEN: Record<ErrorCode, string> = {
  bad_request: 'bad arguments; the message says which, and the fix',
  unauthorized: 'no bearer token, or the wrong one',
  forbidden: 'a write to a library the caller may not write, or a secret this page may not receive',
  not_found: 'no such browser (ended or reaped), element, flow, file or secret; the message says what to call',
  conflict: 'a person holds the browser, or a stale If-Match',
  payload_too_large: 'the request body is larger than the server accepts',
  too_many_requests: 'the caller already holds as many browsers as BROWSERS_PER_CALLER allows',
  page_unreachable:
    "the browser could not load the page, or the page breaks the driver's scripts (the reason, Chromium's net::ERR_… or Firefox's error code, is named in the message)",
  grid_unavailable: 'the Selenium Grid refused or is unreachable',
  store_unavailable: 'the shared workspace store (Redis) is unreachable; retry once it is back',
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
export class Unauthorized extends SeleniumFlowError {
  readonly code = 'unauthorized';
}
export class Forbidden extends SeleniumFlowError {
  readonly code = 'forbidden';
}
export class NotFound extends SeleniumFlowError {
  readonly code = 'not_found';
}
export class Conflict extends SeleniumFlowError {
  readonly code = 'conflict';
}
/** A person holds this workspace's browser in the live view (seed 004): a 409 naming await_control. */
export class Controlled extends Conflict {}
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
