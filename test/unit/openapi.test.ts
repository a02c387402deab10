import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { createServer } from '../../src/server.js';

describe('the OpenAPI document', () => {
  it("names the package's licence", () => {
    const { license } = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string };
    expect(openApiDocument('1').info).toMatchObject({ license: { name: license, identifier: license } });
  });

  it('names this server where its links do: PUBLIC_URL and ROUTE_PREFIX, else a path on the address it was fetched from', () => {
    const urls = (servedAt: { publicUrl?: string; routePrefix?: string }) =>
      (openApiDocument('1', servedAt).servers as { url: string }[]).map((s) => s.url);
    expect(urls({})).toEqual(['/']);
    expect(urls({ routePrefix: '/tools/selenium' })).toEqual(['/tools/selenium']);
    expect(urls({ publicUrl: 'https://agents.example.com/' })).toEqual(['https://agents.example.com']);
    expect(urls({ publicUrl: 'https://agents.example.com', routePrefix: '/tools/selenium' })).toEqual([
      'https://agents.example.com/tools/selenium',
    ]);
  });

  it('is served with the configured PUBLIC_URL and ROUTE_PREFIX', async () => {
    const config = loadConfig(
      {},
      { LOG_LEVEL: 'silent', PUBLIC_URL: 'https://agents.example.com', ROUTE_PREFIX: '/tools/selenium' },
    );
    // No Grid: the document is rendered from the table alone.
    const server = createServer(config, 'http://127.0.0.1:9');
    try {
      const answer = await server.app.inject({ url: '/tools/selenium/openapi.json' });
      expect(answer.json<{ servers: unknown }>().servers).toEqual([
        expect.objectContaining({ url: 'https://agents.example.com/tools/selenium' }),
      ]);
    } finally {
      await server.close();
    }
  });
});
