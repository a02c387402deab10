import { call, describe } from './api.svelte';

/**
 * A server-sent event stream read with fetch, because EventSource cannot send the token as a
 * header (and the token never goes in a URL). When the stream breaks it is opened again after
 * a pause, with the last id it saw as Last-Event-ID so nothing in between is lost, and
 * `onstate` says so (with the server's reason when it refused), so the page can say it is
 * reconnecting.
 */
export function openStream(
  path: string,
  onevent: (data: unknown) => void,
  onstate: (connected: boolean, reason?: string) => void,
): () => void {
  const abort = new AbortController();
  let lastId: string | undefined;
  const run = async () => {
    let pause = 500;
    while (!abort.signal.aborted) {
      let reason: string | undefined;
      try {
        const response = await call(path, {
          signal: abort.signal,
          headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        });
        onstate(true);
        pause = 500;
        await readEvents(response, onevent, (id) => (lastId = id));
      } catch (err) {
        // refused or unreachable: try again below
        reason = describe(err);
      }
      if (abort.signal.aborted) {
        return;
      }
      onstate(false, reason);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 5000);
    }
  };
  void run();
  return () => abort.abort();
}

async function readEvents(
  response: Response,
  onevent: (data: unknown) => void,
  onid: (id: string) => void,
): Promise<void> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) {
    return;
  }
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      return;
    }
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const field = (name: string) =>
        block
          .filter((line) => line.startsWith(`${name}:`))
          .map((line) => line.slice(name.length + 1).trimStart())
          .join('\n');
      const data = field('data');
      if (data) {
        try {
          onevent(JSON.parse(data));
        } catch {
          // not JSON: nothing this page can show
        }
      }
      const id = field('id');
      if (id) {
        onid(id);
      }
    }
  }
}
