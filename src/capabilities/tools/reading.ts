import { z } from 'zod';
import { navigateTo } from '../../browser/navigation.js';
import { readPageState } from '../../browser/page-state.js';
import { extract } from '../../browser/reading.js';
import { outline } from '../../browser/outline.js';
import { waitForCondition } from '../../browser/script.js';
import { defineTool, shortText } from '../capability.js';
import { CARRIED } from '../../secrets/secret-call.js';
import { checked, exactlyOne, maxChars, selector, waitOf, waitTimeout, webUrl } from '../schemas.js';
import { MAX_LINE_CHARS, MAX_SCRIPT_CHARS, MAX_WORD_CHARS } from '../../limits.js';

/** A reader that blanked what carried a secret before cutting its text says so, as the call path would. */
const WITHHELD = { withheld: true as const, withheld_reason: CARRIED };

export const extractTool = defineTool({
  name: 'extract',
  title: 'Extract',
  description: 'Text, html, value or attribute of selector, or of the page.',
  kind: 'read',
  // url navigates first
  readOnly: false,
  attach: 'existing',
  runnableInFlow: true,
  // with a url it goes there first: the person's page would move
  navigates: (args) => args.url !== undefined,
  answersUnderControl: (args) => args.url === undefined,
  summary: (_args, result) => `read ${shortText(result.value ?? result.values)}`,
  draft: { returns: true },
  input: z.object({
    selector: selector.optional(),
    what: z.enum(['text', 'html', 'value', 'attribute']).optional().describe('default text'),
    attribute: z.string().min(1).max(MAX_WORD_CHARS).optional().describe('for what: attribute'),
    all: z.boolean().optional().describe('every match'),
    max_chars: maxChars(4000),
    url: webUrl.optional(),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    args.what === 'attribute' && !args.attribute
      ? 'what "attribute" needs attribute: the name to read, e.g. "href".'
      : undefined,
  output: z.object({
    value: z.string().nullable().optional().describe('the first match (without all)'),
    values: z.array(z.string().nullable()).optional().describe('every match (with all)'),
    truncated: z.boolean().optional(),
  }),
  handler: async (args, { driver, secrets, remember }) => {
    if (args.url !== undefined && (await driver.getCurrentUrl()) !== args.url) {
      await navigateTo(driver, args.url);
      remember({ frames: 0 });
    }
    const read = await extract(driver, {
      selector: args.selector,
      read:
        args.what === 'attribute'
          ? { what: args.what, attribute: checked(args.attribute, 'attribute') }
          : { what: args.what ?? 'text' },
      all: args.all ?? false,
      maxChars: args.max_chars ?? 4000,
      waitSeconds: waitOf(args),
      carriesSecret: (text) => secrets.carries(text),
    });
    const truncated = { ...(read.truncated ? { truncated: true } : {}), ...(read.withheld ? WITHHELD : {}) };
    return args.all ? { values: read.values, ...truncated } : { value: read.values[0] ?? null, ...truncated };
  },
});

export const outlineTool = defineTool({
  name: 'outline',
  title: 'Outline',
  description: "The page's structure, with a selector for every control.",
  kind: 'read',
  attach: 'existing',
  runnableInFlow: true,
  answersUnderControl: true,
  draft: { returns: true },
  input: z.object({ selector: selector.optional(), max_chars: maxChars(10000) }),
  output: z.object({ url: z.string(), title: z.string(), outline: z.string(), truncated: z.boolean().optional() }),
  handler: async (args, { driver, secrets }) => {
    const [state, map] = await Promise.all([
      readPageState(driver),
      outline(driver, args.selector, args.max_chars ?? 10000, (text) => secrets.carries(text)),
    ]);
    return {
      url: state.url,
      title: state.title,
      outline: map.outline,
      ...(map.truncated ? { truncated: true } : {}),
      ...(map.withheld ? WITHHELD : {}),
    };
  },
});

export const assertTool = defineTool({
  name: 'assert',
  title: 'Assert',
  description: 'Wait until script is true or selector in state, else fail.',
  kind: 'read',
  // a script condition is any JavaScript, which can change the page
  readOnly: false,
  attach: 'existing',
  runnableInFlow: true,
  summary: () => 'passed',
  draft: { returns: true },
  input: z.object({
    script: z.string().min(1).max(MAX_SCRIPT_CHARS).optional().describe('JS returning true'),
    selector: selector.optional(),
    state: z.enum(['present', 'absent', 'visible', 'hidden']).optional().describe('default present'),
    timeout: z.number().min(0).max(120).optional().describe('seconds (default 5)'),
    stable_for: z.number().int().min(0).max(60_000).optional().describe('ms it must hold'),
    message: z.string().min(1).max(MAX_LINE_CHARS).describe('said on failure'),
  }),
  check: (args) =>
    exactlyOne(args, ['script', 'selector']) ? undefined : 'Pass exactly one of script or selector (with state).',
  output: z.object({ passed: z.literal(true), waited_ms: z.number() }),
  handler: async (args, { driver }) => {
    const condition = args.selector
      ? { selector: args.selector, state: args.state ?? 'present' }
      : { script: args.script ?? '' };
    const waited = await waitForCondition(driver, condition, args.timeout ?? 5, args.stable_for ?? 0, args.message);
    return { passed: true as const, waited_ms: waited };
  },
});

export default [extractTool, outlineTool, assertTool];
