import { z } from 'zod';
import { CONTROL_APPLIES, type ControlState } from './answers.js';
import { LiveDocuments, type LiveStore } from './live-store.js';
import type { Visited } from './pages.js';

/**
 * A person's Control of a workspace's browser, one episode per workspace: requested → held →
 * handed_back. The episode lives in the workspace store (memory, or the Redis every replica
 * shares), so control taken through one replica refuses agents on every replica.
 */
const storedEpisode = z.object({
  state: z.enum(CONTROL_APPLIES),
  /** the person, as the admin page names them */
  who: z.string(),
  /** when they asked (ISO) */
  since: z.string(),
  /** when it became theirs (ISO) */
  granted: z.string().optional(),
  /** the viewers (tunnels, or "api" for POST …/control) that hold it: it is held while any does */
  holders: z.array(z.string()),
  /** the browser it was taken on */
  gridId: z.string().optional(),
});

export type Episode = z.infer<typeof storedEpisode>;

const storedHandBack = z.object({
  who: z.string(),
  since: z.string(),
  until: z.string(),
  ended: z.boolean().optional(),
});

export type HandBack = z.infer<typeof storedHandBack>;

/** What a result carries while control applies, and once after an unsaid hand-back. */
export type ControlNotice = {
  state: ControlState;
  who: string;
  since: string;
  hint: string;
};

/** What await_control found: nobody in control, still held at the cap, or the hand-back with what they did. */
export type AwaitedHandBack =
  | { state: 'nobody' }
  | { state: 'still'; episode: Episode }
  | { state: 'handed_back'; back: HandBack; visited: Visited };

/** An episode outlives no browser: a day at most, and every write renews it. */
const EPISODE_TTL_MS = 24 * 60 * 60 * 1000;
const HANDBACK_TTL_MS = 60 * 60 * 1000;

/** Each workspace's episode, while one applies. */
export function episodesIn(store: LiveStore): LiveDocuments<Episode> {
  return new LiveDocuments(store, (workspace) => `control:${workspace}`, storedEpisode, EPISODE_TTL_MS);
}

/** The hand-back an episode ends in, kept until an agent is told of it (said once). */
export function handBacksIn(store: LiveStore): LiveDocuments<HandBack> {
  return new LiveDocuments(store, (workspace) => `handback:${workspace}`, storedHandBack, HANDBACK_TTL_MS);
}
