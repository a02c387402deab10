import { describe, expect, it } from 'vitest';
import {
  canonical,
  describePorts,
  destination,
  isHostAddress,
  refusal,
} from '../../src/embedded-grid/host-addresses.js';

describe("the browsers' proxy's view of this host", () => {
  it('knows this host under every spelling: loopback, unspecified, IPv6 wrappings of them', () => {
    for (const address of [
      '127.0.0.1',
      '127.9.9.9',
      '0.0.0.0',
      '::1',
      '::',
      '[::1]',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0::ffff:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '0:0:0:0:0:0:0:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::7f00:1',
      '::127.0.0.1',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '::ffff:0.0.0.0',
    ]) {
      expect(isHostAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1::1', '::ffff:93.184.216.34', '10.255.255.1']) {
      expect(isHostAddress(address), address).toBe(false);
    }
  });

  it('refuses a host port outside BROWSER_LOOPBACK_PORTS and the metadata service on any port', () => {
    const allowed = [
      { from: 3000, to: 3000 },
      { from: 8000, to: 8010 },
    ];
    expect(refusal('127.0.0.1', 3000, allowed)).toBeUndefined();
    expect(refusal('::ffff:127.0.0.1', 8005, allowed)).toBeUndefined();
    expect(refusal('127.0.0.1', 4444, allowed)).toBe('port 4444 of this host is closed to the browsers');
    expect(refusal('::1', 8011, allowed)).toMatch(/closed/);
    expect(refusal('169.254.169.254', 80, allowed)).toMatch(/metadata/);
    expect(refusal('fd00:ec2::254', 3000, allowed)).toMatch(/metadata/);
    expect(refusal('::ffff:a9fe:a9fe', 80, allowed)).toMatch(/metadata/);
    expect(refusal('64:ff9b::a9fe:a9fe', 80, allowed)).toMatch(/metadata/);
    expect(refusal('::a9fe:a9fe', 3000, allowed)).toMatch(/metadata/);
    expect(refusal('93.184.216.34', 4444, allowed)).toBeUndefined();
    expect(describePorts(allowed)).toBe('3000,8000-8010');
    expect(describePorts([])).toBe('none');
    expect(canonical('FD00:EC2:0:0:0:0:0:254')).toBe('fd00:ec2::254');
  });
});

describe('every destination is read one way before the fence decides', () => {
  // What a request line, an absolute URI or a CONNECT authority may carry, and the one reading
  // the fence judges and the proxy connects to.
  const LOOPBACK: [string, string][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
    ['[0::ffff:7f00:1]', '127.0.0.1'],
    ['[0:0:0:0:0:FFFF:7F00:0001]', '127.0.0.1'],
    ['[::127.0.0.1]', '::7f00:1'],
    ['[::7f00:1]', '::7f00:1'],
    ['[64:ff9b::7f00:1]', '64:ff9b::7f00:1'],
    ['[64:ff9b::127.0.0.1]', '64:ff9b::7f00:1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['0', '0.0.0.0'],
    ['[::]', '::'],
    ['[::1]', '::1'],
  ];

  it.each(LOOPBACK)('reads %s as %s, this host: closed', (host, ip) => {
    expect(destination(host)).toEqual({ addresses: [ip] });
    expect(refusal(ip, 5999, [])).toBe('port 5999 of this host is closed to the browsers');
  });

  it('reads every localhost name as loopback, as the browsers do', () => {
    for (const name of ['localhost', 'localhost.', 'LOCALHOST', 'foo.localhost.', 'A.B.LocalHost']) {
      expect(destination(name), name).toEqual({ addresses: ['127.0.0.1', '::1'] });
    }
  });

  it.each([
    '169.254.169.254',
    '2852039166',
    '0xa9fea9fe',
    '0251.0376.0251.0376',
    '169.254.43518',
    '0xa9.0xfe.0xa9.0xfe',
    '169.254.169.254.',
    '[::ffff:169.254.169.254]',
    '[0::ffff:a9fe:a9fe]',
    '[::169.254.169.254]',
    '[64:ff9b::a9fe:a9fe]',
    '[fd00:ec2::254]',
    '[FD00:EC2:0:0:0:0:0:254]',
  ])('reads %s as the metadata service: closed on every port', (host) => {
    const read = destination(host);
    expect(read).toHaveProperty('addresses');
    const [ip = ''] = 'addresses' in read ? read.addresses : [];
    expect(refusal(ip, 80, [{ from: 80, to: 80 }]), host).toMatch(/metadata/);
  });

  it('reads names as names, lower case and without the root dot', () => {
    expect(destination('Example.COM.')).toEqual({ name: 'example.com' });
    expect(destination('xn--bcher-kva.example')).toEqual({ name: 'xn--bcher-kva.example' });
    expect(destination('a_b.example')).toEqual({ name: 'a_b.example' });
    expect(destination('93.184.216.34')).toEqual({ addresses: ['93.184.216.34'] });
  });

  it.each([
    '[fe80::1%eth0]',
    '[fe80::1%25eth0]',
    '[::1%lo]',
    'a..b',
    '127.0.0.1..',
    '.',
    'localhost..',
    '09.0.0.1',
    '1.2.3.4.5',
    'foo.123',
    '4294967296',
    '127.0.0.1 ',
    'evil.example@127.0.0.1',
    '%31%32%37.0.0.1',
    '[v1.fe]',
    '',
    `${'a'.repeat(64)}.example`,
  ])('refuses %j: it can be read more than one way', (host) => {
    const read = destination(host);
    expect('unreadable' in read && read.unreadable).toMatch(/^that host can be read more than one way/);
  });
});
