import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Socket } from 'node:net';
import { BadRequest, errorBody, InsufficientScope, PayloadTooLarge, SeleniumFlowError } from '../../errors.js';
import { global } from './global.js';
import { returnRequestId } from './request-log.js';

/**
 * A client that opens a connection and sends half a request holds a socket and its memory for as
 * long as the server waits (Node's own defaults: a minute for the headers, five for the request,
 * looked at every 30 s). Real clients send their headers in milliseconds: past HEADERS_TIMEOUT_MS
 * the server answers 408 and closes. A body (an upload of up to MAX_BODY_BYTES) gets longer.
 * Neither bounds an answer: a long poll or a stream, once its request is in, is the route's business.
 */
export const HEADERS_TIMEOUT_MS = 5_000;

export interface ErrorOptions {
  maxBodyBytes: number;
  routePrefix?: string;
}

/**
 * The one place a failure becomes an answer: a typed error (src/errors.ts) its status and
 * `{"error": {code, message}}`, Fastify's own refusals in the same words, anything else a 500
 * whose log line names its class but never its message.
 */
export const errors = global<ErrorOptions>(async (app, options) => {
  app.setErrorHandler((err, _request, reply) => sendError(reply, fromFastifyError(err, options.maxBodyBytes), app));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: {
        code: 'not_found',
        message: `No route ${request.method} ${request.url.split('?')[0]}; see ${options.routePrefix ?? ''}/openapi.json for the routes.`,
      },
    }),
  );
});

/** The refusals that happen before any plugin runs (the router's, Node's), in the same shape: Fastify options. */
export function frameworkErrors(
  maxBodyBytes: number,
): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  return {
    // The router's own refusals (a malformed %-escape) and Node's (headers too large) in the shared error shape.
    frameworkErrors: (err, request, untypedReply) => {
      const { status, body } = errorBody(fromFastifyError(err, maxBodyBytes));
      const reply = untypedReply as FastifyReply;
      returnRequestId(request, reply);
      void reply.code(status).send(body);
    },
    clientErrorHandler: refuseMalformedRequest,
  };
}

/** Fastify's own failures (body too large, bad JSON) in our catalogue's words. */
function fromFastifyError(err: unknown, maxBodyBytes: number): unknown {
  const code = fieldOf(err, 'code');
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new PayloadTooLarge(
      `The request body is larger than ${maxBodyBytes} bytes (MAX_BODY_BYTES); send less (a file saved in the workspace goes by its workspace:// uri).`,
    );
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new BadRequest('Send the arguments as JSON with Content-Type: application/json.');
  }
  if (code === 'FST_ERR_BAD_URL') {
    return new BadRequest('The URL has a malformed %-escape; percent-encode names in the path (encodeURIComponent).');
  }
  if (
    code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    err instanceof SyntaxError
  ) {
    return new BadRequest('The body is not valid JSON; send the arguments as a JSON object.');
  }
  // Any other request Fastify itself refuses is the caller's to fix, never a 500.
  const status = fieldOf(err, 'statusCode');
  if (typeof status === 'number' && status >= 400 && status < 500 && !(err instanceof SeleniumFlowError)) {
    return new BadRequest(
      `The request was refused (HTTP ${status}); check the method, headers and body against /openapi.json.`,
    );
  }
  return err;
}

/** A field of whatever was thrown, when it is an object that has one. */
function fieldOf(err: unknown, field: string): unknown {
  return typeof err === 'object' && err !== null && field in err ? Reflect.get(err, field) : undefined;
}

/** A request Node could not even parse: answered on the socket, in the shared error shape. */
function refuseMalformedRequest(err: { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, error] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          '431 Request Header Fields Too Large',
          {
            code: 'payload_too_large',
            message:
              'The request line or headers are too large; send a shorter URL (arguments go in the body) and fewer headers.',
          },
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            '408 Request Timeout',
            {
              code: 'request_timeout',
              message: `The request did not arrive in time (its headers within ${HEADERS_TIMEOUT_MS / 1000} s); send the whole request at once.`,
            },
          ]
        : [
            '400 Bad Request',
            { code: 'bad_request', message: 'The request is not valid HTTP; check the request line and headers.' },
          ];
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function sendError(reply: FastifyReply, err: unknown, app: FastifyInstance) {
  const { status, body } = errorBody(err);
  if (status === 500) {
    app.log.error({ err: errorSummary(err) }, 'unexpected error');
  }
  if (status === 401 || err instanceof InsufficientScope) {
    void reply.header('www-authenticate', challengeOf(reply.request, err));
  }
  return reply.code(status).send(body);
}

/**
 * RFC 6750 §3: the scheme a client should answer with. With OAUTH_ISSUER it also says where the
 * issuer is found (RFC 9728 §5.1) and the scope the route needs, so an MCP client can sign in
 * from the 401 alone, or again with more scope from the 403.
 */
function challengeOf(request: FastifyRequest, err: unknown): string {
  const parts = ['realm="selenium-flow"'];
  const oauth = request.oauthChallenge;
  if (err instanceof InsufficientScope) {
    parts.push('error="insufficient_scope"', `scope="${err.scope}"`);
  } else {
    if (request.headers.authorization !== undefined) {
      parts.push('error="invalid_token"');
    }
    if (oauth) {
      parts.push(`scope="${oauth.scope}"`);
    }
  }
  if (oauth) {
    parts.push(`resource_metadata="${oauth.resourceMetadata}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/**
 * What a log line may say about an unexpected error: its class and the frames of this
 * process's own code, never its message. A driver's message runs over several lines and quotes
 * what the page chose, and a frame of a page's script names the page's URL: a stack's lines
 * are kept only where they locate code on this machine (a path, file: or node:).
 */
export function errorSummary(err: unknown): { type: string; stack?: string } {
  if (err instanceof Error) {
    const frames = (err.stack ?? '').split('\n').filter((line) => OWN_FRAME.test(line));
    return { type: err.name, stack: frames.slice(0, 5).join('\n') };
  }
  return { type: typeof err };
}

const OWN_FRAME = /^ {4}at (?:[\w$.<>[\] ]+ \()?(?:file:\/\/|node:|\/)[^()\s]*\)?$/;
