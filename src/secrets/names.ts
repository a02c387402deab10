/**
 * What a secret and a key may be called. A name becomes a path segment on disk and in the
 * Kubernetes API, so it is checked, never repaired: no `/`, no `..`, no leading dot.
 */
export const SECRET_NAME_RULE =
  'a secret name is 1-253 letters, digits, ".", "_" or "-", starting with a letter or digit, without ".."';
export const SECRET_KEY_RULE =
  'a key is 1-253 letters, digits, ".", "_" or "-", starting with a letter or digit, without ".."';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/;

export function isSecretName(name: string): boolean {
  return NAME.test(name) && !name.includes('..');
}

/** Keys share the rule; `_` and `.` starts are reserved (metadata, projected-volume machinery). */
export function isKeyName(key: string): boolean {
  return NAME.test(key) && !key.includes('..');
}

/** `_description` and `_allowed_urls` carry metadata on disk; any `_` name is never a key. */
export const RESERVED_DESCRIPTION = '_description';
export const RESERVED_ALLOWED_URLS = '_allowed_urls';
