import { z } from 'zod';
import { BadRequest } from '../errors.js';

/** Validated, never slugged: a name that needs fixing is the caller's to fix. */
export const WORKSPACE_NAME_RULE =
  'A workspace name is 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit (and not "." or "..")';

export const workspaceName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, `${WORKSPACE_NAME_RULE}.`)
  .refine((name) => name !== '.' && name !== '..', `${WORKSPACE_NAME_RULE}.`);

/** The stdio client's workspace: a name no other caller can produce (it starts with "_"). */
export const STDIO_WORKSPACE = '_stdio';

/** A workspace name from outside, checked; the refusal says the rule. */
export function checkWorkspaceName(name: string): string {
  const parsed = workspaceName.safeParse(name);
  if (!parsed.success) {
    throw new BadRequest(`Invalid workspace name: ${WORKSPACE_NAME_RULE}; rename it and call again.`);
  }
  return parsed.data;
}
