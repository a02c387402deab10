import { expect } from 'vitest';
import { capabilityNamed } from '../../src/capabilities/index.js';

type Answer = Record<string, unknown>;

export interface ToolAnswer {
  status: number;
  body: Answer;
}

/** A tool called over REST by its name, at the route its row renders: what an HTTP client of the API does. */
export interface ToolClient {
  /** the tool's answer, whatever its status */
  call: (tool: string, args?: unknown) => Promise<ToolAnswer>;
  /** the answer of a call that must succeed; a failure shows what the server said */
  ok: (tool: string, args?: Answer) => Promise<Answer>;
  /** the same client calling in another workspace (undefined: a stateless caller) */
  in: (workspace: string | undefined) => ToolClient;
  /** the same client sending these headers too */
  with: (headers: Record<string, string>) => ToolClient;
}

export interface ToolClientOptions {
  /** sent as X-Workspace; none: a stateless caller */
  workspace?: string;
  headers?: Record<string, string>;
  /** sees every answer (a file that asserts over all statuses it saw) */
  onAnswer?: (answer: ToolAnswer & { tool: string }) => void;
}

/** `base` may be a function: a file's server starts in beforeAll, after its client is made. */
export function toolClient(base: string | (() => string), options: ToolClientOptions = {}): ToolClient {
  const call = async (tool: string, args: unknown = {}): Promise<ToolAnswer> => {
    const request = toolRequest(tool, args);
    const headers: Record<string, string> = { ...request.headers, ...options.headers };
    if (options.workspace !== undefined) {
      headers['x-workspace'] = options.workspace;
    }
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
    }
    const response = await fetch((typeof base === 'string' ? base : base()) + request.path, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    const text = await response.text();
    const answer = { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Answer };
    options.onAnswer?.({ ...answer, tool });
    return answer;
  };
  return {
    call,
    ok: async (tool, args = {}) => {
      const answer = await call(tool, args);
      expect(answer.status, `${tool} ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body;
    },
    in: (workspace) => toolClient(base, { ...options, workspace }),
    with: (headers) => toolClient(base, { ...options, headers: { ...options.headers, ...headers } }),
  };
}

/**
 * A tool's REST request as its row's `http` says: path arguments in the path, a GET's or a
 * DELETE's in the query, the body argument as the body, the revision as If-Match, the rest as
 * a JSON object. Arguments that are not an object (a bad-input test's) go as the body unchanged.
 */
export function toolRequest(
  tool: string,
  args: unknown,
): { method: string; path: string; headers: Record<string, string>; body?: unknown } {
  const http = capabilityNamed(tool)?.http;
  if (!http) {
    throw new Error(`No tool ${tool} in the capability table.`);
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return { method: http.method, path: http.path, headers: {}, body: args };
  }
  const rest: Answer = { ...(args as Answer) };
  const path = http.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const headers: Record<string, string> = {};
  if (http.ifMatchArgument && rest[http.ifMatchArgument] !== undefined) {
    headers['if-match'] = `"${String(rest[http.ifMatchArgument])}"`;
    delete rest[http.ifMatchArgument];
  }
  if (http.method === 'GET' || http.method === 'DELETE') {
    const query = new URLSearchParams(Object.entries(rest).map(([k, v]) => [k, String(v)])).toString();
    return { method: http.method, path: query ? `${path}?${query}` : path, headers };
  }
  if (http.bodyArgument) {
    return { method: http.method, path, headers, body: rest[http.bodyArgument] };
  }
  return { method: http.method, path, headers, body: rest };
}
