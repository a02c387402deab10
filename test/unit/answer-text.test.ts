import { describe, expect, it } from 'vitest';
import { capabilityNamed } from '../../src/capabilities/index.js';
import type { Capability } from '../../src/capabilities/capability.js';
import { answerText } from '../../src/mcp/answer-text.js';
import { expectFieldsInText } from '../helpers/answer-text.js';

const row = (name: string): Capability => {
  const capability = capabilityNamed(name);
  if (!capability) {
    throw new Error(`no row ${name}`);
  }
  return capability;
};

describe('the MCP text block', () => {
  it('is plain lines with every field, quotes and newlines unescaped', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['navigate', { url: 'https://a.example/x?q="1"', title: 'Say "hi"' }],
      ['write', { url: 'https://a.example/', title: 'Form', value: 'line one\nline two' }],
      ['extract', { value: 'He said "no"\n\tthen left', truncated: true }],
      ['extract', { values: ['one', null, 'three'] }],
      ['outline', { url: 'https://a.example/', title: 'A', outline: '# A\nbutton "Go" #go' }],
      ['execute_script', { url: 'https://a.example/', title: 'A', result: { rows: [1, 2], ok: true } }],
      [
        'current_workspace',
        { workspace: 'w', mode: 'saved', browser: { kind: 'chrome', version: '131', alive: true }, flows_here: [] },
      ],
      ['list_flows', { flows: [{ name: 'login', description: 'Sign in', shared: false, urls: ['https://a/*'] }] }],
    ];
    for (const [name, result] of cases) {
      const text = answerText(row(name), result);
      expectFieldsInText(text, result);
      expect(text).not.toMatch(/\\["nt]/);
    }
  });

  it('answers a read with the text itself, and an act with where the browser is', () => {
    expect(answerText(row('extract'), { value: 'Welcome' })).toBe('Welcome');
    expect(answerText(row('navigate'), { url: 'https://a.example/', title: 'Home' })).toBe('Home — https://a.example/');
    expect(answerText(row('outline'), { url: 'https://a.example/', title: 'Home', outline: 'main main' })).toBe(
      'Home — https://a.example/\n\nmain main',
    );
  });

  it('says a dialog and a withheld page in words', () => {
    const text = answerText(row('interact'), {
      url: 'https://a.example/',
      title: 'A',
      dialog: { message: 'Sure?' },
      done: 'click css=#x',
    });
    expect(text).toBe(
      'A — https://a.example/\nA dialog is open, saying: Sure? — answer it with the dialog tool.\ndone: click css=#x',
    );
    const withheld = answerText(row('navigate'), {
      url: 'https://a.example',
      title: '',
      withheld: true,
      withheld_reason: 'the page carried a typed secret',
    });
    expect(withheld).toBe('https://a.example (no title)\nWithheld: the page carried a typed secret');
  });
});
