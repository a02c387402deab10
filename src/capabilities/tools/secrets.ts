import { z } from 'zod';
import { isKeyName, isSecretName, SECRET_KEY_RULE, SECRET_NAME_RULE } from '../../secrets/names.js';
import { defineTool } from '../capability.js';

/** write's `secret`: a name and a key, two fields — keys hold dots (tls.crt), so "name.key" cannot split. */
export const secretArgument = z
  .strictObject({
    name: z.string().max(253).refine(isSecretName, `${SECRET_NAME_RULE}; copy it from list_secrets`),
    key: z.string().max(253).refine(isKeyName, `${SECRET_KEY_RULE}; copy it from list_secrets`),
  })
  .describe('from list_secrets');

const rejectedLine = z.object({
  line: z.number().int().describe('the line number in the declaration'),
  reason: z.string(),
});

export const secretEntry = z.object({
  name: z.string(),
  keys: z.array(z.string()).describe('what write can type: {name, key}'),
  description: z.string().nullable(),
  allowed_urls: z.array(z.string()).describe('the origins it may be typed on (scheme://host:port, exact)'),
  restricted: z.boolean().describe('false: its owner declared no allowed URLs, so it may be typed on any page'),
  usable: z.boolean(),
  problem: z.string().optional().describe('why it cannot be used, and who fixes it'),
  allowed_urls_rejected: z
    .array(rejectedLine)
    .optional()
    .describe('declaration lines refused (by number: a line is never quoted)'),
  source: z.enum(['filesystem', 'kubernetes']),
  location: z.string().describe('the directory, or namespace/name, it comes from'),
  workspace: z.string().nullable().describe('the one workspace it is scoped to; null: every workspace'),
  shadows: z
    .array(z.object({ source: z.enum(['filesystem', 'kubernetes']), location: z.string() }))
    .optional()
    .describe('same-named secrets later in the search order, hidden by this one'),
});

export const listSecrets = defineTool({
  name: 'list_secrets',
  title: 'List secrets',
  description: 'Mirror of secret://secrets: what write may type. No values.',
  kind: 'read',
  attach: 'none',
  runnableInFlow: false,
  mirrors: {
    uri: 'secret://secrets',
    name: 'secrets',
    title: 'Secrets',
    description:
      'The secrets this workspace may type with write {selector, secret: {name, key}}: names, keys, descriptions, where each may be used. Never a value.',
  },
  answersUnderControl: true,
  http: { method: 'GET', path: '/secrets' },
  input: z.object({}),
  output: z.object({
    secrets: z.array(secretEntry),
    sources: z
      .array(
        z.object({
          source: z.enum(['filesystem', 'kubernetes']),
          location: z.string(),
          problem: z.string().optional(),
        }),
      )
      .describe('where secrets are looked for, in order; problem: why one answered nothing'),
  }),
  handler: async (_args, { secrets }) => secrets.list(),
});

export default [listSecrets];
