import { call } from './api.svelte';

/**
 * A server-sent event stream read with fetch, because EventSource cannot send the token as a
 * header (and the token never goes in a URL). When the stream breaks it is opened again after
 * a pause, and `onstate` says so, so the page can say it is reconnecting.
 */
export function openStream(
  path: string,
  onevent: (data: unknown) => void,
  onstate: (connected: boolean) => void,
): () => void {
  const abort = new AbortController();
  const run = async () => {
    let pause = 500;
    while (!abort.signal.aborted) {
      try {
        const response = await call(path, { signal: abort.signal, headers: { accept: 'text/event-stream' } });
        onstate(true);
        pause = 500;
        await readEvents(response, onevent);
      } catch {
        // refused or unreachable: try again below
      }
      if (abort.signal.aborted) {
        return;
      }
      onstate(false);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 5000);
    }
  };
  void run();
  return () => abort.abort();
}

async function readEvents(response: Response, onevent: (data: unknown) => void): Promise<void> {
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
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) {
        try {
          onevent(JSON.parse(data));
        } catch {
          // a comment or keep-alive line
        }
      }
    }
  }
}
