import type { z } from 'zod';
import { BadRequest } from '../../errors.js';
import type { Caller } from '../../workspace/caller.js';
import type { Capability } from '../capability.js';
import { issueSentence, keyName } from '../issues.js';
import { valueAt } from '../schemas.js';

/** Rejects, never repairs: an argument dropped silently is an instruction ignored silently. */
export function parseArguments(capability: Capability, rawArgs: unknown): Record<string, unknown> {
  const parsed = capability.input.safeParse(rawArgs ?? {});
  if (parsed.success) {
    refuseLoneSurrogates(parsed.data, capability.name);
    return parsed.data;
  }
  throw new BadRequest(describeIssue(capability, parsed.error.issues[0], rawArgs));
}

function describeIssue(capability: Capability, issue: z.core.$ZodIssue | undefined, rawArgs: unknown): string {
  const known = Object.keys(capability.input.shape).join(', ') || 'none';
  if (!issue) {
    return `Invalid arguments for ${capability.name}.`;
  }
  const where = issue.path.length > 0 ? issue.path.join('.') : '';
  if (issue.code === 'unrecognized_keys' && where === '' && issue.keys.includes('secret') && capability.secretRefusal) {
    return capability.secretRefusal;
  }
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map(keyName).join(', ');
    const scope = where ? ` in ${where}` : '';
    return `Unknown argument ${keys}${scope} for ${capability.name}; its arguments are: ${known}.`;
  }
  if (where !== '' && issue.code !== 'custom' && valueAt(rawArgs, issue.path) === undefined) {
    return `Missing argument ${where} for ${capability.name}; its arguments are: ${known}.`;
  }
  if (issue.code === 'invalid_type' && where === '') {
    return `The arguments of ${capability.name} must be a JSON object; its arguments are: ${known}.`;
  }
  return issueSentence(issue, where, valueAt(rawArgs, issue.path));
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * JSON may carry half a UTF-16 surrogate pair ("\ud800"), which no file system, URL or page
 * keeps as sent (it becomes U+FFFD on the way): a name saved that way can never be found again.
 */
function refuseLoneSurrogates(args: Record<string, unknown>, tool: string): void {
  // A stack, not recursion: a document or params object may nest deeper than the call stack.
  const stack: [unknown, string][] = [[args, '']];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) {
        throw new BadRequest(
          `${path || 'An argument name'} of ${tool} holds half of a UTF-16 surrogate pair, which is not text; send well-formed Unicode.`,
        );
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key;
        stack.push([key, path], [item, at]);
      }
    }
  }
}

/** saved: the server remembers the browser, so a session_id is a mistake; stateless: required. */
export function checkMode(capability: Capability, args: Record<string, unknown>, caller: Caller): string | undefined {
  const sessionId = typeof args.session_id === 'string' ? args.session_id : undefined;
  delete args.session_id;
  if (caller.key && sessionId !== undefined) {
    throw new BadRequest(
      `session_id is only for stateless callers; this call names workspace ${caller.workspace ?? caller.key}, whose browser the server remembers, so drop session_id.`,
    );
  }
  if (!caller.key && capability.needsSessionId && sessionId === undefined) {
    throw new BadRequest(
      `${capability.name} needs a browser: pass session_id (the id open_session returned), or name a workspace with the X-Workspace header or ?workspace=… so the server remembers it.`,
    );
  }
  return sessionId;
}
