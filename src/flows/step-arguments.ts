import type { z } from 'zod';
import type { Capability } from '../capabilities/capability.js';
import { issueSentence, keyName } from '../capabilities/issues.js';
import { valueAt } from '../capabilities/schemas.js';
import { InvalidFlow, stepAt } from '../errors.js';
import { holdsReference, referencesIn } from './references.js';

/**
 * The step's args must satisfy the very schema the tool advertises, except where a value
 * holds a `${parameter}` and text could pass: its final form is only known at run time, when
 * the call path validates it again.
 */
export function checkStepArguments(capability: Capability, args: Record<string, unknown>, n: number): void {
  const parsed = capability.stepArgs.safeParse(args);
  if (parsed.success) {
    return;
  }
  for (const issue of parsed.error.issues) {
    const value = valueAt(args, issue.path);
    const known = Object.keys(capability.stepArgs.shape).join(', ');
    if (typeof value === 'string' && holdsReference(value)) {
      const takes = nonTextTaken(issue);
      if (takes === undefined) {
        continue;
      }
      const [reference] = referencesIn(value);
      const name = issue.path.join('.');
      throw new InvalidFlow(
        `Invalid flow: step ${n} (${capability.name}): ${name} takes ${takes}, but \${${reference ?? ''}} is substituted as text, so the step would fail on every run; write ${name}'s value in the step itself.`,
        stepAt(n),
      );
    }
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown argument ${issue.keys.map(keyName).join(', ')}; ${capability.name} takes ${known}`
        : value === undefined && issue.path.length > 0 && issue.code !== 'custom'
          ? `missing argument ${issue.path.join('.')}; ${capability.name} takes ${known}`
          : issueSentence(issue, issue.path.join('.'), value);
    throw new InvalidFlow(`Invalid flow: step ${n} (${capability.name}): ${message.replace(/\.$/, '')}.`, stepAt(n));
  }
}

const KIND_NAMES: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

/**
 * Parameters are substituted as text, so a `${name}` where the tool takes no text at all (a
 * number, a boolean, a selector object) can never pass the run's validation: what the argument
 * takes instead, or undefined when some text could pass (an enum, a URL, a length bound).
 */
function nonTextTaken(issue: z.core.$ZodIssue): string | undefined {
  const kinds = nonTextKinds(issue);
  return kinds && [...new Set(kinds.map((kind) => KIND_NAMES[kind] ?? `a ${kind}`))].join(' or ');
}

function nonTextKinds(issue: z.core.$ZodIssue): string[] | undefined {
  if (issue.code === 'invalid_type') {
    return issue.expected === 'string' ? undefined : [issue.expected];
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branches = issue.errors.map((branch) => {
      const root = branch.find((i) => i.path.length === 0);
      return root && nonTextKinds(root);
    });
    return branches.every((kinds) => kinds !== undefined) ? branches.flat() : undefined;
  }
  return undefined;
}
