import { describe, expect, it } from 'vitest';
import { ByteQueue, filteredSetEncodings, TunnelEnd, versionOf, vncAuthResponse } from '../../src/live/tunnel/rfb.js';

describe('VNC Authentication', () => {
  it('answers the challenge with DES under the bit-reversed password (FIPS 46’s worked example)', () => {
    // FIPS 46's example key 13 34 57 79 9B BC DF F1, each byte's bits reversed, is the password;
    // its example block 01 23 45 67 89 AB CD EF encrypts to 85 E8 13 54 0F 0A B4 05.
    const password = Buffer.from('c82cea9ed93dfb8f', 'hex').toString('latin1');
    const challenge = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
    expect(vncAuthResponse(password, challenge).toString('hex')).toBe('85e813540f0ab40585e813540f0ab405');
    // Only the first 8 characters count, and a shorter password is padded with zeros.
    expect(vncAuthResponse(`${password}and more`, challenge)).toEqual(vncAuthResponse(password, challenge));
    expect(vncAuthResponse('secret', challenge)).toEqual(vncAuthResponse('secret\u0000\u0000', challenge));
    expect(vncAuthResponse('secret', challenge)).not.toEqual(vncAuthResponse('secret\u0001', challenge));
  });
});

describe('the viewer’s SetEncodings', () => {
  it('keeps the ways to draw and drops the pseudo-encodings that would make noVNC send what the tunnel does not parse', () => {
    const asked = [7, 16, 0, 1, -260, -26, -6, -258, -312, -313, -309, -308, -316, -1063131698, -223, -224, -239, -307];
    const list = Buffer.alloc(4 * asked.length);
    asked.forEach((encoding, i) => list.writeInt32BE(encoding, 4 * i));
    const message = filteredSetEncodings(list);
    expect(message[0]).toBe(2);
    const count = message.readUInt16BE(2);
    const kept = Array.from({ length: count }, (_, i) => message.readInt32BE(4 + 4 * i));
    expect(kept).toEqual([7, 16, 0, 1, -260, -26, -223, -224, -239, -307]);
    expect(message.length).toBe(4 + 4 * count);
  });
});

describe('versions', () => {
  it('reads 3.3, 3.7, 3.8 and what RFC 6143 maps onto them', () => {
    const line = (text: string) => Buffer.from(text, 'latin1');
    expect(versionOf(line('RFB 003.008\n'))).toBe(8);
    expect(versionOf(line('RFB 003.889\n'))).toBe(8);
    expect(versionOf(line('RFB 003.007\n'))).toBe(7);
    expect(versionOf(line('RFB 003.003\n'))).toBe(3);
    expect(versionOf(line('RFB 004.001\n'))).toBeUndefined();
    expect(versionOf(line('HTTP/1.1 200'))).toBeUndefined();
  });
});

describe('the byte queue', () => {
  it('reads across frames, and fails a read past its bound', async () => {
    const queue = new ByteQueue(8, () => new TunnelEnd(1008, 'too much'));
    const read = queue.read(5);
    queue.push(Buffer.from('ab'));
    queue.push(Buffer.from('cdef'));
    expect((await read).toString()).toBe('abcde');
    expect(queue.drain().toString()).toBe('f');
    const waiting = queue.read(20);
    queue.push(Buffer.alloc(9));
    await expect(waiting).rejects.toMatchObject({ code: 1008, reason: 'too much' });
  });
});
