import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { CAPABILITIES, REST_CAPABILITIES } from '../../src/capabilities/index.js';
import { needsApps } from '../../src/mcp/apps.js';
import type { Capability, RestCapability } from '../../src/capabilities/capability.js';
import { jsonSchemaOf } from '../../src/capabilities/json-schema.js';
import { connectMcp, rest, startServer, type McpCaller, type RunningServer } from '../helpers/server.js';

/*
 * Random and boundary arguments for every tool in the capability table, derived from each
 * tool's own JSON Schema (so a tool, an argument or a limit added later is fuzzed without a
 * change here), sent over REST and MCP to a real server on the real Grid. No answer may be a
 * 500 or an MCP internal error, and every REST error has the shared shape.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261203);
const CASES_PER_TOOL = Number(process.env.FUZZ_CASES ?? 3);

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  description?: string;
  additionalProperties?: unknown;
};

/** mulberry32: small, seeded, good enough to pick values. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Values {
  constructor(
    private readonly rng: () => number,
    private readonly site: string,
  ) {}

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rng() * list.length)] as T;
  }

  /** Strings that mean something somewhere: selectors, URLs, URIs, paths, names, and junk. */
  private strings(): string[] {
    return [
      '',
      'a',
      ' ',
      '#email',
      '//button',
      'button[type=submit]',
      `${this.site}/login.html`,
      'http://no-such-host.invalid/',
      'https://127.0.0.1:1/',
      'javascript:alert(1)',
      'workspace://files/screenshots/none.png',
      'workspace://files/x',
      '../../../etc/passwd',
      '/etc/passwd',
      '/tmp',
      'return 1',
      'return document.title',
      'throw new Error("x")',
      'Enter',
      'ArrowDown',
      'n\u0000ul',
      'line\nbreak',
      '😀é中',
      '%zz',
      '${missing}',
      'a'.repeat(300),
      'x'.repeat(20_000),
    ];
  }

  /** A value the schema allows, as far as the schema says (a rule across arguments may still refuse it). */
  valid(schema: Schema): unknown {
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) {
      return this.valid(this.pick(branches));
    }
    if (schema.enum) {
      return this.pick(schema.enum);
    }
    const type = Array.isArray(schema.type) ? this.pick(schema.type) : schema.type;
    switch (type) {
      case 'string': {
        const fits = this.strings().filter(
          (v) => v.length >= (schema.minLength ?? 0) && v.length <= (schema.maxLength ?? Infinity),
        );
        return fits.length > 0 ? this.pick(fits) : 'm'.repeat(schema.minLength ?? 1);
      }
      case 'number':
      case 'integer':
        return this.pick(this.inside(schema, type === 'integer'));
      case 'boolean':
        return this.rng() < 0.5;
      case 'array':
        return Array.from({ length: this.pick([0, 1, 2]) }, () => (schema.items ? this.valid(schema.items) : 'x'));
      case 'object':
        return this.object(schema);
      default:
        return this.pick(this.strings());
    }
  }

  /** A value at or past the schema's bounds, or of another type. */
  mutant(schema: Schema): unknown {
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) {
      return this.mutant(this.pick(branches));
    }
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    const wrongType = [null, 'x', 12, -1, true, [], {}, 1.5];
    const bounds: unknown[] = [];
    if (schema.enum) {
      bounds.push('not-one-of-them', '');
    }
    if (type === 'string') {
      if (schema.maxLength !== undefined) {
        bounds.push('m'.repeat(schema.maxLength), 'm'.repeat(schema.maxLength + 1));
      }
      if ((schema.minLength ?? 0) > 0) {
        bounds.push('m'.repeat((schema.minLength ?? 1) - 1));
      }
      bounds.push('x'.repeat(200_000), 'n\u0000ul', '\ud800');
    }
    if (type === 'number' || type === 'integer') {
      bounds.push((schema.minimum ?? -1e6) - 1, (schema.maximum ?? 1e6) + 1, 1e308, -1e308, 0.5, -0);
    }
    if (type === 'array') {
      bounds.push(
        Array.from({ length: (schema.maxItems ?? 100) + 1 }, () => (schema.items ? this.valid(schema.items) : 'x')),
      );
    }
    if (type === 'object') {
      const properties = Object.keys(schema.properties ?? {});
      bounds.push(Object.fromEntries(properties.map((k) => [k, 'both'])), { unexpected_argument: 1 });
    }
    return this.rng() < 0.75 && bounds.length > 0 ? this.pick(bounds) : this.pick(wrongType);
  }

  private inside(schema: Schema, integer: boolean): number[] {
    // A wait inside its bounds is kept short, so the run stays bounded; its bounds are probed by mutants.
    const duration = /\bseconds\b|\bms\b/.test(schema.description ?? '');
    const min = schema.minimum ?? -1e6;
    const max = schema.maximum ?? 1e6;
    return duration
      ? [min, Math.min(max, min + (integer ? 1 : 0.2))]
      : [min, max, integer ? Math.round((min + max) / 2) : (min + max) / 2];
  }

  /** The required properties and some optional ones, no more than maxProperties. */
  private object(schema: Schema): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const properties = Object.entries(schema.properties ?? {});
    const required = schema.required ?? [];
    for (const [key, property] of properties) {
      if (required.includes(key) || this.rng() < 0.4) {
        out[key] = this.valid(property);
      }
    }
    const max = (schema as { maxProperties?: number }).maxProperties;
    if (max !== undefined) {
      const keys = Object.keys(out);
      for (const key of keys.slice(max)) {
        delete out[key];
      }
      const [first] = properties;
      if (keys.length === 0 && first) {
        out[first[0]] = this.valid(this.pick(properties)[1]);
      }
    }
    if (properties.length === 0 && schema.additionalProperties !== false && this.rng() < 0.5) {
      out[this.pick(['k', 'steps', 'a b'])] = this.pick(this.strings());
    }
    return out;
  }

  /** Every case for one tool: its schema's arguments, valid or with one argument mutated, as a saved-mode caller sends them. */
  casesFor(capability: Capability): Record<string, unknown>[] {
    const schema = jsonSchemaOf(capability.input, 'input') as Schema;
    const cases: Record<string, unknown>[] = [{}];
    for (let i = 0; i < CASES_PER_TOOL; i++) {
      const args = this.object(schema);
      // Saved mode: session_id is refused up front, which would hide everything behind it.
      delete args.session_id;
      const names = Object.keys(schema.properties ?? {}).filter((n) => n !== 'session_id');
      if (i % 2 === 1 && names.length > 0) {
        const name = this.pick(names);
        args[name] = this.mutant(schema.properties?.[name] ?? {});
      } else if (i % 4 === 2) {
        args.unexpected_argument = 1;
      }
      cases.push(args);
    }
    return cases;
  }
}

/** encodeURIComponent, but a lone surrogate (not encodable) becomes U+FFFD as a client's would. */
const encode = (value: string) => encodeURIComponent(Buffer.from(value).toString());

/** The REST request a tool's HTTP rendering makes of these arguments. */
function restRequest(
  capability: RestCapability,
  args: Record<string, unknown>,
): { method: string; path: string; body?: string; headers: Record<string, string> } {
  const { http } = capability;
  const rest = { ...args };
  const path = http.path.replace(/\{(\w+)\}/g, (_m, key: string) => {
    const value = rest[key];
    delete rest[key];
    return encode(typeof value === 'string' && value !== '' ? value : JSON.stringify(value ?? 'x'));
  });
  const headers: Record<string, string> = {};
  if (http.ifMatchArgument && typeof rest[http.ifMatchArgument] === 'string') {
    headers['if-match'] = `"${encode(rest[http.ifMatchArgument] as string)}"`;
    delete rest[http.ifMatchArgument];
  }
  if (http.method === 'GET' || http.method === 'DELETE') {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(rest)) {
      query.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
    const search = query.toString();
    return { method: http.method, path: search ? `${path}?${search}` : path, headers };
  }
  const body = http.bodyArgument ? rest[http.bodyArgument] : rest;
  const text = typeof body === 'string' && http.bodyArgument ? body : JSON.stringify(body ?? {});
  headers['content-type'] = typeof body === 'string' && http.bodyArgument ? 'application/yaml' : 'application/json';
  return { method: http.method, path, body: text, headers };
}

const shaped = (body: unknown) =>
  typeof body === 'object' &&
  body !== null &&
  Object.keys(body).join() === 'error' &&
  typeof (body as { error: { code?: unknown } }).error.code === 'string' &&
  typeof (body as { error: { message?: unknown } }).error.message === 'string';

let running: RunningServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sf-fuzz-'));
  running = await startServer({ FLOW_DATA_DIR: dataDir, CALL_TIMEOUT: '10' });
});
afterAll(async () => {
  await running?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('fuzzing every tool of the capability table', () => {
  it('over REST: never a 500, every error in the shared shape', async () => {
    const values = new Values(random(SEED), inject('siteUrl'));
    const workspace = { 'X-Workspace': 'fuzz-rest' };
    await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/login.html` }, workspace);
    const found: string[] = [];
    let sent = 0;
    for (const capability of REST_CAPABILITIES) {
      for (const args of values.casesFor(capability)) {
        const request = restRequest(capability, args);
        const response = await fetch(running.url + request.path, {
          method: request.method,
          headers: { ...workspace, ...request.headers },
          body: request.body,
        });
        sent++;
        const text = await response.text();
        if (process.env.FUZZ_DEBUG) {
          console.log(capability.name, response.status, text.slice(0, 100));
        }
        const body: unknown = text ? JSON.parse(text) : undefined;
        if (response.status >= 500 && !(response.status > 500 && shaped(body))) {
          found.push(
            `${capability.name} ${JSON.stringify(args).slice(0, 300)} → ${response.status} ${text.slice(0, 200)}`,
          );
        } else if (response.status >= 400 && !shaped(body)) {
          found.push(
            `${capability.name} ${JSON.stringify(args).slice(0, 300)} → ${response.status} not in the shared shape: ${text.slice(0, 200)}`,
          );
        }
      }
    }
    await rest(running.url, '/browser/end-browser', {}, workspace);
    expect(found).toEqual([]);
    expect(sent).toBeGreaterThan(CAPABILITIES.length * CASES_PER_TOOL);
  }, 120_000);

  it('over MCP: never an internal error, never "this is a bug"', async () => {
    const values = new Values(random(SEED + 1), inject('siteUrl'));
    const mcp: McpCaller = await connectMcp(running.url, '2026-07-28', { workspace: 'fuzz-mcp' });
    const found: string[] = [];
    try {
      await mcp.call('navigate', { url: `${inject('siteUrl')}/login.html` });
      // A client without the UI extension does not have the app-only rows (test/unit/apps.test.ts):
      // they are fuzzed over HTTP above.
      for (const capability of CAPABILITIES.filter((c) => !needsApps(c))) {
        for (const args of values.casesFor(capability)) {
          try {
            const answer = await mcp.call(capability.name, args);
            if (answer.isError && /this is a bug/.test(answer.text)) {
              found.push(`${capability.name} ${JSON.stringify(args).slice(0, 300)} → ${answer.text.slice(0, 200)}`);
            }
          } catch (err) {
            const code = (err as { code?: unknown }).code;
            // A protocol error is only for what no argument can fix; an internal one never.
            found.push(
              `${capability.name} ${JSON.stringify(args).slice(0, 300)} → protocol error ${String(code)} ${String((err as Error).message).slice(0, 200)}`,
            );
          }
        }
      }
      await mcp.call('end_browser');
    } finally {
      await mcp.close();
    }
    expect(found).toEqual([]);
  }, 120_000);
});
