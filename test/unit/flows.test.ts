import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lineOf } from '../../src/admin/flows.js';
import { InvalidFlow } from '../../src/errors.js';
import { defineTool } from '../../src/capabilities/capability.js';
import { CAPABILITIES, capabilityNamed } from '../../src/capabilities/index.js';
import { flowDocumentJsonSchema, parseFlow, prepareParams } from '../../src/flows/document.js';
import { urlMatches } from '../../src/flows/url-match.js';
import { checkFlowName } from '../../src/flows/names.js';
import type { JsonSchemaObject } from '../../src/flows/parameters.js';
import { referencesIn, substitute } from '../../src/flows/references.js';
import { DirectoryFlowStore } from '../../src/flows/store.js';

const parse = (document: unknown) => parseFlow(document as Record<string, unknown>, CAPABILITIES);
const prepare = (parameters: JsonSchemaObject | undefined, given: Record<string, unknown>) =>
  prepareParams({ parameters, steps: [] }, given);
const refused = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('it was accepted');
};
const refusal = (document: unknown) => {
  try {
    parse(document);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the document was accepted');
};

describe('${name} parameters', () => {
  it('substitute once, mid-string, leave unknown names as written, and turn $${ into ${', () => {
    const params = { name: 'Ada ${name}', n: 3 };
    expect(
      substitute({ a: 'Hi ${name}!', b: ['${n}x'], c: '${window.scrollY}', d: '`$${name}`', e: 7 }, params),
    ).toEqual({
      a: 'Hi Ada ${name}!',
      b: ['3x'],
      c: '${window.scrollY}',
      d: '`${name}`',
      e: 7,
    });
  });

  it('count $${name} as a literal, not a reference', () => {
    expect([...referencesIn({ s: '${a} $${b} ${c.d}' })]).toEqual(['a']);
  });
});

describe('${steps.<id>} values', () => {
  const read = { id: 'greeting', tool: 'extract', args: { selector: { css: 'h1' } } };
  const typeIt = { tool: 'write', args: { selector: { css: '#q' }, text: 'about ${steps.greeting}' } };

  it('may read an earlier step by id', () => {
    expect(parse({ steps: [read, typeIt] }).steps[1]?.args.text).toBe('about ${steps.greeting}');
  });

  it('refuse a later step and an unknown one, naming the fix', () => {
    expect(refusal({ steps: [typeIt, read] })).toMatch(
      /step 1: \$\{steps.greeting\}: step "greeting" runs later, so it has no value yet; move it before step 1/,
    );
    expect(refusal({ steps: [{ ...read, id: 'title' }, typeIt] })).toMatch(
      /step 2: \$\{steps.greeting\}: no step has the id "greeting"; give the step whose value you want id: greeting/,
    );
  });

  it('are not parameters: no declaration needed, and $${steps.x} stays literal', () => {
    expect([...referencesIn({ s: '${steps.a} $${steps.b} ${c}' })]).toEqual(['steps.a', 'c']);
  });
});

describe('selector alternatives', () => {
  it('a step may list up to five selectors; an empty list or six are refused with the fix', () => {
    const click = (selector: unknown) => ({ steps: [{ tool: 'interact', args: { action: 'click', selector } }] });
    expect(parse(click([{ css: '#old' }, { xpath: '//button' }])).steps).toHaveLength(1);
    expect(refusal(click([]))).toMatch(/a list of 1 to 5 selectors, tried in order/);
    expect(refusal(click(Array.from({ length: 6 }, () => ({ css: 'a' }))))).toMatch(/1 to 5 selectors/);
  });
});

describe('a flow document', () => {
  const step = (tool: string, args: Record<string, unknown>) => ({ steps: [{ tool, args }] });

  it('accepts the spec example shape, with parameters in URLs', () => {
    const document = parse({
      description: 'Log in',
      urls: ['https://cloud.example.com/*'],
      parameters: {
        type: 'object',
        properties: { email: { type: 'string' }, lang: { type: 'string', default: 'en' } },
        required: ['email'],
      },
      steps: [
        { tool: 'navigate', args: { url: 'https://${lang}.example.com/login' } },
        { id: 'email', tool: 'write', args: { selector: { css: '#email' }, text: '${email}' } },
        { tool: 'interact', args: { action: 'click', selector: { css: 'button' } }, onError: 'abort' },
        { id: 'greeting', tool: 'extract', args: { selector: { css: 'h1' } }, return: true, note: 'kept' },
      ],
    });
    expect(document.steps).toHaveLength(4);
  });

  it.each([
    [step('fly', {}), /step 1: unknown tool "fly"; a step may use navigate/],
    [step('open_session', {}), /step 1: open_session cannot be a flow step/],
    [step('run_flow', { name: 'x' }), /step 1: run_flow cannot be a flow step/],
    [
      step('navigate', { url: 'https://a.example', secret: { name: 'x', key: 'y' } }),
      /step 1 \(navigate\): unknown argument "secret"; navigate takes url, action/,
    ],
    [step('write', { text: 'x' }), /step 1 \(write\): missing argument selector/],
    [
      { steps: [{ tool: 'navigate', args: { url: 'https://a.example' }, wait: 1 }] },
      /step 1: unknown key "wait"; a step has only tool, args, id/,
    ],
    [
      {
        steps: [
          { id: 'a', tool: 'navigate', args: { action: 'back' } },
          { id: 'a', tool: 'navigate', args: { action: 'back' } },
        ],
      },
      /step 2: the id "a" is already used/,
    ],
    [step('navigate', { url: 'https://${host}/' }), /step 1: \$\{host\} is not a declared parameter; .* \$\$\{host\}/],
    [step('navigate', { url: 'javascript:alert(1)' }), /step 1 \(navigate\): url must be an absolute http\(s\) URL/],
    [
      step('interact', { action: 'click', selector: { css: 'a' }, wait_timeout: 3600 }),
      /^Invalid flow: step 1 \(interact\): wait_timeout must be at most 60 \(got 3600\); pass a smaller wait_timeout\.$/,
    ],
    [
      step('interact', { action: 'tap', selector: { css: 'a' } }),
      /step 1 \(interact\): action must be one of "click", /,
    ],
    [{ urls: 'https://x/*', steps: [{ tool: 'navigate', args: { action: 'back' } }] }, /urls must be a list/],
    [
      { parameters: { type: 'string' }, steps: [{ tool: 'navigate', args: { action: 'back' } }] },
      /parameters must be a JSON Schema object/,
    ],
    [
      {
        parameters: { type: 'object', properties: { a: { type: 'nope' } } },
        steps: [{ tool: 'navigate', args: { action: 'back' } }],
      },
      /^Invalid flow: parameters\.properties\.a\.type must be one of "array", "boolean", .*"string"\.$/,
    ],
    [{ steps: [] }, /at least one step/],
    [
      { steps: [{ tool: 'navigate', args: { action: 'back' } }], extra: 1 },
      /^Invalid flow: the document: unknown key "extra"; a flow document has only name, description, urls, parameters, steps\.$/,
    ],
  ])('is refused with the step and the fix: %j', (document, message) => {
    expect(refusal(document)).toMatch(message);
  });

  it('refuses ${} inside a secret reference even when it is declared', () => {
    expect(
      refusal({
        parameters: { type: 'object', properties: { who: { type: 'string' } } },
        steps: [
          { tool: 'write', args: { selector: { css: '#p' }, text: 'x', secret: { name: '${who}', key: 'password' } } },
        ],
      }),
    ).toMatch(/step 1: a secret's name and key are written out/);
  });

  it('refuses a ${parameter} where the tool takes no text, naming the step and the fix', () => {
    const parameters = {
      type: 'object',
      properties: { t: { type: 'number' }, s: { type: 'string' }, a: { type: 'string' } },
    };
    const click = (args: Record<string, unknown>) => ({
      parameters,
      steps: [{ tool: 'interact', args: { action: 'click', selector: { css: 'a' }, ...args } }],
    });
    expect(refusal(click({ wait_timeout: '${t}' }))).toBe(
      "Invalid flow: step 1 (interact): wait_timeout takes a number, but ${t} is substituted as text, so the step would fail on every run; write wait_timeout's value in the step itself.",
    );
    expect(refusal(click({ selector: '${s}' }))).toMatch(
      /step 1 \(interact\): selector takes an object or a list, but \$\{s\} is substituted as text/,
    );
    // Text can pass these at run time: an enum's value, a URL.
    expect(parse(click({ action: '${a}' })).steps[0]?.args.action).toBe('${a}');
    expect(parse({ parameters, steps: [{ tool: 'navigate', args: { url: '${s}' } }] }).steps).toHaveLength(1);
  });

  it('reports YAML errors with their line', () => {
    expect(() => parseFlow('steps:\n  - tool: navigate\n    args: {url: [unclosed\n', CAPABILITIES)).toThrow(
      /not valid YAML \(line \d+\)/,
    );
  });

  it('takes a new tool argument with no change to the flow code', () => {
    const navigate = capabilityNamed('navigate')!;
    const extended = defineTool({
      name: 'navigate',
      title: navigate.title,
      description: navigate.description,
      kind: 'act',
      attach: 'open',
      runnableInFlow: true,
      input: z.object({ ...navigate.stepArgs.shape, referrer: z.string().optional() }),
      output: z.object({}),
      handler: async () => ({}),
    });
    const tools = CAPABILITIES.map((c) => (c.name === 'navigate' ? extended : c));
    const document = {
      steps: [{ tool: 'navigate', args: { url: 'https://a.example/', referrer: 'https://b.example/' } }],
    };
    expect(() => parseFlow(document, CAPABILITIES)).toThrow(/unknown argument "referrer"/);
    expect(parseFlow(document, tools).steps[0]?.args.referrer).toBe('https://b.example/');
    const published = JSON.stringify(flowDocumentJsonSchema(tools));
    expect(published).toContain('"referrer"');
  });
});

describe('a refused flow document says the key, the rule and the fix, as a tool argument does', () => {
  const back = { tool: 'navigate', args: { action: 'back' } };
  const one = (more: Record<string, unknown>) => ({ steps: [back], ...more });
  const stepWith = (more: Record<string, unknown>) => ({ steps: [{ ...back, ...more }] });
  const withParameters = (properties: unknown) => one({ parameters: { type: 'object', properties } });
  const documents: [unknown, string][] = [
    [
      { steps: Array.from({ length: 201 }, () => back) },
      'steps must hold at most 200 steps; split the work into flows of 200 steps or fewer, run one after another.',
    ],
    [
      { steps: [] },
      'steps must hold at least one step; add the first tool call the flow makes, such as {tool: navigate, args: {url: …}}.',
    ],
    [{ steps: 'navigate' }, 'steps must be a list (got a string); pass a list.'],
    [
      one({ description: 'd'.repeat(2001) }),
      'description must be at most 2000 characters long (got 2001); pass a shorter description.',
    ],
    [one({ name: 5 }), 'name must be a string (got a number); pass a string.'],
    [
      one({ urls: ['https://a.example/' + 'x'.repeat(2048)] }),
      'urls.0 must be at most 2048 characters long (got 2066); pass a shorter urls.0.',
    ],
    [one({ urls: ['*'.repeat(17)] }), 'urls.0 must hold at most 16 "*"; write a glob with fewer.'],
    [
      one({ urls: Array.from({ length: 51 }, () => 'https://a.example/*') }),
      'urls must hold at most 50 globs; a flow meant for more places can omit urls.',
    ],
    [one({ parameters: 5 }), 'parameters must be an object (got a number); pass an object.'],
    [{ steps: [5] }, 'step 1 must be an object (got a number); pass an object.'],
    [{ steps: [{ tool: '' }] }, 'step 1: tool must name the tool the step calls, such as navigate.'],
    [{ steps: [{ tool: 'navigate', args: 5 }] }, 'step 1: args must be an object (got a number); pass an object.'],
    [
      stepWith({ id: '9lives' }),
      'step 1: id must be a letter then letters, digits, "_" or "-", at most 64 in all; rename the step.',
    ],
    [stepWith({ onError: 'retry' }), 'step 1: onError must be one of "abort", "continue".'],
    [stepWith({ return: 'yes' }), 'step 1: return must be true or false (got a string); pass true or false.'],
    [
      { steps: [{ tool: 'interact', args: { action: 'click', selector: { css: 'a'.repeat(4097) } } }] },
      'step 1 (interact): selector.css must be at most 4096 characters long (got 4097); pass a shorter selector.css.',
    ],
    [
      { steps: [{ tool: 'navigate', args: { url: `https://a.example/${'x'.repeat(8200)}` } }] },
      'step 1 (navigate): url must be at most 8192 characters long (got 8218); pass a shorter url.',
    ],
    [
      withParameters({ a: { type: 'text' } }),
      'parameters.properties.a.type must be one of "array", "boolean", "integer", "null", "number", "object", "string".',
    ],
    [
      withParameters({ a: { type: 'string', minLength: -1 } }),
      'parameters.properties.a.minLength must be at least 0 (got -1); pass a larger parameters.properties.a.minLength.',
    ],
    [
      withParameters({ a: 5 }),
      'parameters.properties.a must be an object or true or false (got 5); pass an object or true or false.',
    ],
    [withParameters(5), 'parameters.properties must be an object (got a number); pass an object.'],
  ];

  it.each(documents.map(([document, sentence]) => [sentence, document]))('%s', (sentence, document) => {
    expect(refusal(document)).toBe(`Invalid flow: ${String(sentence)}`);
  });

  it('names an unknown tool or key only where it is shaped like a name', () => {
    expect(refusal({ steps: [{ tool: 'fly' }] })).toMatch(
      /^Invalid flow: step 1: unknown tool "fly"; a step may use navigate, /,
    );
    const typed = 'my password is hunter2';
    for (const document of [
      { steps: [{ tool: typed }] },
      { steps: [{ ...back, [typed]: 1 }] },
      { steps: [{ tool: 'navigate', args: { action: 'back', [typed]: 1 } }] },
      one({ [typed]: 1 }),
    ]) {
      expect(refusal(document)).not.toContain('hunter2');
    }
    expect(refusal({ steps: [{ tool: typed }] })).toMatch(
      /^Invalid flow: step 1: unknown tool \(a key that is no name\); a step may use navigate, /,
    );
    expect(refusal(one({ [typed]: 1 }))).toBe(
      'Invalid flow: the document: unknown key (a key that is no name); a flow document has only name, description, urls, parameters, steps.',
    );
  });

  it('is found at its line on the admin page, from the place the refusal carries', () => {
    const lineRefused = (text: string) => {
      try {
        parseFlow(text, CAPABILITIES);
      } catch (err) {
        return lineOf(text, err instanceof InvalidFlow ? err.at : undefined);
      }
      throw new Error('the document was accepted');
    };
    const navigate = 'steps:\n  - tool: navigate\n    args: {url: "https://a.example/"}\n';
    expect(lineRefused(`description: x\nurls:\n  - "https://a.example/*"\n  - "${'*'.repeat(22)}"\n${navigate}`)).toBe(
      4,
    );
    expect(lineRefused(`description: ${'x'.repeat(2001)}\n${navigate}`)).toBe(1);
    expect(lineRefused(`description: x\n${navigate}  - tool: nope\n`)).toBe(5);
    expect(lineRefused(`description: x\n${navigate}  - tool: navigate\n    args: {url: "\${where}"}\n`)).toBe(5);
    expect(
      lineRefused(
        `parameters:\n  type: object\n  properties:\n    a: {type: string}\n    "a-b": {type: string}\n${navigate}`,
      ),
    ).toBe(5);
    expect(lineRefused(`parameters:\n  type: object\n  properties:\n    a: {type: nope}\n${navigate}`)).toBe(4);
    expect(lineRefused(`description: x\n${navigate}  - tool: [\n`)).toBe(6);
    expect(lineRefused(`x: 1\n${navigate}`)).toBeUndefined();
  });
});

describe('the published flow document schema', () => {
  // Rendered from the same zod the parser checks: a document one takes, the other takes.
  const validate = new Ajv2020({ strict: false }).compile(flowDocumentJsonSchema(CAPABILITIES));
  const step = (tool: string, args: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    tool,
    args,
    ...more,
  });
  const documents: Record<string, unknown>[] = [
    { steps: [step('navigate', { url: 'https://a.example/' }, { id: 'go', onError: 'continue', note: 'n' })] },
    {
      name: 'x',
      urls: ['https://a.example/*'],
      steps: [step('interact', { action: 'click', selector: { css: 'a' } })],
    },
    { steps: [step('navigate', { url: 'https://a.example/' }, { colour: 'red' })] },
    { steps: [step('navigate', { url: 'https://a.example/', referrer: 'r' })] },
    { steps: [step('no_such_tool', {})] },
    { steps: [step('open_session', {})] },
    { steps: [step('navigate', { url: 'https://a.example/' }, { id: '9lives' })] },
    { steps: [step('interact', { action: 'click', selector: { css: 'a', xpath: '//a' } })] },
    { steps: [] },
    { steps: [step('navigate', { url: 'https://a.example/' })], owner: 'me' },
    { steps: [step('navigate', { url: 'https://a.example/' })], urls: 'https://a.example/*' },
  ];

  it('takes exactly the documents the parser takes', () => {
    const verdicts = documents.map((document) => {
      const parsed = (() => {
        try {
          parse(document);
          return true;
        } catch {
          return false;
        }
      })();
      return { document, parsed, published: validate(document) };
    });
    expect(verdicts.filter((v) => v.parsed).length).toBe(2);
    for (const verdict of verdicts) {
      expect(verdict.published, JSON.stringify(verdict.document)).toBe(verdict.parsed);
    }
  });
});

describe('params at run time', () => {
  const parameters = {
    type: 'object' as const,
    properties: { email: { type: 'string' }, lang: { type: 'string', default: 'en' } },
    required: ['email'],
  };

  it('get their defaults, then are checked before step one', () => {
    expect(prepare(parameters, { email: 'a@b.c' })).toEqual({ email: 'a@b.c', lang: 'en' });
    expect(() => prepare(parameters, { email: 5 })).toThrow(
      'Invalid params: email must be a string (got a number); pass a string.',
    );
    expect(() => prepare(undefined, { surprise: 1 })).toThrow(/takes no parameters/);
  });

  it.each([
    [{ email: { type: 'string' } }, { email: 5 }, 'email must be a string (got a number); pass a string.'],
    [
      { email: { type: 'string', maxLength: 5 } },
      { email: 'abcdefgh' },
      'email must be at most 5 characters long (got 8); pass a shorter email.',
    ],
    [{ n: { type: 'integer', minimum: 3 } }, { n: 1 }, 'n must be at least 3 (got 1); pass a larger n.'],
    [{ n: { type: 'integer' } }, { n: 1.5 }, 'n must be a whole number (got 1.5); pass a whole number.'],
    [{ n: { type: 'number', exclusiveMaximum: 10 } }, { n: 10 }, 'n must be less than 10 (got 10); pass a smaller n.'],
    [{ n: { type: 'number', multipleOf: 5 } }, { n: 7 }, 'n must be a multiple of 5 (got 7); pass one.'],
    [{ c: { enum: ['x', 'y'] } }, { c: 'z' }, 'c must be one of "x", "y".'],
    [{ c: { const: 'x' } }, { c: 'z' }, 'c must be "x".'],
    [{ c: { enum: [{ a: 1 }] } }, { c: 'z' }, 'c is not a value its schema allows (enum); pass one it lists.'],
    [{ a: { type: 'array', maxItems: 1 } }, { a: [1, 2] }, 'a must hold at most 1 item (got 2); pass fewer.'],
    [
      { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      { a: true },
      'a must be a string or a number (got a boolean); pass a string or a number.',
    ],
    [
      { a: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'number' }] } },
      { a: 'abc' },
      'a must be at most 2 characters long (got 3); pass a shorter a.',
    ],
    [{ a: { type: 'object', required: ['b'] } }, { a: {} }, 'a.b is required; pass a.b.'],
    [{ a: { type: 'object', additionalProperties: false } }, { a: { b: 1 } }, 'a takes no key "b"; drop it.'],
  ])("say the rule and the fix, never Ajv's words: %j %j", (properties, given, sentence) => {
    expect(refused(() => prepare({ type: 'object', properties }, given))).toBe(`Invalid params: ${sentence}`);
  });

  it('say which required one is missing', () => {
    expect(refused(() => prepare(parameters, {}))).toBe('Invalid params: email is required; pass email.');
  });

  it('refuse a run where a step reads a parameter that has no value, and only then', () => {
    const flow = parse({
      parameters: { type: 'object', properties: { a: {}, b: {}, c: {}, unread: {} } },
      steps: [
        { id: 's', tool: 'extract', args: { selector: { css: 'h1' } } },
        { tool: 'navigate', args: { url: 'https://x.example/${a}/${steps.s}' } },
      ],
    });
    expect(() => prepareParams(flow, {})).toThrow(
      'Parameter a has no value: pass it in params, or give it a default in the flow.',
    );
    expect(prepareParams(flow, { a: '' })).toEqual({ a: '' });
    const two = parse({
      parameters: { type: 'object', properties: { a: {}, b: { default: 'x' }, c: {} } },
      steps: [{ tool: 'write', args: { selector: { css: '${c}' }, text: '${a}${b}' } }],
    });
    expect(() => prepareParams(two, {})).toThrow(
      'Parameters c, a have no value: pass them in params, or give them defaults in the flow.',
    );
  });

  it('refuse an object, an array or null a step reads, and take numbers and booleans as text', () => {
    const flow = parse({
      parameters: { type: 'object', properties: { p: {}, q: {} } },
      steps: [{ tool: 'write', args: { selector: { css: '#q' }, text: '${p}' } }],
    });
    const refused = (p: unknown) => () => prepareParams(flow, { p });
    expect(refused({ a: 1 })).toThrow(
      'Parameter p is an object, but steps type parameters as text: pass p as a string (JSON-encoded, if that is what the page wants).',
    );
    expect(refused([1, { b: 2 }])).toThrow('Parameter p is an array, but');
    expect(refused(null)).toThrow('Parameter p is null, but');
    expect(prepareParams(flow, { p: 3, q: { unread: true } })).toEqual({ p: 3, q: { unread: true } });
    expect(substitute(flow.steps[0]?.args ?? {}, { p: false })).toMatchObject({ text: 'false' });
  });

  it('refuse a name the flow does not declare, even where the schema would let it through', () => {
    expect(() => prepare({ ...parameters, additionalProperties: true }, { email: 'a', emial: 'b' })).toThrow(
      'Unknown parameter emial: this flow takes email, lang; pass only those.',
    );
  });
});

describe('url globs', () => {
  it('match the whole URL, * for anything, a bare origin as if it ended in /', () => {
    expect(urlMatches(['https://a.example/*'], 'https://a.example')).toBe(true);
    expect(urlMatches(['https://a.example/*'], 'https://a.example/x?y')).toBe(true);
    expect(urlMatches(['https://a.example/*'], 'https://a.example.evil/')).toBe(false);
    expect(urlMatches(['https://*.example/login'], 'https://b.example/login')).toBe(true);
    expect(urlMatches(undefined, 'https://anything/')).toBe(true);
  });
});

describe('flow names', () => {
  it.each(['../x', '.', 'a/b', 'x'.repeat(65), 'schema'])('refuses %j', (name) => {
    expect(() => checkFlowName(name)).toThrow();
  });

  it('says the rule and the fix, never the name it refused', () => {
    expect(() => checkFlowName('my password is hunter2')).toThrow(
      'Invalid flow name: a flow name is 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit (and not "." or ".."); rename it and call again.',
    );
  });
});

describe('the directory flow store', () => {
  it('keeps the text as written, comments included, with a content revision', async () => {
    const root = await mkdtemp(join(tmpdir(), 'flows-'));
    const store = new DirectoryFlowStore(root);
    expect(await store.names('ws')).toEqual([]);
    const text = '# why this flow exists\nsteps:\n  - tool: navigate # go\n    args: {action: back}\n';
    const { flow, created } = await store.put('ws', 'login', text);
    expect(created).toBe(true);
    expect(await readFile(join(root, 'ws', 'flows', 'login.yaml'), 'utf8')).toBe(text);
    expect((await store.get('ws', 'login'))?.revision).toBe(flow.revision);
    expect(await readdir(join(root, 'ws', 'flows'))).toEqual(['login.yaml']);
  });

  it('refuses a stale If-Match and writes nothing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'flows-'));
    const store = new DirectoryFlowStore(root);
    const first = await store.put('ws', 'f', 'steps: []\n');
    await store.put('ws', 'f', 'steps: [1]\n', first.flow.revision);
    await expect(store.put('ws', 'f', 'steps: [2]\n', first.flow.revision)).rejects.toThrow(
      /has changed since revision/,
    );
    expect((await store.get('ws', 'f'))?.text).toBe('steps: [1]\n');
  });

  it('lists a hand-broken file by name and still reads the others', async () => {
    const root = await mkdtemp(join(tmpdir(), 'flows-'));
    const store = new DirectoryFlowStore(root);
    await store.put('ws', 'good', 'steps:\n  - tool: navigate\n    args: {action: back}\n');
    await writeFile(join(root, 'ws', 'flows', 'broken.yaml'), 'steps: [ {tool: nope');
    expect(await store.names('ws')).toEqual(['broken', 'good']);
  });

  it('takes neither a directory nor a link under a flow name for a flow', async () => {
    const root = await mkdtemp(join(tmpdir(), 'flows-'));
    const outside = join(await mkdtemp(join(tmpdir(), 'outside-')), 'secret.txt');
    await writeFile(outside, 'not-a-flow-7f3a');
    const store = new DirectoryFlowStore(root);
    await store.put('ws', 'good', 'steps: []\n');
    await mkdir(join(root, 'ws', 'flows', 'folder.yaml'));
    await symlink(outside, join(root, 'ws', 'flows', 'link.yaml'));
    expect(await store.names('ws')).toEqual(['good']);
    expect(await store.get('ws', 'folder')).toBeUndefined();
    expect(await store.get('ws', 'link')).toBeUndefined();
    expect(await store.usage('ws')).toMatchObject({ count: 1 });
  });
});
