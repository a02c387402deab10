/// <reference lib="dom" />
/**
 * The in-page scripts that keep a typed secret out of what the page shows: set it into its
 * field, and blank every such field around a capture. They travel as scripts.ts says (`inPage`).
 */

// Every document a capture shows that a script can reach: the top page's, when this frame may
// read it, and each same-origin frame below. A frame on another origin is out of reach; see
// docs/security.md.
export function documentsInReach(): Document[] {
  const docs: Document[] = [];
  const walk = (doc: Document): void => {
    if (docs.includes(doc)) {
      return;
    }
    docs.push(doc);
    for (const f of doc.querySelectorAll<HTMLIFrameElement>('iframe,frame')) {
      try {
        if (f.contentDocument) {
          walk(f.contentDocument);
        }
      } catch {
        // another origin's frame
      }
    }
  };
  try {
    walk(top!.document);
  } catch {
    // a cross-origin top
  }
  walk(document);
  return docs;
}

type Masked = (HTMLInputElement | HTMLTextAreaElement) & { seleniumFlowMasked?: string };

/**
 * Blanks each field a secret was typed into (through the native setter, so no listener and no
 * framework copy hears of it; the value stays in the page, on the element), and answers the
 * text a capture would show besides: the pages' text and the unmarked fields' values. Needs
 * `documentsInReach`.
 */
export function maskSecrets(): string {
  const shown: string[] = [];
  for (const doc of documentsInReach()) {
    for (const el of doc.querySelectorAll<Masked>('[data-selenium-flow-secret]')) {
      const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      const d = Object.getOwnPropertyDescriptor(proto, 'value')!;
      if (!('seleniumFlowMasked' in el)) {
        el.seleniumFlowMasked = String(d.get!.call(el));
        d.set!.call(el, '');
      }
    }
    shown.push(doc.title, doc.body ? doc.body.innerText : '');
    for (const el of doc.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
      'input:not([data-selenium-flow-secret]):not([type=password]),textarea:not([data-selenium-flow-secret])',
    )) {
      shown.push(el.value);
    }
  }
  return shown.join('\n');
}

/** Puts back what maskSecrets blanked. Needs `documentsInReach`. */
export function unmaskSecrets(): void {
  for (const doc of documentsInReach()) {
    for (const el of doc.querySelectorAll<Masked>('[data-selenium-flow-secret]')) {
      if (!('seleniumFlowMasked' in el)) {
        continue;
      }
      const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, el.seleniumFlowMasked);
      delete el.seleniumFlowMasked;
    }
  }
}

/**
 * Sets a secret into its field in one synchronous script (fill.ts says why), unless the page
 * or its top moved to another origin first; answers what happened and the field's type.
 */
export function setSecret(
  el: HTMLInputElement | HTMLTextAreaElement,
  value: string,
  clear: boolean,
  frameOrigin: string,
  topOrigin: string,
  notTyped: string[],
): [string, string] {
  if (location.origin !== frameOrigin) {
    return ['moved', location.origin];
  }
  let topAt: string | null = null;
  try {
    topAt = window.top!.location.origin;
  } catch {
    // a cross-origin top: the driver's own address said where it is
  }
  if (topAt !== null && topAt !== topOrigin) {
    return ['moved', topAt];
  }
  if (!el.isConnected || el.ownerDocument !== document) {
    return ['gone', ''];
  }
  const proto =
    el instanceof HTMLTextAreaElement
      ? HTMLTextAreaElement.prototype
      : el instanceof HTMLInputElement
        ? HTMLInputElement.prototype
        : null;
  const type = proto === HTMLInputElement.prototype ? el.type : 'textarea';
  if (!proto || notTyped.includes(type)) {
    return ['not a field', el.tagName.toLowerCase() + (proto ? '[type=' + type + ']' : '')];
  }
  if (el.disabled || el.readOnly) {
    return ['read-only', type];
  }
  let next = clear ? value : el.value + value;
  if (el.maxLength >= 0) {
    next = next.slice(0, el.maxLength);
  }
  el.focus();
  Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, next);
  el.setAttribute('data-selenium-flow-secret', '');
  el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertReplacementText' }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return ['typed', type];
}
