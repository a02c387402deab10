import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../src/capabilities/index.js';
import { jsonSchemaOf } from '../../src/capabilities/json-schema.js';
import { MAX_URL_CHARS } from '../../src/limits.js';
import { parseFlow, prepareParams } from '../../src/flows/document.js';
import type { JsonSchemaObject } from '../../src/flows/parameters.js';
import { urlMatches } from '../../src/flows/url-match.js';
import { FlowLibraries } from '../../src/flows/library.js';
import { runFlow } from '../../src/flows/runner.js';
import { COMPILED_SCHEMAS_KEPT, compiledSchemaCount, re2Syntax } from '../../src/flows/parameters.js';
import { DirectoryFlowStore } from '../../src/flows/store.js';

const parse = (document: unknown) => parseFlow(document as Record<string, unknown>, CAPABILITIES);
const prepare = (parameters: JsonSchemaObject, given: Record<string, unknown>) =>
  prepareParams({ parameters, steps: [] }, given);
const step = { tool: 'navigate', args: { url: 'https://example.com/' } };

function refusal(action: () => unknown): string {
  try {
    action();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('it was accepted');
}

async function library() {
  const libraries = new FlowLibraries(
    new DirectoryFlowStore(await mkdtemp(join(tmpdir(), 'bounds-'))),
    CAPABILITIES,
    5000,
  );
  const toolbox = {
    call: async (_tool: string, args: Record<string, unknown>) => ({ result: args.script ?? null }),
    currentUrl: async () => 'https://example.com/',
    endPage: async () => ({ url: 'https://example.com/', title: 'Example' }),
    recentCalls: async () => [],
  };
  return libraries.view({ key: 'named:w', workspace: 'w' }, toolbox);
}

describe('flow parameters never run a backtracking regex', () => {
  const nested = { type: 'object', properties: { p: { type: 'string', pattern: '^(a+)+$' } } } as JsonSchemaObject;

  // With JavaScript's engine this match takes 2^37 steps: minutes, then the test timeout. RE2 is linear.
  it('answers a catastrophic pattern against a 37-character argument', () => {
    expect(prepare(nested, { p: 'a'.repeat(36) })).toEqual({ p: 'a'.repeat(36) });
    expect(refusal(() => prepare(nested, { p: `${'a'.repeat(36)}!` }))).toBe(
      'Invalid params: p must match ^(a+)+$; pass p in that form.',
    );
  });

  it('applies patternProperties the same way', () => {
    // Only declared names are taken at all (a step reads nothing else), so the patterns meet those.
    const schema = {
      type: 'object',
      properties: { [`${'x'.repeat(36)}`]: {}, [`${'x'.repeat(36)}y`]: {} },
      patternProperties: { '^(x+)+$': { type: 'number' } },
    } as unknown as JsonSchemaObject;
    expect(refusal(() => prepare(schema, { [`${'x'.repeat(36)}`]: 'no' }))).toMatch(
      /must be a number \(got a string\)/,
    );
    expect(prepare(schema, { [`${'x'.repeat(36)}y`]: 'fine' })).toBeTruthy();
  });

  it('reads ECMA-262 code point escapes as JSON Schema writes them, and leaves an escaped backslash alone', () => {
    const schema = (pattern: string) =>
      ({ type: 'object', properties: { p: { type: 'string', pattern } } }) as JsonSchemaObject;
    expect(prepare(schema('^\\u00e9+\\u{1F600}$'), { p: 'éé😀' })).toEqual({ p: 'éé😀' });
    expect(refusal(() => prepare(schema('^\\u00e9$'), { p: 'e' }))).toBe(
      'Invalid params: p must match ^\\u00e9$; pass p in that form.',
    );
    expect(re2Syntax('\\\\u0041')).toBe('\\\\u0041');
    expect(prepare(schema('^\\\\u0041$'), { p: '\\u0041' })).toEqual({ p: '\\u0041' });
  });

  it('refuses at save a pattern only a backtracking engine can run (lookaround, backreference)', async () => {
    const flows = await library();
    for (const pattern of ['^(?=a)', '(a)\\1']) {
      const document = {
        parameters: { type: 'object', properties: { p: { type: 'string', pattern } } },
        steps: [step],
      };
      await expect(flows.save('f', document)).rejects.toThrow(
        /pattern RE2 cannot run .*without lookaround or backreferences/,
      );
    }
  });
});

describe('compiled parameter schemas', () => {
  const withId = (id: string, type: string) =>
    ({ $id: id, type: 'object', properties: { p: { type } }, required: ['p'] }) as JsonSchemaObject;

  it('take $id per flow: the same schema twice and two flows with one $id both work', () => {
    for (let i = 0; i < 3; i++) {
      expect(prepare(withId('https://x.example/params', 'string'), { p: 'a' })).toEqual({ p: 'a' });
      expect(refusal(() => prepare(withId('https://x.example/params', 'number'), { p: 'a' }))).toMatch(
        'Invalid params: p must be a number (got a string); pass a number.',
      );
    }
  });

  it(`stay at most ${COMPILED_SCHEMAS_KEPT} however many flows run`, async () => {
    const flows = await library();
    for (let i = 0; i < COMPILED_SCHEMAS_KEPT + 16; i++) {
      const parameters = { $id: 'same', type: 'object', properties: { [`p${i}`]: { type: 'string' } } };
      await flows.save(`f${i}`, {
        parameters,
        steps: [{ tool: 'execute_script', args: { script: `return '\${p${i}}'` } }],
      });
      const report = await flows.run(`f${i}`, { [`p${i}`]: 'v' }, false);
      expect(report.status).toBe('ok');
      expect(compiledSchemaCount()).toBeLessThanOrEqual(COMPILED_SCHEMAS_KEPT);
    }
    expect(compiledSchemaCount()).toBe(COMPILED_SCHEMAS_KEPT);
    for (let i = 0; i < 5; i++) {
      expect((await flows.run('f0', { p0: 'again' }, false)).status).toBe('ok');
    }
  });
});

describe('YAML and document bounds', () => {
  it('refuses billion laughs, naming the alias limit', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [prev, next] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'f'],
      ['f', 'g'],
      ['g', 'h'],
    ]) {
      levels.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const text = `${levels.join('\n')}\nsteps: [*h]\n`;
    expect(refusal(() => parseFlow(text, CAPABILITIES))).toMatch(/aliases .* more than 100 times/);
  });

  it('refuses deep nesting, in YAML flow style, block style and JSON, naming the depth limit', () => {
    const n = 100_000;
    expect(refusal(() => parseFlow(`steps: ${'['.repeat(n)}${']'.repeat(n)}`, CAPABILITIES))).toMatch(
      /deeper than 32 levels/,
    );
    const block = `steps:\n${Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i + 1)}- `).join('\n')}x\n`;
    expect(refusal(() => parseFlow(block, CAPABILITIES))).toMatch(/deeper than 32 levels/);
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) {
      deep = { deep };
    }
    expect(refusal(() => parse({ steps: [{ tool: 'navigate', args: deep }] }))).toMatch(/deeper than 32 levels/);
    expect(refusal(() => prepare({ type: 'object' }, { deep }))).toMatch(/deeper than 32 levels/);
  });

  it('refuses a document over 256 KiB before parsing it', async () => {
    const flows = await library();
    const text = `description: x\nsteps:\n${'  - tool: navigate\n    args: {url: "https://example.com/"}\n'.repeat(5000)}`;
    await expect(flows.save('big', text)).rejects.toThrow(/larger than 256 KiB \(the document limit\)/);
    await expect(flows.save('big', { description: 'x'.repeat(300_000), steps: [step] })).rejects.toThrow(/256 KiB/);
  });

  it('bounds url globs: count, length and number of *', () => {
    expect(refusal(() => parse({ urls: ['*a'.repeat(17)], steps: [step] }))).toMatch(/at most 16 "\*"/);
    expect(refusal(() => parse({ urls: [`https://${'a'.repeat(2048)}/`], steps: [step] }))).toMatch(
      /at most 2048 characters/,
    );
    expect(refusal(() => parse({ urls: Array(51).fill('https://a/*'), steps: [step] }))).toMatch(/at most 50 globs/);
    expect(parse({ urls: [`${'*a'.repeat(16)}`], steps: [step] }).urls).toHaveLength(1);
  });

  it('matches a URL longer than any flow is written for only by a glob of "*"', () => {
    const long = `https://a.example/${'a'.repeat(MAX_URL_CHARS)}`;
    expect(urlMatches(['https://a.example/*'], long)).toBe(false);
    expect(urlMatches(['*'], long)).toBe(true);
  });
});

describe('a flow run report', () => {
  it('holds at most 4 MB of step results, and names the steps it left out', async () => {
    const steps = Array.from({ length: 10 }, (_, i) => ({
      tool: 'execute_script',
      args: { script: 'return 1' },
      id: `s${i}`,
      return: true,
    }));
    const report = await runFlow({
      name: 'big',
      document: { steps },
      capabilities: CAPABILITIES,
      params: {},
      verbose: true,
      timeoutMs: 60_000,
      call: async () => ({ result: 'x'.repeat(1_000_000) }),
      currentUrl: async () => null,
      endPage: async () => null,
    });
    expect(report.status).toBe('ok');
    expect(Object.keys(report.returned ?? {})).toEqual(['s0']);
    expect(report.steps.filter((s) => s.result !== undefined).map((s) => s.id)).toEqual(['s0']);
    expect(report.omitted).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9']);
    expect(Buffer.byteLength(JSON.stringify(report))).toBeLessThan(6_000_000);
  });
});

type Schema = Record<string, unknown>;

/** Every string, array and number a caller can send, with where it is: each must have a bound. */
function unbounded(schema: Schema, where: string): string[] {
  const found: string[] = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (
    types.includes('string') &&
    schema.maxLength === undefined &&
    schema.enum === undefined &&
    schema.const === undefined
  ) {
    found.push(`${where}: string without maxLength`);
  }
  if (types.includes('array') && schema.maxItems === undefined && schema.prefixItems === undefined) {
    found.push(`${where}: array without maxItems`);
  }
  if (
    (types.includes('number') || types.includes('integer')) &&
    (schema.maximum === undefined || schema.minimum === undefined)
  ) {
    found.push(`${where}: number without minimum and maximum`);
  }
  for (const [key, value] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {})) {
    found.push(...unbounded(value, `${where}.${key}`));
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const [i, value] of ((schema[keyword] as Schema[] | undefined) ?? []).entries()) {
      found.push(...unbounded(value, `${where}|${i}`));
    }
  }
  if (schema.items && typeof schema.items === 'object') {
    found.push(...unbounded(schema.items as Schema, `${where}[]`));
  }
  return found;
}

describe('the capability table', () => {
  it('bounds every string, array and number of every argument of every tool', () => {
    const found = CAPABILITIES.flatMap((c) => unbounded(jsonSchemaOf(c.input, 'input'), c.name));
    expect(found).toEqual([]);
  });
});

describe('upload_file says only what it does', () => {
  it('takes no mime_type (the browser types a file by its extension) and says so as a 400', async () => {
    const { parseArguments } = await import('../../src/capabilities/call/arguments.js');
    const upload = CAPABILITIES.find((c) => c.name === 'upload_file');
    if (!upload) {
      throw new Error('upload_file is not in the table');
    }
    const args = { selector: { css: 'input' }, text: 'x', filename: 'a.csv' };
    expect(parseArguments(upload, args)).toMatchObject({ filename: 'a.csv' });
    expect(() => parseArguments(upload, { ...args, mime_type: 'text/csv' })).toThrow(/mime_type/);
  });
});

describe('a window both browsers can open', () => {
  it('refuses a width under 500, which either browser would open 500 wide while it was remembered as asked', async () => {
    const { parseArguments } = await import('../../src/capabilities/call/arguments.js');
    for (const name of ['open_session', 'resize']) {
      const tool = CAPABILITIES.find((c) => c.name === name);
      if (!tool) {
        throw new Error(`${name} is not in the table`);
      }
      expect(parseArguments(tool, { width: 500, height: 200 })).toEqual({ width: 500, height: 200 });
      expect(refusal(() => parseArguments(tool, { width: 300, height: 400 }))).toContain(
        'width is at least 500, the narrowest window both browsers open',
      );
    }
  });
});
