import { fetchGridStatus } from '../grid/status.js';
import { poll } from '../poll.js';
import type { RecentLines } from './launch.js';
import { exitDescription, hasExited, outputDrained, type SupervisedProcess } from './processes.js';

const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 150;

/**
 * Polls the Grid's /status until it is ready: a standalone Grid (`nodes` undefined) once it says
 * so, a hub once `nodes` nodes have registered and are up. Fails with the Grid's last output as
 * soon as one of its processes exits, or when the time is out.
 */
export async function untilGridReady(
  url: string,
  processes: readonly SupervisedProcess[],
  log: RecentLines,
  nodes?: number,
): Promise<void> {
  const what = nodes === undefined ? 'The embedded Selenium Grid' : 'A process of the embedded hub-and-node Grid';
  const ready = await poll(
    async () => {
      const ended = processes.find((p) => hasExited(p.child));
      if (ended) {
        await outputDrained(ended.child);
        throw new Error(`${what} exited before it was ready (${exitDescription(ended.child)}).\n${log.text()}`);
      }
      return (await isReady(url, nodes)) || undefined;
    },
    READY_TIMEOUT_MS,
    READY_POLL_MS,
  );
  if (ready) {
    return;
  }
  const seconds = READY_TIMEOUT_MS / 1000;
  throw new Error(
    nodes === undefined
      ? `The embedded Selenium Grid was not ready within ${seconds} s.\n${log.text()}`
      : `The embedded hub did not see ${nodes} node(s) within ${seconds} s.\n${log.text()}`,
  );
}

/** Ready, and with a hub, that many nodes registered and UP (not while the hub is not ready). */
async function isReady(url: string, nodes: number | undefined): Promise<boolean> {
  try {
    const status = await fetchGridStatus(url);
    if (status.ready !== true) {
      return false;
    }
    return nodes === undefined || (status.nodes ?? []).filter((n) => n.availability === 'UP').length >= nodes;
  } catch {
    return false;
  }
}
