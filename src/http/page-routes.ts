import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../errors.js';
import { UI_ARCHIVE } from '../package.js';
import { readUi } from '../ui-archive.js';
import { pathParams, type PlainRoute } from './routes.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * Scripts and styles from this server only (no CDN, no inline script); inline styles are
 * allowed because the editor sets them. Nothing may frame the page: it holds the admin token.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

/**
 * The built page, read once into memory with its gzip beside it: a dozen small files, so
 * serving them costs a map lookup. A missing build is not cached, so building after the
 * server started works on the next request.
 */
class PageFiles {
  private files: Map<string, Asset> | undefined;

  get(name: string): Asset {
    const file = this.load().get(name);
    if (!file) {
      throw new NotFound(
        `The admin page has no file ${JSON.stringify(name.slice(0, 100))}; reload the page at /admin/.`,
      );
    }
    return file;
  }

  private load(): Map<string, Asset> {
    if (this.files) {
      return this.files;
    }
    const built = [...(readUi(UI_ARCHIVE) ?? [])].filter(([name]) => name.startsWith('ui/'));
    if (!built.some(([name]) => name === 'ui/index.html')) {
      throw new NotFound(
        'The admin page is not built in this install; run `npm run build` (it builds ui/ into dist/ui.br).',
      );
    }
    this.files = new Map(
      built.map(([name, body]) => [
        name.slice('ui/'.length),
        {
          type: TYPES[extname(name)] ?? 'application/octet-stream',
          body,
          gzip: gzipSync(body, { level: 9 }),
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        },
      ]),
    );
    return this.files;
  }
}

const page = new PageFiles();

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset, headers: Record<string, string>) {
  void reply
    .headers(headers)
    .header('content-type', asset.type)
    .header('etag', asset.etag)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === asset.etag) {
    return reply.code(304).send();
  }
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  return gzip ? reply.header('content-encoding', 'gzip').send(asset.gzip) : reply.send(asset.body);
}

/** `/tools/x/` or `/tools/x` → `/tools/x/admin/`: the prefix is whatever the request came in under. */
function redirectToPage(request: FastifyRequest, reply: FastifyReply, from: string) {
  const path = (request.url.split('?')[0] ?? '').replace(/\/+$/, '');
  const base = from === '/' ? path : path.slice(0, -from.length);
  return reply.redirect(`${base}/admin/`, 302);
}

const open = { tag: 'admin', access: 'public', anyQuery: true } as const;

/** The admin page: a static build, public itself (it asks for the token), behind the usual Host and Origin checks. */
export const PAGE_ROUTES: readonly PlainRoute[] = [
  {
    ...open,
    method: 'GET',
    path: '/',
    summary: 'Redirects to the admin page',
    answers: 'redirect',
    handler: async (request, reply) => redirectToPage(request, reply, '/'),
  },
  {
    ...open,
    method: 'GET',
    path: '/admin',
    summary: 'Redirects to the admin page',
    answers: 'redirect',
    handler: async (request, reply) => redirectToPage(request, reply, '/admin'),
  },
  {
    ...open,
    method: 'GET',
    path: '/admin/',
    summary: 'The admin page (sign in with the admin token)',
    answers: 'page',
    // no-cache: it names the hashed scripts of this build, so it is revalidated on every load.
    handler: async (request, reply) =>
      send(request, reply, page.get('index.html'), {
        'cache-control': 'no-cache',
        'content-security-policy': PAGE_CSP,
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      }),
  },
  {
    ...open,
    method: 'GET',
    path: '/admin/assets/{name}',
    summary: "The admin page's scripts and styles (named by their content, so cached for good)",
    answers: 'file',
    handler: async (request, reply) =>
      send(request, reply, page.get(`assets/${pathParams(request).name ?? ''}`), {
        'cache-control': 'public, max-age=31536000, immutable',
      }),
  },
];
