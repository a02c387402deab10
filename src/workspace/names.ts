import { z } from 'zod';

/** Validated, never slugged: a name that needs fixing is the caller's to fix. */
export const WORKSPACE_NAME_RULE =
  'A workspace name is 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit (and not "." or "..")';

export const workspaceName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, `${WORKSPACE_NAME_RULE}.`)
  .refine((name) => name !== '.' && name !== '..', `${WORKSPACE_NAME_RULE}.`);
