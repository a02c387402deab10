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

/** Whether a name a caller gives follows the rule (the stdio workspace's does not: no caller can name it). */
export function isWorkspaceName(name: string): boolean {
  return workspaceName.safeParse(name).success;
}

/** A workspace name from outside, checked; the refusal says the rule, then `remedy`. */
export function checkWorkspaceName(name: string, remedy = 'rename it and call again'): string {
  const parsed = workspaceName.safeParse(name);
  if (!parsed.success) {
    throw new BadRequest(`Invalid workspace name: ${WORKSPACE_NAME_RULE}; ${remedy}.`);
  }
  return parsed.data;
}

/** Whether a name stands for a workspace that may hold files, flows or a record: a named one, or stdio's. */
export function isWorkspaceOrStdio(name: string): boolean {
  return name === STDIO_WORKSPACE || isWorkspaceName(name);
}

/** A name that addresses a workspace's files, flows or record (stdio's too), checked like a caller's. */
export function workspaceOrStdio(name: string): string {
  return name === STDIO_WORKSPACE ? name : checkWorkspaceName(name);
}
