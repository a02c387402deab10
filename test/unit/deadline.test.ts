import { describe, expect, it } from 'vitest';
import { withinDeadline } from '../../src/capabilities/call/deadline.js';
import { capabilityNamed } from '../../src/capabilities/index.js';
import { TimedOut } from '../../src/errors.js';

const tool = (name: string) => {
  const capability = capabilityNamed(name);
  if (!capability) {
    throw new Error(`no tool ${name}`);
  }
  return capability;
};
/**
 * A call that hangs until it is let go: as a hung WebDriver command fails once its tab is
 * closed. The deadline waits a moment for the stopped call to let go; these let go at once.
 */
function hung(): { run: () => Promise<never>; letGo: () => void } {
  let letGo = () => undefined as void;
  const work = new Promise<never>((_resolve, reject) => {
    letGo = () => reject(new Error('the tab was closed'));
  });
  return { run: () => work, letGo: () => letGo() };
}

describe('a call’s deadline', () => {
  it('answers what the call answered in time, without recovering anything', async () => {
    let recovered = 0;
    const value = await withinDeadline(
      tool('execute_script'),
      {},
      { callTimeoutMs: 60_000 },
      async () => 'done',
      async () => {
        recovered++;
        return 'tab_replaced';
      },
    );
    expect(value).toBe('done');
    expect(recovered).toBe(0);
  });

  it('never outlasts the flow run it is a step of, and recovers the browser first', async () => {
    let recovered = 0;
    const call = hung();
    const stopped = await withinDeadline(
      tool('execute_script'),
      {},
      { callTimeoutMs: 60_000, until: Date.now() + 20 },
      call.run,
      async () => {
        recovered++;
        call.letGo();
        return 'tab_replaced';
      },
    ).catch((err: unknown) => err);
    expect(stopped).toBeInstanceOf(TimedOut);
    expect((stopped as TimedOut).message).toContain('FLOW_RUN_TIMEOUT');
    expect((stopped as TimedOut).message).toContain('its tab was closed');
    expect(recovered).toBe(1);
  });

  it('recovers no browser for a tool that has none, and names CALL_TIMEOUT', async () => {
    let recovered = 0;
    const call = hung();
    setTimeout(call.letGo, 50);
    const stopped = await withinDeadline(tool('list_flows'), {}, { callTimeoutMs: 20 }, call.run, async () => {
      recovered++;
      return 'tab_replaced';
    }).catch((err: unknown) => err);
    expect((stopped as TimedOut).message).toMatch(
      /^list_flows did not finish within 0 s \(CALL_TIMEOUT\), so it was stopped; call again\.$/,
    );
    expect(recovered).toBe(0);
  });
});
