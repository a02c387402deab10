import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../src/capabilities/call/arguments.js';
import { capabilityNamed } from '../../src/capabilities/index.js';

/** The sentence a caller reads when a tool refuses these arguments, on MCP and HTTP alike. */
function refusal(tool: string, args: unknown): string {
  const capability = capabilityNamed(tool);
  if (!capability) {
    throw new Error(`${tool} is not in the table`);
  }
  try {
    parseArguments(capability, args);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${tool} took ${JSON.stringify(args)}`);
}

const field = { css: '#field' };

describe('a refused argument is one sentence with its name, the rule, and the fix', () => {
  it.each([
    ['open_session', { width: 99999 }, 'width must be at most 7680 (got 99999); pass a smaller width.'],
    ['open_session', { width: 1.5 }, 'width must be a whole number (got 1.5); pass a whole number.'],
    ['open_session', { width: '800' }, 'width must be a number (got a string); pass a number.'],
    ['open_session', { width: null }, 'width must be a number (got null); pass a number.'],
    [
      'interact',
      { action: 'click', selector: field, wait_timeout: -1 },
      'wait_timeout must be at least 0 (got -1); pass a larger wait_timeout.',
    ],
    [
      'extract',
      { selector: field, max_chars: 10 },
      'max_chars must be at least 100 (got 10); pass a larger max_chars.',
    ],
    ['execute_script', { script: '' }, 'script is empty; pass at least 1 character.'],
    ['hand_back', { viewer: 'abc' }, 'viewer must be exactly 16 characters long (got 3); pass 16 characters.'],
    [
      'hand_back',
      { viewer: 'a'.repeat(17) },
      'viewer must be exactly 16 characters long (got 17); pass 16 characters.',
    ],
    [
      'press_key',
      { key: 'Enter', modifiers: ['Shift', 'Alt', 'Meta', 'Control', 'Shift'] },
      'modifiers must hold at most 4 items (got 5); pass fewer.',
    ],
    ['press_key', { key: 'Enter', modifiers: 'Shift' }, 'modifiers must be a list (got a string); pass a list.'],
    ['list_flows', { everywhere: 'yes' }, 'everywhere must be true or false (got a string); pass true or false.'],
    [
      'upload_file',
      { selector: field, content: 'not base64!' },
      'content must be base64 text; pass content in that form.',
    ],
    [
      'interact',
      { action: 'click', selector: { css: 'a'.repeat(5000) } },
      'selector.css must be at most 4096 characters long (got 5000); pass a shorter selector.css.',
    ],
    [
      'extract',
      { selector: [{ xpath: '//a' }, { xpath: 'a'.repeat(4097) }] },
      'selector.1.xpath must be at most 4096 characters long (got 4097); pass a shorter selector.1.xpath.',
    ],
    [
      'interact',
      { action: 'click', selector: [] },
      'selector must be a list of 1 to 5 selectors, tried in order (got none); pass at least one.',
    ],
    [
      'navigate',
      { url: `https://a.example/${'x'.repeat(9000)}` },
      'url must be at most 8192 characters long (got 9018); pass a shorter url.',
    ],
    ['draft_flow', { last: 0 }, 'last must be at least 1 (got 0); pass a larger last.'],
    ['draft_flow', { last: 31 }, 'last must be at most 30 (got 31); pass a smaller last.'],
    ['draft_flow', { last: 2.5 }, 'last must be a whole number (got 2.5); pass a whole number.'],
    [
      'save_flow',
      { name: 'f', document: 5 },
      'document must be the flow as YAML text or as a JSON object (flow://schema gives its shape); pass one of those.',
    ],
    [
      'save_flow',
      { name: 'f', document: '' },
      'document must not be empty; pass the flow as YAML text or as a JSON object.',
    ],
    [
      'save_flow',
      { name: 'f', document: 'x'.repeat(300_000) },
      'document must be at most 256 KiB (the document limit); split it into smaller flows.',
    ],
    ['run_flow', { name: 'f', params: 5 }, 'params must be an object (got a number); pass an object.'],
    [
      'execute_script',
      { script: 'x'.repeat(100_001) },
      'script must be at most 100000 characters long (got 100001); pass a shorter script.',
    ],
  ])('%s %j', (tool, args, sentence) => {
    expect(refusal(tool, args)).toBe(sentence);
  });

  it('says the upload limit and the fix, for text and for base64 content', () => {
    const limit = 16 * 1024 * 1024;
    expect(refusal('upload_file', { selector: field, text: 'x'.repeat(limit + 1) })).toBe(
      'text must be at most 16777216 characters (the upload limit); upload a smaller file.',
    );
    expect(refusal('upload_file', { selector: field, content: 'AAAA'.repeat(limit / 3 + 2) })).toBe(
      'content must decode to at most 16777216 bytes (the upload limit); upload a smaller file.',
    );
  });

  it("keeps a schema's own message, after the argument's name unless it names it", () => {
    expect(refusal('resize', { width: 300, height: 600 })).toBe(
      'width is at least 500, the narrowest window both browsers open; pass 500 or more.',
    );
    expect(refusal('workspace_network', { status: '999' })).toBe(
      'status must be a status such as 404, a class such as 4xx, or failed.',
    );
  });

  it('never says back text, where a person typed or a secret is named: its kind only', () => {
    const typed = 'hunter2-typed-in-clear';
    for (const [tool, args] of [
      ['write', { selector: field, text: typed, submit: typed }],
      ['write', { selector: field, secret: { name: typed, key: 7 } }],
      ['write', { selector: field, secret: { name: 'Bad Name!', key: 'password' }, text: 'x' }],
      ['upload_file', { selector: field, content: typed }],
      ['open_session', { width: typed }],
    ] as const) {
      expect(refusal(tool, args)).not.toContain(typed);
    }
    expect(refusal('write', { selector: field, text: 123456 })).toBe(
      'text must be a string (got a number); pass a string.',
    );
    // A key is said back where it is shaped like a name; any other may be a value in the wrong place.
    expect(refusal('navigate', { url: 'https://a.example/', colour: 1 })).toBe(
      'Unknown argument "colour" for navigate; its arguments are: url, action, tab, session_id.',
    );
    expect(refusal('navigate', { url: 'https://a.example/', [`my password is ${typed}`]: 1 })).toBe(
      'Unknown argument (a key that is no name) for navigate; its arguments are: url, action, tab, session_id.',
    );
  });
});
