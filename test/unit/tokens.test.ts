import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { checkWorkspaceAllowed, TokenBook } from '../../src/workspace/tokens.js';

const dir = mkdtempSync(join(tmpdir(), 'tokens-unit-'));
const TOKEN = 'a-token-that-must-never-be-quoted';
let files = 0;

function fileWith(text: string): string {
  const path = join(dir, `tokens-${++files}.yaml`);
  writeFileSync(path, text);
  return path;
}

describe('TOKENS_FILE', () => {
  it('maps each token, in clear or as its SHA-256, to the workspaces it may use', () => {
    const digest = createHash('sha256').update('second-token-0123456789').digest('hex');
    const path = fileWith(
      JSON.stringify({
        tokens: [
          { name: 'alice', token: TOKEN, workspaces: ['alice', 'alice-*'] },
          { name: 'bob', sha256: digest.toUpperCase(), workspaces: ['bob'] },
        ],
      }),
    );
    const book = TokenBook.from('main-token-0123456789', path);
    expect(book.principalOf(TOKEN)).toEqual({ id: 'token:alice', workspaces: ['alice', 'alice-*'] });
    expect(book.principalOf('second-token-0123456789')).toEqual({ id: 'token:bob', workspaces: ['bob'] });
    expect(book.principalOf('main-token-0123456789')).toEqual({ id: 'main' });
    expect(book.principalOf('wrong-token-0123456789')).toBeUndefined();
    expect(book.principalOf(undefined)).toBeUndefined();
    expect(book.open).toBe(false);
    expect(TokenBook.from(undefined, undefined).principalOf(undefined)).toEqual({ id: 'anonymous' });

    const alice = book.principalOf(TOKEN);
    expect(() => checkWorkspaceAllowed(alice, 'alice-2')).not.toThrow();
    expect(() => checkWorkspaceAllowed(alice, 'bob')).toThrow(
      /token:alice in TOKENS_FILE\) may not use workspace "bob"; it may use workspaces matching alice, alice-\*/,
    );
    expect(() => checkWorkspaceAllowed(book.principalOf('main-token-0123456789'), 'anything')).not.toThrow();
  });

  it('stops the boot naming the file and the entry, never quoting a token', () => {
    const cases: [string, RegExp][] = [
      [
        `tokens:\n  - name: a\n    token: ${TOKEN}\n    workspaces: [a]\n  - name: b\n    token: ${TOKEN}: [\n`,
        /line \d+: is not valid YAML or JSON/,
      ],
      [`tokens:\n  - name: a\n    token: ${TOKEN}\n`, /entry 1 \(a\): workspaces must list/],
      [
        `tokens:\n  - name: a\n    token: ${TOKEN}\n    sha256: ${'0'.repeat(64)}\n    workspaces: [a]\n`,
        /entry 1 \(a\): needs exactly one of token/,
      ],
      [
        `tokens:\n  - name: a\n    token: short\n    workspaces: [a]\n`,
        /entry 1 \(a\): token must be a string of at least 16/,
      ],
      [
        `tokens:\n  - name: a\n    token: ${TOKEN}\n    workspaces: [a]\n  - name: b\n    token: ${TOKEN}\n    workspaces: [b]\n`,
        /entry 2 \(b\): holds the same token/,
      ],
      [
        `tokens:\n  - name: a\n    token: ${TOKEN}\n    workspaces: ["a/../b"]\n`,
        /entry 1 \(a\): workspaces must list/,
      ],
      [`tokens:\n  - name: a\n    tokn: ${TOKEN}\n    workspaces: [a]\n`, /entry 1: unknown field "tokn"/],
      [`tokens: []\n`, /must be an object with "tokens"/],
      [`- ${TOKEN}\n`, /must be an object with "tokens"/],
    ];
    for (const [text, rule] of cases) {
      const path = fileWith(text);
      let message = '';
      try {
        TokenBook.from(undefined, path);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, text).toMatch(rule);
      expect(message, text).toContain(`TOKENS_FILE (--tokens-file) ${path}`);
      expect(message, text).not.toContain(TOKEN);
    }
    expect(() => TokenBook.from(undefined, join(dir, 'missing.yaml'))).toThrow(
      /missing\.yaml: cannot be read \(ENOENT\)/,
    );
  });

  it('lets a non-loopback HOST start with a tokens file and no MCP_AUTH_TOKEN', () => {
    expect(loadConfig({}, { HOST: '0.0.0.0', TOKENS_FILE: '/etc/selenium-flow/tokens.yaml' }).tokensFile).toBe(
      '/etc/selenium-flow/tokens.yaml',
    );
    expect(() => loadConfig({}, { ALLOWED_ORIGINS: 'https://ok.example,https://bad.example/path' })).toThrow(
      /^ALLOWED_ORIGINS \(--allowed-origins\)/,
    );
    expect(loadConfig({}, { ALLOWED_HOSTS: 'A.example, *.b.example' }).allowedHosts).toEqual([
      'a.example',
      '*.b.example',
    ]);
    expect(() => loadConfig({}, { BROWSERS_PER_CALLER: '0' })).toThrow(/^BROWSERS_PER_CALLER/);
  });
});
