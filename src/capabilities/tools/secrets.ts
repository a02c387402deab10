import { z } from 'zod';
import { isKeyName, isSecretName, SECRET_KEY_RULE, SECRET_NAME_RULE } from '../../secrets/names.js';
import { secretListing } from '../../secrets/catalogue.js';
import { defineTool } from '../capability.js';

/** write's `secret`: a name and a key, two fields — keys hold dots (tls.crt), so "name.key" cannot split. */
export const secretArgument = z
  .strictObject({
    name: z.string().max(253).refine(isSecretName, `${SECRET_NAME_RULE}; copy it from list_secrets`),
    key: z.string().max(253).refine(isKeyName, `${SECRET_KEY_RULE}; copy it from list_secrets`),
  })
  .describe('from list_secrets');

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
  output: secretListing,
  handler: async (_args, { secrets }) => secrets.list(),
});

export default [listSecrets];
