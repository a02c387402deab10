import { error as wdError } from 'selenium-webdriver';
import { describe, expect, it } from 'vitest';
import { browserNotStarted } from '../../src/grid/failures.js';

// The 4.48 Grid's "session not created" messages, recorded from a node whose Firefox binary was a
// script that exits 1 (the integration test covers a geckodriver that dies, on a real Grid).
const BAD_BINARY = `Could not start a new session. Error while creating session with the driver service. Stopping driver service: Could not start a new session. Response code 400. Message: binary is not a Firefox executable 
Host info: host: 'vm', ip: '127.0.0.1'
Build info: version: '4.48.0', revision: '27f5213 27f5213055e28398a5105b7892b7a3bb2012a6ef'`;
const QUEUE_TIMEOUT = 'Could not start a new session. New session request timed out';

describe('a browser the Grid has but cannot start', () => {
  it('says which browser, quotes only the driver’s own line, and names the other browser when the Grid has it', () => {
    const refusal = browserNotStarted(
      new wdError.SessionNotCreatedError(BAD_BINARY),
      'firefox',
      new Set(['chrome', 'firefox']),
    );
    expect(refusal?.message).toBe(
      'The Grid\'s node could not start Firefox: geckodriver started but Firefox did not ("binary is not a Firefox executable"). Check Firefox on the node, or pass browser: "chrome".',
    );
    expect(refusal?.message).not.toContain('127.0.0.1');
  });

  it('leaves a busy Grid and other errors to the general answer', () => {
    expect(browserNotStarted(new wdError.SessionNotCreatedError(QUEUE_TIMEOUT), 'firefox')).toBeUndefined();
    expect(browserNotStarted(new Error('socket hang up'), 'chrome')).toBeUndefined();
  });
});
