import { publicBase } from '../config.js';
import { yaml } from '../lazy.js';
import { LICENSE } from '../package.js';
import { REST_CAPABILITIES } from '../capabilities/index.js';
import type { RestCapability } from '../capabilities/capability.js';
import { STATUS_OF, WHEN } from '../errors.js';
import { jsonSchemaOf } from '../capabilities/json-schema.js';
import { answerSchema, bodySchema } from './answer-schema.js';
import { isJsonObject } from '../json.js';
import { PLAIN_ROUTES } from './plain-routes.js';
import type { Access } from './plugins/auth.js';
import { pathParameterNames, type PlainRoute } from './routes.js';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string', description: 'what went wrong, and the fix' },
        line: { type: 'integer', description: 'the line of a refused document (a flow) the error points at' },
      },
    },
  },
};

const WORKSPACE_HEADER = {
  name: 'X-Workspace',
  in: 'header',
  required: false,
  description:
    'Name your workspace to have the server remember its browser (saved mode); without it, pass session_id (stateless mode).',
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
};

function errorResponses(): Record<string, unknown> {
  const when = new Map<string, string>(Object.entries(WHEN));
  // Two codes can share a status (503: the Grid, or the store): the description names both.
  const described = new Map<string, string>();
  for (const [code, status] of Object.entries(STATUS_OF)) {
    const earlier = described.get(String(status));
    described.set(String(status), earlier ? `${earlier}; or ${when.get(code)}` : (when.get(code) ?? code));
  }
  return Object.fromEntries(
    [...described].map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
}

function operationOf(capability: RestCapability): Record<string, unknown> {
  const input = jsonSchemaOf(capability.input, 'input');
  const properties = isJsonObject(input.properties) ? input.properties : {};
  const inPath = pathParameterNames(capability.http.path);
  const { method, bodyArgument, ifMatchArgument } = capability.http;
  const inQuery =
    method === 'GET' || method === 'DELETE'
      ? Object.keys(properties).filter((p) => !inPath.includes(p) && p !== ifMatchArgument)
      : [];
  const parameters = [
    WORKSPACE_HEADER,
    ...inPath.map((name) => ({ name, in: 'path', required: true, schema: properties[name] })),
    ...inQuery.map((name) => ({ name, in: 'query', required: false, schema: properties[name] })),
    ...(ifMatchArgument
      ? [
          {
            name: 'If-Match',
            in: 'header',
            required: false,
            description: 'the revision you read; a stale one is a 409',
            schema: { type: 'string' },
          },
        ]
      : []),
  ];
  const operation: Record<string, unknown> = {
    operationId: capability.name,
    summary: capability.title,
    description: capability.description,
    'x-mcp-tool': capability.name,
    tags: [capability.attach === 'none' ? 'workspace' : 'browser'],
    parameters,
    responses: {
      '200': {
        description: 'the result',
        content: { 'application/json': { schema: jsonSchemaOf(capability.output, 'output') } },
      },
      ...errorResponses(),
    },
  };
  if (bodyArgument) {
    const schema = properties[bodyArgument];
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema }, 'application/yaml': { schema } },
    };
  } else if (method === 'POST') {
    operation.requestBody = { required: true, content: { 'application/json': { schema: input } } };
  } else if (method === 'DELETE' && inQuery.length > 0) {
    operation.requestBody = {
      required: false,
      description: 'the query parameters, as a JSON object instead (each argument in one of the two)',
      content: { 'application/json': { schema: input } },
    };
  }
  return operation;
}

const SECURITY_OF: Record<Access, unknown[] | undefined> = {
  bearer: undefined, // the document's default
  public: [],
  signed: [],
  admin: [{ admin: [] }],
};

function answerOf(answers: PlainRoute['answers']): Record<string, unknown> {
  if (typeof answers === 'object') {
    return { 'application/json': { schema: answerSchema(answers) } };
  }
  if (answers === 'json') {
    return { 'application/json': { schema: { type: 'object' } } };
  }
  if (answers === 'file') {
    return { '*/*': { schema: { type: 'string', format: 'binary' } } };
  }
  if (answers === 'yaml') {
    return { 'application/yaml': { schema: { type: 'string' } } };
  }
  if (answers === 'text') {
    return { 'text/plain': { schema: { type: 'string' } } };
  }
  if (answers === 'events') {
    return { 'text/event-stream': { schema: { type: 'string', description: 'server-sent events' } } };
  }
  return { 'text/html': { schema: { type: 'string' } } };
}

/** `GET /files/{name}` → `getFilesName`: unique, since method and path are. */
function operationIdOf(route: PlainRoute): string {
  // `/` and `/admin/` (the page, beside the `/admin` redirect) name themselves `…Index`.
  const words = route.path
    .replace(/\/$/, '/index')
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase());
  return `${route.method.toLowerCase()}${words}`;
}

function routeOperation(route: PlainRoute): Record<string, unknown> {
  const inPath = pathParameterNames(route.path);
  const security = SECURITY_OF[route.access];
  return {
    operationId: operationIdOf(route),
    summary: route.summary,
    tags: [route.tag],
    ...(security ? { security } : {}),
    parameters: [
      ...(route.tag === 'files' && route.access === 'bearer' ? [WORKSPACE_HEADER] : []),
      ...inPath.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...Object.entries(route.query ?? {}).map(([name, description]) => ({
        name,
        in: 'query',
        required: !description.startsWith('optional'),
        description,
        schema: { type: 'string' },
      })),
      ...Object.entries(route.headers ?? {}).map(([name, description]) => ({
        name,
        in: 'header',
        required: false,
        description,
        schema: { type: 'string' },
      })),
    ],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content:
              route.body === 'yaml'
                ? { 'application/yaml': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } }
                : { 'application/json': { schema: bodySchema(route.body) } },
          },
        }
      : {}),
    responses: {
      ...(route.answers === 'redirect'
        ? { '302': { description: 'to the admin page', headers: { Location: { schema: { type: 'string' } } } } }
        : { '200': { description: 'the result', content: answerOf(route.answers) } }),
      ...errorResponses(),
    },
  };
}

/** Where this server is reached: PUBLIC_URL and ROUTE_PREFIX, the settings its links are made of. */
export interface ServedAt {
  publicUrl?: string;
  routePrefix?: string;
}

/** The OpenAPI 3.1 document, rendered from the capability table, the plain routes and the error catalogue. */
export function openApiDocument(version: string, servedAt: ServedAt = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const capability of REST_CAPABILITIES) {
    paths[capability.http.path] = {
      ...paths[capability.http.path],
      [capability.http.method.toLowerCase()]: operationOf(capability),
    };
  }
  for (const route of PLAIN_ROUTES) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: routeOperation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'selenium-flow',
      version,
      description:
        'Drive real browsers on a Selenium Grid. An operation with x-mcp-tool is also the MCP tool of that name; the others are health checks, this description, the workspace file tree, signed links and the admin API.',
      license: { name: LICENSE, identifier: LICENSE },
    },
    servers: [serverOf(servedAt)],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'MCP_AUTH_TOKEN, when the server has one' },
        admin: {
          type: 'http',
          scheme: 'bearer',
          description:
            "ADMIN_TOKEN (the bearer token when unset); with no token at all, the session POST /admin/api/session gives for the banner's one-time admin link",
        },
      },
    },
  };
}

export function openApiYaml(version: string, servedAt: ServedAt = {}): string {
  return yaml().stringify(openApiDocument(version, servedAt), { aliasDuplicateObjects: false });
}

/**
 * This server, as its links name it. Without PUBLIC_URL the URL is a path, which a client resolves
 * against the address it fetched this document from: the name it used, not one guessed here.
 */
function serverOf(servedAt: ServedAt): { url: string; description: string } {
  const { publicUrl, routePrefix } = servedAt;
  const url = publicBase({ publicUrl, routePrefix }) || '/';
  const description = publicUrl
    ? 'this server, at PUBLIC_URL'
    : 'this server, at the address this document was fetched from (PUBLIC_URL names one)';
  return {
    url,
    description: routePrefix ? `${description}; ROUTE_PREFIX: every path below is served under it` : description,
  };
}
