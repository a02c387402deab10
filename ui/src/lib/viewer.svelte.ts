/**
 * One noVNC connection to a workspace's browser, through the server's tunnel. noVNC is loaded
 * with a dynamic import the first time a live view opens: the page's first load never pays
 * for it.
 */

import type RFB from '@novnc/novnc';
import type { BrowserWindow } from './types';

export type Connection = 'connecting' | 'connected' | 'disconnected';

/** What a person reads for the tunnel's own close codes (src/live/tunnel/tunnel.ts). */
const CLOSED: Record<number, string> = {
  1011: "The browser's VNC connection ended; reconnect to watch again.",
  1012: 'The server is restarting; reconnect in a moment.',
};

/** At most this many characters are typed by one Paste: more is a file's job, not a keyboard's. */
export const PASTE_LIMIT = 4000;

/**
 * The X keysym that types a character: Latin-1 is its own code point, the rest of Unicode is
 * the keysym plane 0x01000000 + code point (x11vnc adds a keysym its keymap lacks). Line
 * breaks and tabs are the Return and Tab keys.
 */
export function keysymOf(char: string): number | undefined {
  if (char === '\n') {
    return 0xff0d;
  }
  if (char === '\t') {
    return 0xff09;
  }
  const code = char.codePointAt(0);
  if (code === undefined || code < 0x20 || (code >= 0x7f && code < 0xa0)) {
    return undefined;
  }
  return code <= 0xff ? code : 0x01000000 + code;
}

type Size = { width: number; height: number };

/** What a live view shows of the remote screen, and how large noVNC's element is for that. */
export interface Shown extends Size {
  /** the CSS size of the element noVNC scales the whole screen to: the frame cuts it to the window */
  desktop: Size;
}

export class Viewer {
  connection = $state<Connection>('connecting');
  /** why it is not connected, in a sentence */
  reason = $state('');
  /** the remote screen's size in pixels, once connected: a browser's window may cover only part of it */
  desktop = $state<Size | undefined>();
  private rfb: RFB | undefined;
  private closedOnPurpose = false;

  /** Connects noVNC in `target` to the tunnel at `url` (a ws(s) URL carrying a single-use ticket). */
  async open(target: HTMLElement, url: string): Promise<void> {
    const { default: RFB } = await import('@novnc/novnc');
    if (this.closedOnPurpose) {
      return;
    }
    // Our own socket, so the close code and reason the tunnel sends can be shown.
    const socket = new WebSocket(url);
    socket.addEventListener('close', (event) => {
      if (!this.closedOnPurpose && this.connection !== 'disconnected') {
        this.connection = 'disconnected';
      }
      this.reason ||= CLOSED[event.code] ?? event.reason ?? '';
    });
    const rfb = new RFB(target, socket, { shared: true });
    rfb.viewOnly = true;
    rfb.scaleViewport = true;
    rfb.background = '#2a2a2e';
    this.rfb = rfb;
    rfb.addEventListener('connect', () => {
      this.connection = 'connected';
      this.reason = '';
      // noVNC sizes its canvas to the screen before it says connected; its API has no other door to that size.
      const canvas = target.querySelector('canvas');
      this.desktop = canvas ? { width: canvas.width, height: canvas.height } : undefined;
    });
    rfb.addEventListener('disconnect', () => {
      this.connection = 'disconnected';
      this.reason ||= 'The connection to the browser ended; reconnect to watch again.';
    });
    rfb.addEventListener('securityfailure', (event) => {
      const { detail } = event;
      this.reason = `The browser's VNC server refused this viewer${detail.reason ? `: ${detail.reason}` : ''}.`;
    });
    rfb.addEventListener('credentialsrequired', () => {
      this.reason =
        "The browser's VNC server asks for a password, which the live view does not send: run its nodes without a VNC password behind this server's admin auth (docs/live.md).";
      rfb.disconnect();
    });
  }

  /**
   * The part of the remote screen a frame `frameWidth` CSS pixels wide shows: the browser's window,
   * from the screen's corner, where a watchable browser opens. The screen is larger than most
   * windows (the embedded Grid's is 1920 × 1080) and what lies beyond the window is black: shown
   * whole, it took a third of the picture. The frame takes the window's shape and cuts off the rest
   * of noVNC's element; noVNC maps a click through its own canvas, so it lands where it is made.
   */
  shown(windowSize: BrowserWindow | undefined, frameWidth: number): Shown | undefined {
    const desktop = this.desktop;
    if (!desktop) {
      return undefined;
    }
    const width = Math.min(windowSize?.width ?? desktop.width, desktop.width);
    const height = Math.min(windowSize?.height ?? desktop.height, desktop.height);
    const scale = frameWidth / width;
    return { width, height, desktop: { width: desktop.width * scale, height: desktop.height * scale } };
  }

  /** Keyboard and mouse reach the browser only while the person holds Control. */
  set input(on: boolean) {
    if (this.rfb) {
      this.rfb.viewOnly = !on;
      if (!on) {
        this.rfb.blur();
      }
    }
  }

  focus(): void {
    this.rfb?.focus();
  }

  blur(): void {
    this.rfb?.blur();
  }

  /** Types `text` into whatever has focus in the browser, as key presses; answers how many were typed. */
  type(text: string): number {
    let typed = 0;
    for (const char of text.replace(/\r\n?/g, '\n').slice(0, PASTE_LIMIT)) {
      const keysym = keysymOf(char);
      if (keysym !== undefined && this.rfb) {
        this.rfb.sendKey(keysym, null);
        typed += 1;
      }
    }
    return typed;
  }

  close(): void {
    this.closedOnPurpose = true;
    this.rfb?.disconnect();
    this.rfb = undefined;
  }
}
