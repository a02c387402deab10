import { describe, expect, it } from 'vitest';
import { accessLines } from '../../src/banner.js';
import { loadConfig } from '../../src/config.js';
import { globMatches } from '../../src/glob.js';
import { principalOfGrant, workspaceGlobs } from '../../src/oauth/workspaces.js';
import { checkWorkspaceAllowed } from '../../src/workspace/tokens.js';

const ISSUER = { OAUTH_ISSUER: 'https://login.example.com/realms/agents', PUBLIC_URL: 'https://sf.example.com' };

describe('the OAuth settings', () => {
  it('hold together or stop the boot, naming the setting and the fix', () => {
    expect(() => loadConfig({}, { OAUTH_ISSUER: ISSUER.OAUTH_ISSUER })).toThrow(
      /^OAUTH_ISSUER needs PUBLIC_URL \(--public-url\): access tokens name this server/,
    );
    expect(() => loadConfig({}, { OAUTH_ISSUER: 'http://login.example.com' })).toThrow(
      'OAUTH_ISSUER (--oauth-issuer) must be https (http only on a loopback address, for a test issuer).',
    );
    expect(loadConfig({}, { ...ISSUER, OAUTH_ISSUER: 'http://127.0.0.1:4000' }).oauthIssuer).toBe(
      'http://127.0.0.1:4000',
    );
    expect(() => loadConfig({}, { OAUTH_CLIENT_ID: 'rs' })).toThrow(
      'OAUTH_CLIENT_ID is set but OAUTH_ISSUER (--oauth-issuer) is not: set OAUTH_ISSUER, or unset OAUTH_CLIENT_ID.',
    );
    expect(() => loadConfig({}, { ...ISSUER, OAUTH_CLIENT_ID: 'rs' })).toThrow(/go together/);
    expect(() => loadConfig({}, { STATIC_TOKENS: 'off' })).toThrow(/^STATIC_TOKENS is "off" but OAUTH_ISSUER/);
    expect(() =>
      loadConfig({}, { ...ISSUER, STATIC_TOKENS: 'off', MCP_AUTH_TOKEN: 'a-static-token-0123456789' }),
    ).toThrow(
      'STATIC_TOKENS is "off" but MCP_AUTH_TOKEN is set: unset MCP_AUTH_TOKEN, or set STATIC_TOKENS=on to take its tokens beside OAuth ones.',
    );
    expect(() => loadConfig({}, { OAUTH_AGENT_SCOPE: 'two scopes' })).toThrow(/^OAUTH_AGENT_SCOPE must be one scope/);
  });

  it('let an issuer alone satisfy a non-loopback HOST', () => {
    expect(() => loadConfig({}, { HOST: '0.0.0.0' })).toThrow(/OAUTH_ISSUER \(--oauth-issuer\) is required/);
    expect(loadConfig({}, { ...ISSUER, HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('refuse workspace patterns that could let one person reach another’s names', () => {
    expect(loadConfig({}, {}).oauthWorkspaces).toEqual(['{sub}', '{sub}.*']);
    for (const [patterns, problem] of [
      ['shared', '"shared", which does not begin with a {claim}'],
      ['*{sub}', '"*{sub}", which names a {claim} after its start'],
      ['ci-{sub}', '"ci-{sub}", which names a {claim} after its start'],
      ['{sub}*', '"{sub}*", which has a * right after its {claim}'],
      ['{team}.{sub}', 'names a {claim} after its start'],
      ['{sub}/x', 'does not begin with a {claim} followed by nothing or a separator'],
      ['{sub},{team}.*', '"{team}.*", which begins with {team} where another begins with {sub}'],
    ]) {
      expect(() => loadConfig({}, { OAUTH_WORKSPACES: patterns }), patterns).toThrow(problem);
    }
    expect(
      loadConfig({}, { OAUTH_WORKSPACES: '{preferred_username}, {preferred_username}-ci-*' }).oauthWorkspaces,
    ).toEqual(['{preferred_username}', '{preferred_username}-ci-*']);
  });
});

describe('a token’s workspaces', () => {
  it('fill each pattern with the token’s claim', () => {
    expect(workspaceGlobs(['{sub}', '{sub}.*'], { sub: 'alice' }).globs).toEqual(['alice', 'alice.*']);
    expect(workspaceGlobs(['{preferred_username}-ci-*'], { preferred_username: 'bo' }).globs).toEqual(['bo-ci-*']);
    expect(workspaceGlobs(['{sub}'], { sub: 1234 }).globs).toEqual(['1234']);
  });

  it('keep two people apart: a value holding a separator of any pattern gets no workspace', () => {
    // With {sub},{sub}.*, subject "a" would reach subject "a.b"'s workspace "a.b" through "a.*".
    const a = workspaceGlobs(['{sub}', '{sub}.*'], { sub: 'a' }).globs;
    const ab = workspaceGlobs(['{sub}', '{sub}.*'], { sub: 'a.b' });
    expect(a).toEqual(['a', 'a.*']);
    expect(ab).toEqual({
      globs: [],
      problem: 'its "sub" claim holds ".", which OAUTH_WORKSPACES uses to keep people apart',
    });
    // Whatever the two values, no name matches a glob of each.
    const names = ['a', 'a.b', 'a.b.c', 'ab', 'a-b', 'a_b.x', 'b.a'];
    const values = ['a', 'ab', 'a-b', 'a_b', 'b'];
    for (const patterns of [
      ['{sub}', '{sub}.*'],
      ['{sub}-x', '{sub}_*', '{sub}'],
    ]) {
      for (const one of values) {
        for (const other of values.filter((v) => v !== one)) {
          const mine = workspaceGlobs(patterns, { sub: one }).globs;
          const theirs = workspaceGlobs(patterns, { sub: other }).globs;
          for (const name of names) {
            const both = mine.some((g) => globMatches(g, name)) && theirs.some((g) => globMatches(g, name));
            expect(both, `${patterns.join(',')}: ${one} and ${other} share ${name}`).toBe(false);
          }
        }
      }
    }
  });

  it('never turns a claim into a wider glob', () => {
    for (const sub of ['*', 'a*', '../x', '', 'a b', 'x'.repeat(65)]) {
      expect(workspaceGlobs(['{sub}', '{sub}.*'], { sub }).globs, sub).toEqual([]);
    }
    expect(workspaceGlobs(['{sub}'], {}).problem).toBe('the token has no "sub" claim');
  });

  it('answers a principal whose refusals name the subject and what it may use', () => {
    const principal = principalOfGrant({ subject: 'alice', scopes: new Set(), claims: { sub: 'alice' } }, [
      '{sub}',
      '{sub}.*',
    ]);
    expect(principal.id).toMatch(/^oauth:[\w-]{22}$/);
    expect(principal.id).not.toContain('alice');
    expect(principal.workspaces?.some((glob) => globMatches(glob, 'alice.shop'))).toBe(true);
    expect(() => checkWorkspaceAllowed(principal, 'bob')).toThrow(
      'This sign-in (subject "alice" of OAUTH_ISSUER) may not use workspace "bob"; it may use workspaces matching alice, alice.*: name one of those.',
    );
    const unusable = principalOfGrant({ subject: 'a b', scopes: new Set(), claims: { sub: 'a b' } }, ['{sub}']);
    expect(() => checkWorkspaceAllowed(unusable, 'x')).toThrow(
      /^This sign-in \(subject "a b" of OAUTH_ISSUER\) may use no workspace: its "sub" claim cannot stand in a workspace name .*; ask the operator to set OAUTH_WORKSPACES to patterns your token can fill\.$/,
    );
  });
});

describe('the banner with an issuer', () => {
  it('names the issuer and its scopes, prints no admin link, and lets operators take Control', () => {
    const lines = (env: Record<string, string>) =>
      accessLines(loadConfig({}, { ...ISSUER, ...env }, { command: 'serve' }), 'https://sf.example.com', undefined);
    expect(lines({})).toEqual([
      '  Token:    none',
      '  OAuth:    https://login.example.com/realms/agents (agents need the scope selenium-flow:agent, operators selenium-flow:admin)',
      '  Admin:    sign in through the issuer',
      '  Control:  an operator signed in through the issuer on the admin page',
    ]);
    // The agents' static token stands in for ADMIN_TOKEN: no person's credential, but the issuer's operators still are.
    expect(lines({ MCP_AUTH_TOKEN: 'agents-token-0123456789' }).slice(2)).toEqual([
      '  Admin:    token set, or sign in through the issuer',
      '  Control:  an operator signed in through the issuer on the admin page',
    ]);
  });
});
