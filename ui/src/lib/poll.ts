/**
 * Calls `load` now and then every `everyMs` until stopped; while the server cannot be reached
 * it keeps trying, so the page recovers by itself when the server is back. A tab nobody looks
 * at (hidden) does not poll; it reads at once when it is shown again.
 */
export function poll(load: (signal: AbortSignal) => Promise<unknown>, everyMs: number): () => void {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asleep = false;
  const tick = async () => {
    if (document.visibilityState === 'hidden') {
      asleep = true;
      return;
    }
    try {
      await load(abort.signal);
    } catch {
      // the view shows its own error; the next tick tries again
    }
    if (!abort.signal.aborted) {
      timer = setTimeout(() => void tick(), everyMs);
    }
  };
  const wake = () => {
    if (asleep && document.visibilityState === 'visible' && !abort.signal.aborted) {
      asleep = false;
      void tick();
    }
  };
  document.addEventListener('visibilitychange', wake);
  void tick();
  return () => {
    abort.abort();
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', wake);
  };
}

/** `2026-12-03T15:44:00Z` → "3 min ago"; the full time goes in the title. */
export function ago(iso: string | undefined | null, now = Date.now()): string {
  if (!iso) {
    return '—';
  }
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) {
    return '—';
  }
  if (seconds < 60) {
    return 'just now';
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

/** Only http(s) becomes a link: `javascript:` is a URL too. */
export function safeHref(url: string | undefined | null): string | undefined {
  if (!url) {
    return undefined;
  }
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A size in bytes as a person reads it: 512 B, 12 KB, 3.4 MB. */
export const bytes = (n: number) =>
  n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(0)} KB` : `${(n / 1048576).toFixed(1)} MB`;
