import type { ByteQueue } from './rfb.js';
import {
  CLOSE,
  MAX_NAME,
  MAX_REASON,
  SECURITY,
  TunnelEnd,
  versionLine,
  versionOf,
  vncAuthResponse,
  type Version,
} from './rfb.js';

/** The setting that holds the nodes' VNC password, named in the reasons a viewer reads. */
export const PASSWORD_SETTING = 'GRID_VNC_PASSWORD';

const lost = (reason: string) => new TunnelEnd(CLOSE.upstream, reason);

/**
 * The tunnel's side as the VNC server's client (RFC 6143 §7.1–7.3): the version, the security
 * handshake (None, or VNC Authentication with the configured password, which never leaves this
 * server), ClientInit asking to share the desktop. Answers the ServerInit message, whole, for
 * the viewer. `greeted` is called once the server's version line arrived.
 */
export async function greetUpstream(
  queue: ByteQueue,
  send: (bytes: Buffer) => void,
  password: string | undefined,
  greeted: () => void,
): Promise<Buffer> {
  const line = await queue.read(12);
  greeted();
  const offered = versionOf(line);
  if (offered === undefined) {
    throw lost("The browser's VNC server speaks no RFB 3.x; the live view cannot show it.");
  }
  send(versionLine(offered));
  const type = await chooseSecurity(queue, send, offered, password);
  if (type === SECURITY.vncAuth) {
    const challenge = await queue.read(16);
    send(vncAuthResponse(password ?? '', challenge));
  }
  // RFB 3.3 and 3.7 send no SecurityResult after None.
  if (type === SECURITY.vncAuth || offered === 8) {
    const result = (await queue.read(4)).readUInt32BE(0);
    if (result !== 0) {
      if (offered === 8) {
        await readReason(queue);
      }
      throw lost(
        type === SECURITY.vncAuth
          ? `The browser's VNC refused ${PASSWORD_SETTING}; set it to the nodes' VNC password.`
          : "The browser's VNC refused the connection.",
      );
    }
  }
  // Shared: the agent's own tools and other viewers may be connected too.
  send(Buffer.from([1]));
  const head = await queue.read(24);
  const nameLength = head.readUInt32BE(20);
  if (nameLength > MAX_NAME) {
    throw lost("The browser's VNC server announced a desktop name over 4 KiB; the live view cannot show it.");
  }
  return Buffer.concat([head, await queue.read(nameLength)]);
}

async function chooseSecurity(
  queue: ByteQueue,
  send: (bytes: Buffer) => void,
  version: Version,
  password: string | undefined,
): Promise<number> {
  let offered: number[];
  if (version === 3) {
    // 3.3: the server decides, one u32.
    const type = (await queue.read(4)).readUInt32BE(0);
    if (type === 0) {
      await readReason(queue);
      throw lost("The browser's VNC refused the connection.");
    }
    offered = [type];
  } else {
    const count = (await queue.read(1))[0]!;
    if (count === 0) {
      await readReason(queue);
      throw lost("The browser's VNC refused the connection.");
    }
    offered = [...(await queue.read(count))];
  }
  const type = offered.includes(SECURITY.none)
    ? SECURITY.none
    : offered.includes(SECURITY.vncAuth)
      ? SECURITY.vncAuth
      : undefined;
  if (type === undefined) {
    throw lost(
      `The browser's VNC asks a security type the live view does not speak (${offered.slice(0, 8).join(', ')}).`,
    );
  }
  if (type === SECURITY.vncAuth && password === undefined) {
    throw lost(`The browser's VNC asks a password; set ${PASSWORD_SETTING} to the nodes' VNC password.`);
  }
  if (version !== 3) {
    send(Buffer.from([type]));
  }
  return type;
}

/** A refusal's reason: read to keep the stream in step, never shown (it is the server's text, not ours). */
async function readReason(queue: ByteQueue): Promise<void> {
  const length = (await queue.read(4)).readUInt32BE(0);
  await queue.read(Math.min(length, MAX_REASON));
}

/**
 * The tunnel's side as the viewer's VNC server: RFB 3.8 (or the 3.7 or 3.3 a viewer answers),
 * security type None — the viewer is already the admin token's (its ticket), and never learns
 * the VNC password — then the upstream's ServerInit, as the server sent it.
 */
export async function greetViewer(queue: ByteQueue, send: (bytes: Buffer) => void, serverInit: Buffer): Promise<void> {
  send(versionLine(8));
  const version = versionOf(await queue.read(12));
  if (version === undefined) {
    throw new TunnelEnd(CLOSE.refused, 'The viewer must answer RFB 003.008 (or 3.7, 3.3).');
  }
  if (version === 3) {
    send(u32(SECURITY.none));
  } else {
    send(Buffer.from([1, SECURITY.none]));
    const chosen = (await queue.read(1))[0];
    if (chosen !== SECURITY.none) {
      throw new TunnelEnd(CLOSE.refused, 'The live view offers security type None (1) only.');
    }
    if (version === 8) {
      send(u32(0));
    }
  }
  // ClientInit's shared flag: the tunnel's own connection upstream is always shared.
  await queue.read(1);
  send(serverInit);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value, 0);
  return out;
}
