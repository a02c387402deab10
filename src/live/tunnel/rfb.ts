import { createCipheriv } from 'node:crypto';

/**
 * The parts of RFB (the VNC protocol, RFC 6143) the live tunnel speaks itself: a byte queue to
 * read a websocket's stream by length, the version and security handshakes, VNC
 * Authentication, and the client messages a viewer may send.
 */

/** A tunnel's ending, with the close code and the reason its viewer shows. */
export class TunnelEnd extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Close codes a viewer sees, each with a reason it can show. */
export const CLOSE = {
  normal: 1000,
  /** the viewer sent what the live view does not pass (an unknown message, a length over its bound) */
  refused: 1008,
  /** the Grid's VNC went away, never answered, or refused the password */
  upstream: 1011,
  /** the server is stopping: reconnect in a moment */
  restart: 1012,
} as const;

/**
 * A websocket's messages as one byte stream, read by length: RFB's messages do not follow the
 * frames they arrive in. Holds at most `limit` unread bytes; more ends the tunnel.
 */
export class ByteQueue {
  private chunks: Buffer[] = [];
  private size = 0;
  private want: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  private failed: Error | undefined;

  constructor(
    private readonly limit: number,
    private readonly overflow: () => TunnelEnd,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed) {
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.fail(this.overflow());
      return;
    }
    this.settle();
  }

  /** The next `n` bytes, once they have arrived. */
  read(n: number): Promise<Buffer> {
    if (this.failed) {
      return Promise.reject(this.failed);
    }
    if (this.size >= n) {
      return Promise.resolve(this.take(n));
    }
    return new Promise((resolve, reject) => {
      this.want = { n, resolve, reject };
    });
  }

  /** Whatever arrived and was not read, leaving the queue empty. */
  drain(): Buffer {
    return this.take(this.size);
  }

  fail(error: Error): void {
    this.failed ??= error;
    const want = this.want;
    this.want = undefined;
    want?.reject(this.failed);
  }

  private settle(): void {
    const want = this.want;
    if (want && this.size >= want.n) {
      this.want = undefined;
      want.resolve(this.take(want.n));
    }
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
    return out;
  }
}

/** RFB 3.3, 3.7 or 3.8: what a version line says, as RFC 6143 §7.1.1 maps unknown minors. */
export type Version = 3 | 7 | 8;

export function versionOf(line: Buffer): Version | undefined {
  const match = /^RFB 003\.(\d{3})\n$/.exec(line.toString('latin1'));
  if (!match) {
    return undefined;
  }
  const minor = Number(match[1]);
  // 3.889 is Apple's 3.8; 3.4 to 3.6 were never published and speak 3.3.
  return minor >= 8 ? 8 : minor === 7 ? 7 : minor >= 3 ? 3 : undefined;
}

export function versionLine(version: Version): Buffer {
  return Buffer.from(`RFB 003.00${version}\n`, 'latin1');
}

export const SECURITY = { none: 1, vncAuth: 2 } as const;

/**
 * VNC Authentication's answer (RFC 6143 §7.2.2): the 16-byte challenge encrypted with DES, the
 * key being the password's first 8 bytes (zero-padded) with each byte's bits reversed. OpenSSL 3
 * keeps single DES in its legacy provider, which Node does not load; triple DES with one key
 * three times (E·D·E under the same key) is single DES, and stays in the default provider.
 */
export function vncAuthResponse(password: string, challenge: Buffer): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, 'latin1').copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i++) {
    key[i] = reverseBits(key[i]!);
  }
  const cipher = createCipheriv('des-ede3-ecb', Buffer.concat([key, key, key]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(challenge), cipher.final()]);
}

function reverseBits(byte: number): number {
  let out = 0;
  for (let i = 0; i < 8; i++) {
    out = (out << 1) | ((byte >> i) & 1);
  }
  return out;
}

/** Client-to-server message types (RFC 6143 §7.5) the tunnel passes. */
export const CLIENT = {
  setPixelFormat: 0,
  setEncodings: 2,
  framebufferUpdateRequest: 3,
  keyEvent: 4,
  pointerEvent: 5,
  clientCutText: 6,
} as const;

/** At most this many encodings in one SetEncodings (noVNC asks about 30). */
export const MAX_ENCODINGS = 256;
/** The largest clipboard text a viewer may send (a Paste is key presses, not this). */
export const MAX_CUT_TEXT = 256 * 1024;
/** The largest desktop name a VNC server may announce. */
export const MAX_NAME = 4096;
/** The longest reason a VNC server may give for a refusal. */
export const MAX_REASON = 4096;

/**
 * Whether the tunnel lets the viewer announce an encoding. Every ordinary encoding (≥ 0) is a
 * way to draw rectangles, server to viewer only. Of the pseudo-encodings only those that make
 * the server send something and the viewer answer nothing: announcing another (QEMU extended
 * key events, fences, continuous updates, xvp, extended desktop size, extended clipboard,
 * extended mouse buttons…) would make noVNC send messages this tunnel does not parse.
 */
export function passesEncoding(encoding: number): boolean {
  return (
    encoding >= 0 ||
    (encoding >= -32 && encoding <= -23) || // JPEG quality
    (encoding >= -256 && encoding <= -247) || // compression level
    (encoding >= -512 && encoding <= -412) || // fine quality
    (encoding >= -768 && encoding <= -763) || // subsampling
    encoding === -223 || // DesktopSize
    encoding === -224 || // LastRect
    encoding === -239 || // Cursor
    encoding === -240 || // XCursor
    encoding === -260 || // TightPNG
    encoding === -307 // DesktopName
  );
}

/** A SetEncodings message naming only the encodings the tunnel passes. */
export function filteredSetEncodings(encodings: Buffer): Buffer {
  const kept: number[] = [];
  for (let i = 0; i + 4 <= encodings.length; i += 4) {
    const encoding = encodings.readInt32BE(i);
    if (passesEncoding(encoding)) {
      kept.push(encoding);
    }
  }
  const message = Buffer.alloc(4 + 4 * kept.length);
  message.writeUInt8(CLIENT.setEncodings, 0);
  message.writeUInt16BE(kept.length, 2);
  kept.forEach((encoding, i) => message.writeInt32BE(encoding, 4 + 4 * i));
  return message;
}
