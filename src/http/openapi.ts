import { stringify } from 'yaml';
import { CAPABILITIES } from '../capabilities/index.js';
import type { Capability } from '../capabilities/define.js';
import { STATUS_OF, WHEN, type ErrorCode } from '../errors.js';
import { jsonSchemaOf } from '../capabilities/json-schema.js';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string', description: 'what went wrong, and the fix' } },
    },
  },
};

const WORKSPACE_HEADER = {
  name: 'X-Workspace',
  in: 'header',
  required: false,
  description: 'Name your workspace to have the server remember its browser (saved mode); without it, pass session_id (stateless mode).',
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
};

function errorResponses(): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const code of Object.keys(STATUS_OF) as ErrorCode[]) {
    responses[String(STATUS_OF[code])] = {
      description: WHEN[code],
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

function operationOf(capability: Capability): Record<string, unknown> {
  const operation: Record<string, unknown> = {
    operationId: capability.name,
    summary: capability.title,
    description: capability.description,
    'x-mcp-tool': capability.name,
    tags: [capability.browser === 'none' ? 'workspace' : 'browser'],
    parameters: [WORKSPACE_HEADER],
    responses: {
      '200': { description: 'the result', content: { 'application/json': { schema: jsonSchemaOf(capability.output, 'output') } } },
      ...errorResponses(),
    },
  };
  if (capability.http.method === 'POST') {
    operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchemaOf(capability.input, 'input') } } };
  }
  return operation;
}

/** The OpenAPI 3.1 document, rendered from the capability table and the error catalogue. */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const capability of CAPABILITIES) {
    paths[capability.http.path] = { ...paths[capability.http.path], [capability.http.method.toLowerCase()]: operationOf(capability) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'selenium-flow',
      version,
      description: 'Drive real browsers on a Selenium Grid. Every operation is also an MCP tool of the same name (x-mcp-tool).',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'MCP_AUTH_TOKEN, when the server has one' } },
    },
  };
}

export function openApiYaml(version: string): string {
  return stringify(openApiDocument(version), { aliasDuplicateObjects: false });
}
