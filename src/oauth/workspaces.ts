import { createHash } from 'node:crypto';
import type { Principal } from '../workspace/tokens.js';
import type { AccessGrant } from './access-tokens.js';

/** `{claim}`, then nothing or a separator and a glob: `{sub}`, `{sub}.*`, `{preferred_username}-ci-*`. */
const PATTERN = /^\{([A-Za-z_][A-Za-z0-9_]*)\}([A-Za-z0-9._-][A-Za-z0-9._*-]*)?$/;
/** What a claim's value may be to stand in a workspace name: the name rule's characters, no `*`. */
const VALUE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Why OAUTH_WORKSPACES cannot keep two people apart, or undefined when it can. The rule: every
 * pattern begins with the same `{claim}`, followed by nothing or by a separator character, and a
 * value that holds any pattern's separator cannot use the patterns. Then a workspace name gives
 * back one value only (its longest start without a separator): with `{sub},{sub}-*`, subject
 * `alice` would reach subject `alice-x`'s `alice-x`; with `{sub},{sub}.*`, where a subject
 * holding a "." signs in to no workspace, it cannot.
 */
export function patternsProblem(patterns: readonly string[]): string | undefined {
  let claim: string | undefined;
  for (const pattern of patterns) {
    const quoted = JSON.stringify(pattern.slice(0, 100));
    const match = PATTERN.exec(pattern);
    if (!match) {
      return /^\{[A-Za-z_][A-Za-z0-9_]*\}\*/.test(pattern)
        ? `${quoted}, which has a * right after its {claim}, with no separator between`
        : pattern.includes('{', 1)
          ? `${quoted}, which names a {claim} after its start (one {claim} per pattern, at its start)`
          : `${quoted}, which does not begin with a {claim} followed by nothing or a separator and letters, digits, ".", "_", "-", "*"`;
    }
    if (claim !== undefined && match[1] !== claim) {
      return `${quoted}, which begins with {${match[1]}} where another begins with {${claim}} (all begin with the same claim)`;
    }
    claim = match[1];
  }
  return undefined;
}

/**
 * The workspace globs a token's claims give: each pattern with its claim filled in, or none
 * (and why) when the claim is missing, cannot stand in a name, or holds a separator.
 */
export function workspaceGlobs(
  patterns: readonly string[],
  claims: Readonly<Record<string, unknown>>,
): { globs: string[]; problem?: string } {
  const parsed = patterns.flatMap((pattern) => {
    const match = PATTERN.exec(pattern);
    return match ? [{ claim: match[1] ?? '', rest: match[2] ?? '' }] : [];
  });
  const claim = parsed[0]?.claim ?? 'sub';
  const separators = [...new Set(parsed.flatMap((p) => (p.rest ? [p.rest.charAt(0)] : [])))];
  const raw = claims[claim];
  const value = typeof raw === 'string' ? raw : typeof raw === 'number' && Number.isInteger(raw) ? String(raw) : '';
  if (raw === undefined) {
    return { globs: [], problem: `the token has no "${claim}" claim` };
  }
  const held = separators.find((separator) => value.includes(separator));
  if (!VALUE.test(value) || held !== undefined) {
    return {
      globs: [],
      problem: `its "${claim}" claim ${held === undefined ? 'cannot stand in a workspace name (1-64 letters, digits, ".", "_" or "-")' : `holds "${held}", which OAUTH_WORKSPACES uses to keep people apart`}`,
    };
  }
  return { globs: parsed.map((p) => `${value}${p.rest}`) };
}

/**
 * The principal an access token stands for: owner of the stateless browsers it opens (by its
 * subject, hashed: a subject may be an e-mail address, and owners are stored) and user of the
 * workspaces OAUTH_WORKSPACES gives it.
 */
export function principalOfGrant(grant: AccessGrant, patterns: readonly string[]): Principal {
  const { globs, problem } = workspaceGlobs(patterns, grant.claims);
  const subject = JSON.stringify(grant.subject.slice(0, 100));
  return {
    id: `oauth:${createHash('sha256').update(grant.subject).digest('base64url').slice(0, 22)}`,
    workspaces: globs,
    label: `This sign-in (subject ${subject} of OAUTH_ISSUER)`,
    ...(globs.length === 0
      ? {
          noWorkspace: `${problem ?? 'OAUTH_WORKSPACES gives it none'}; ask the operator to set OAUTH_WORKSPACES to patterns your token can fill`,
        }
      : {}),
  };
}
