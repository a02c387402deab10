// What may be said about a REDIS_URL: where it points, never its password. No ioredis import here,
// so the CLI can name the store without loading the client.

/** host:port/db of a redis:// URL, without its user or password. */
export function redisWhere(url: string): string {
  try {
    const parsed = new URL(url);
    const db = parsed.pathname.replace(/^\//, '');
    return `${parsed.hostname}:${parsed.port || '6379'}${db ? `/${db}` : ''}`;
  } catch {
    return '(an unparsable REDIS_URL)';
  }
}

export function scrubPassword(text: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  if (!password) {
    return text;
  }
  let out = text;
  for (const form of new Set([password, safeDecode(password)])) {
    if (form) {
      out = out.split(form).join('***');
    }
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
