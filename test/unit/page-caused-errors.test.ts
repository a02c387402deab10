import { error as wdError } from 'selenium-webdriver';
import { describe, expect, it } from 'vitest';
import { explainWebDriverError } from '../../src/browser/errors.js';
import { BadRequest, PageUnreachable } from '../../src/errors.js';
import { errorSummary } from '../../src/http/plugins/errors.js';

// chromedriver's answer, recorded on the real Grid, when a page's JSON.stringify throws a message
// of its own choosing (test/fixtures/site/hostile/breaks-json.html): the page's address, title and
// field value, over several lines, then a frame of the page's script.
const PAGE_CHOSEN = `unknown error: Runtime.callFunctionOn threw exception: Error: broken
page http://127.0.0.1:20102/hostile/breaks-json.html Breaks JSON typed-value-7f3a
    at JSON.stringify (http://127.0.0.1:20102/hostile/breaks-json.html:11:15)
    at buildError (<anonymous>:374:18)
  (Session info: chrome=156.0.8078.129)`;

describe('the log line of an unexpected error', () => {
  it('keeps the class and this process’s own frames, never a line the page chose', () => {
    let thrown: unknown;
    try {
      wdError.throwDecodedError({ error: 'unknown error', message: PAGE_CHOSEN });
    } catch (err) {
      thrown = err;
    }
    const summary = errorSummary(thrown);
    expect(summary.type).toBe('WebDriverError');
    for (const said of ['127.0.0.1', 'breaks-json', 'Breaks JSON', 'typed-value-7f3a', 'anonymous', 'Session info']) {
      expect(summary.stack).not.toContain(said);
    }
    // what is left locates this process's code: the frames that threw it
    expect(summary.stack).toMatch(/^ {4}at .*page-caused-errors\.test\.ts:\d+:\d+\)?$/m);
    expect(summary.stack?.split('\n').every((line) => line.startsWith('    at '))).toBe(true);
  });
});

describe('chromedriver answers a page can cause', () => {
  const decoded = (message: string): unknown => {
    try {
      wdError.throwDecodedError({ error: 'unknown error', message });
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it('a node the page replaced mid-command is the element changing, not a 500', () => {
    // Recorded by a reviewer: about 3 writes in 40 on a page that re-renders every 150 ms.
    const answer = explainWebDriverError(
      decoded(
        'unknown error: unhandled inspector error: {"code":-32000,"message":"Node with given id does not belong to the document"}\n  (Session info: chrome=156.0.8078.129)',
      ),
    );
    expect(answer).toBeInstanceOf(BadRequest);
    expect((answer as Error).message).toBe(
      'The element changed while it was being used (the page re-rendered); call again.',
    );
  });

  it('a page that breaks the driver’s scripts is said as such, quoting nothing of the page', () => {
    const answer = explainWebDriverError(decoded(PAGE_CHOSEN));
    expect(answer).toBeInstanceOf(PageUnreachable);
    expect((answer as Error).message).not.toContain('breaks-json');
  });
});
