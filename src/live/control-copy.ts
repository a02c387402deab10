/**
 * What Control says to agents: the name a person goes by, checked at the door and again when
 * shown, and the sentences an agent reads while a person holds its browser.
 */

/** The longest name a person goes by in the live view. */
export const MAX_WHO_CHARS = 64;

/**
 * What a person's name may not hold: it is put in front of agents (the 409's sentence,
 * await_control's answer), so a control character, a line break, a bidi override or a zero-width
 * character (Unicode Cc, Cf, Zl, Zp) could rewrite the sentence an agent reads, and `<`, `>` could
 * be read as markup by whatever renders it.
 */
const NOT_IN_A_NAME = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}<>]/gu;

/** The refusal for a name a person sends, or undefined when it may be shown to agents as it is. */
export function whoProblem(who: string): string | undefined {
  if (who.length < 1 || who.length > MAX_WHO_CHARS) {
    return `who is a person's name of 1 to ${MAX_WHO_CHARS} characters; send a shorter one, or none.`;
  }
  if (new RegExp(NOT_IN_A_NAME.source, 'u').test(who)) {
    return 'who may not hold control, line-break, direction (bidi) or zero-width characters, nor < or >; send the name as plain text.';
  }
  return undefined;
}

/**
 * A name as agents read it. Names are refused at the door (whoProblem); this is the second line,
 * for a name that reached the store another way (an older server, a hand-edited Redis key).
 * "admin" and "open" are tokens' names, not a person's: the sentence says "a person".
 */
export function said(who: string): string {
  const plain = who.replace(NOT_IN_A_NAME, '').trim().slice(0, MAX_WHO_CHARS);
  return plain === '' || plain === 'admin' || plain === 'open' ? 'a person' : plain;
}

function hhmm(iso: string): string {
  return iso.slice(11, 16);
}

// The copy of seed 004, verbatim.
export const copy = {
  held: (who: string, since: string) =>
    `${said(who)} has control of this browser since ${hhmm(since)} UTC. Call await_control (POST /browser/await-control), which returns when they hand back.`,
  requested: (who: string, since: string) =>
    `${said(who)} asked for control of this browser at ${hhmm(since)} UTC. Call await_control (POST /browser/await-control), which returns when they hand back.`,
  inFlight: (who: string, since: string) =>
    `${said(who)} asked for control of this browser at ${hhmm(since)} UTC; it is theirs once this call ends. Call await_control, which returns when they hand back.`,
  handedBack: (until: string) =>
    `control of this browser was handed back at ${hhmm(until)} UTC; the page may have changed. Call await_control for what they did, or look at the page before carrying on.`,
  atCap: (who: string) => `still in ${said(who)}'s control; call again.`,
  nobody: 'nobody has control of this browser: carry on.',
  stopping:
    'this replica of selenium-flow is stopping, and the person still has control; call await_control again, and another replica (or this one, restarted) waits on.',
  ended: (who: string) => `the browser ended while ${said(who)} had control: call open_session.`,
  viewerWaiting: "waiting for the agent's call to finish",
};
