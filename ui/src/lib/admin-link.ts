/**
 * The banner's one-time admin link (`…/admin/#code=…`): read once, before the router reads the
 * address, and taken out of the address bar and history at once, so neither a reload, a
 * bookmark nor the back button holds it. A fragment never reaches the server, a proxy or a
 * Referer header; the code goes to the server only in the body of one POST.
 */
import { apiUrl, session, signIn, signOut } from './api.svelte';

const match = /^#code=([A-Za-z0-9_-]{1,200})$/.exec(location.hash);
if (match) {
  history.replaceState(history.state, '', location.pathname + location.search);
  void exchange(match[1] ?? '');
}

async function exchange(code: string): Promise<void> {
  session.linking = true;
  try {
    const response = await fetch(apiUrl('session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const answer = (await response.json().catch(() => undefined)) as
      { token?: string; error?: { message?: string } } | undefined;
    if (response.ok && answer?.token) {
      signIn(answer.token);
    } else {
      signOut(answer?.error?.message ?? `The server answered HTTP ${response.status} to the admin link.`);
    }
  } catch {
    signOut('The server cannot be reached; start it again for a new admin link.');
  } finally {
    session.linking = false;
  }
}
