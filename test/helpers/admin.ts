import type { z } from 'zod';

/** A client of the admin API and the agent REST surface of one server, for tests. */
export interface AdminClient {
  /** an admin call: the parsed JSON body (validated against `shape` on a 200) and the status */
  admin<T>(
    method: string,
    path: string,
    options?: { shape?: z.ZodType<T>; body?: unknown; yaml?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: T; headers: Headers; text: string }>;
  /** an agent's REST call in a named workspace (a tool's POST) */
  agent(
    workspace: string,
    path: string,
    body?: unknown,
    method?: string,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** every answer text the admin client received, for a test that greps them all */
  readonly seen: string[];
}

export function adminClient(base: string, adminToken: string, bearerToken: string): AdminClient {
  const seen: string[] = [];
  return {
    seen,
    admin: async (method, path, options = {}) => {
      const headers: Record<string, string> = { authorization: `Bearer ${adminToken}`, ...options.headers };
      let body: string | undefined;
      if (options.yaml !== undefined) {
        headers['content-type'] = 'application/yaml';
        body = options.yaml;
      } else if (options.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.body);
      }
      const response = await fetch(base + path, { method, headers, body });
      const text = await response.text();
      seen.push(text);
      const parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
      if (response.status === 200 && options.shape) {
        const checked = options.shape.safeParse(parsed);
        if (!checked.success) {
          throw new Error(`${method} ${path} answered outside its schema: ${checked.error.message}`);
        }
        return { status: 200, body: checked.data, headers: response.headers, text };
      }
      return { status: response.status, body: parsed as never, headers: response.headers, text };
    },
    agent: async (workspace, path, body = {}, method = 'POST') => {
      const response = await fetch(base + path, {
        method,
        headers: {
          authorization: `Bearer ${bearerToken}`,
          'x-workspace': workspace,
          ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
        },
        body: method === 'GET' ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  };
}

/** The error message of an error answer. */
export function messageOf(body: unknown): string {
  return (body as { error?: { message?: string } }).error?.message ?? '';
}
