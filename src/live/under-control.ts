import type { Controls } from './control.js';

/** What the check reads of a pending call (live/ stays below capabilities/: the shape, not the type). */
interface ControlledCall {
  capability: { answersUnderControl(args: Record<string, unknown>): boolean };
  args: Record<string, unknown>;
  caller: { workspace?: string };
}

/**
 * The call path's check (a precondition, read off the row's answersUnderControl): while a
 * person's Control applies, every call that would change the browser is refused; reads that
 * leave the page and window as the person left them answer.
 */
export function underControl(controls: Controls): { check(call: ControlledCall): Promise<void> } {
  return {
    async check(call) {
      if (call.capability.answersUnderControl(call.args)) {
        return;
      }
      const refusal = await controls.refusal(call.caller.workspace);
      if (refusal) {
        throw refusal;
      }
    },
  };
}
