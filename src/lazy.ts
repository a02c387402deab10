import { createRequire } from 'node:module';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type * as Fflate from 'fflate';
import type * as Pino from 'pino';
import type * as Pngjs from 'pngjs';
import type * as PromClient from 'prom-client';
import type * as Re2js from 're2js';
import type WebSocket from 'ws';
import type { WebSocketServer } from 'ws';
import type * as Yaml from 'yaml';

// Packages loaded at their first use, not at boot: the one place they are loaded (their types are
// imported as types, anywhere). A cold start (issue 17: spawn → tools/list over stdio) needs none
// of them, and loading them was ~180 ms of it on Node 20: yaml (a config, tokens or flow file is
// read), pino (the first log line), prom-client (the first counted call), ws (a hung browser's
// DevTools socket; the live view's first viewer, ~16 ms of `serve`'s start), Ajv and RE2 (a
// flow's parameters), pngjs (a screenshot crop), fflate (a download). selenium-webdriver has its
// own door, browser/webdriver.ts. Each is CommonJS or has a CommonJS build: `require` is
// synchronous and cached, so a call site stays a plain function call.
// Measured with `npm run bench:cold`; docs/performance.md has the breakdown.
const load = createRequire(import.meta.url);

/** `require` answers `any`: each package is typed once, here, by the type it is imported as. */
function lazily<T>(id: string): () => T {
  return () => load(id) as T;
}

export const yaml = lazily<typeof Yaml>('yaml');

export const pino = lazily<typeof Pino>('pino');

export const promClient = lazily<typeof PromClient>('prom-client');

export const webSocket = lazily<typeof WebSocket>('ws');

const ws = lazily<{ WebSocketServer: typeof WebSocketServer }>('ws');

/** ws's server side, for the live view's viewers. */
export const webSocketServer = () => ws().WebSocketServer;

export const ajv2020 = lazily<typeof Ajv2020Module>('ajv/dist/2020.js');

export const re2js = lazily<typeof Re2js>('re2js');

export const pngjs = lazily<typeof Pngjs>('pngjs');

export const fflate = lazily<typeof Fflate>('fflate');

/** jose is ESM only: imported, not required, at the first OAuth access token (OAUTH_ISSUER). */
export const jose = () => import('jose');
