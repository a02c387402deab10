import { z } from 'zod';
import { GridUnavailable } from '../errors.js';
import { gridFetch } from './fetch.js';

/** The Grid's GraphQL answer to a session lookup: `session` is null for an id it does not know. */
function sessionAnswer<T extends z.ZodType>(session: T) {
  return z.object({ data: z.object({ session: session.nullish() }).nullish() });
}
const SessionIdAnswer = sessionAnswer(z.object({ id: z.string().optional() }));
const SessionCapabilitiesAnswer = sessionAnswer(z.object({ capabilities: z.string().optional() }));
/** The Grid hands a session's capabilities over as a JSON text of their own. */
const CapabilitiesJson = z.record(z.string(), z.unknown());

/** Whether the Grid's own table of sessions holds this one (Grid.isRunning says why it asks there). */
export async function sessionRunning(gridUrl: string, gridId: string): Promise<boolean> {
  const response = await gridFetch(`${gridUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ query: 'query ($id: String!) { session(id: $id) { id } }', variables: { id: gridId } }),
  });
  if (!response.ok) {
    throw new GridUnavailable(`The Grid's session lookup answered HTTP ${response.status}.`);
  }
  const answer = SessionIdAnswer.safeParse(await response.json());
  return answer.success && answer.data.data?.session?.id === gridId;
}

/**
 * What the Grid knows about a browser it runs, for a caller that holds only its id
 * (stateless mode). Undefined when the Grid does not know the id.
 */
export async function sessionCapabilities(
  gridUrl: string,
  gridId: string,
): Promise<Record<string, unknown> | undefined> {
  const response = await gridFetch(`${gridUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      query: 'query ($id: String!) { session(id: $id) { capabilities } }',
      variables: { id: gridId },
    }),
  });
  if (!response.ok) {
    return undefined;
  }
  try {
    const raw = SessionCapabilitiesAnswer.parse(await response.json()).data?.session?.capabilities;
    return raw ? CapabilitiesJson.parse(JSON.parse(raw)) : undefined;
  } catch {
    // Not the Grid's GraphQL answer: something else (a proxy's error page) answers at GRID_URL.
    throw new GridUnavailable(
      'The Grid did not answer its session lookup in JSON; check that GRID_URL points at the Grid itself, then retry.',
    );
  }
}
