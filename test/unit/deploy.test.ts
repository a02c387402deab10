import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// docker is not runnable on the test machines: these check what a person running
// `docker compose up` relies on, as far as reading the files can.
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: unknown;
}

describe('docker-compose.yaml', () => {
  const compose = parse(read('docker-compose.yaml'), { merge: true }) as { services: Record<string, Service> };
  const services = compose.services;

  it('has a Grid hub and a Chrome node on its event bus, pointing clients at the hub', () => {
    expect(services['selenium-hub']?.image).toMatch(/^selenium\/hub:/);
    const chrome = services.chrome;
    expect(chrome?.image).toMatch(/^selenium\/node-chrome:/);
    expect(chrome?.environment).toMatchObject({
      SE_EVENT_BUS_HOST: 'selenium-hub',
      SE_NODE_GRID_URL: 'http://selenium-hub:4444',
    });
  });

  it('runs two replicas on the hub and one Redis, with the same settings', () => {
    const replicas = ['selenium-flow-a', 'selenium-flow-b'].map((name) => services[name]);
    expect(services.redis?.image).toMatch(/^redis:7/);
    for (const replica of replicas) {
      expect(replica?.build).toBe('.');
      expect(replica?.environment).toMatchObject({
        GRID_URL: 'http://selenium-hub:4444',
        SESSION_STORE: 'redis',
        HOST: '0.0.0.0',
      });
      expect(replica?.environment?.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD[^}]*\}@redis:6379/);
      expect(replica?.environment?.MCP_AUTH_TOKEN).toMatch(/^\$\{MCP_AUTH_TOKEN/);
    }
    expect(replicas[0]?.environment).toEqual(replicas[1]?.environment);
  });

  it('puts a proxy in front of both replicas, without buffering streamed MCP answers', () => {
    const proxy = services.proxy;
    expect(proxy?.image).toMatch(/^nginx:/);
    expect(proxy?.volumes?.[0]).toMatch(/^\.\/docker\/nginx\.conf:/);
    const nginx = read('docker/nginx.conf');
    expect(nginx).toContain('server selenium-flow-a:8080;');
    expect(nginx).toContain('server selenium-flow-b:8080;');
    expect(nginx).toContain('proxy_buffering off;');
  });
});

describe('Dockerfile', () => {
  it('builds on node:20-slim and runs as a non-root user', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile.match(/^FROM node:20-slim/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/cli\.js", "serve"\]$/m);
  });
});
