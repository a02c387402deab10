import { describe, expect, it } from 'vitest';
import { canonical, describePorts, isHostAddress, refusal } from '../../src/embedded-grid/host-addresses.js';

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
      '0:0:0:0:0:0:0:1',
      '64:ff9b::127.0.0.1',
      '::127.0.0.1',
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
    expect(refusal('93.184.216.34', 4444, allowed)).toBeUndefined();
    expect(describePorts(allowed)).toBe('3000,8000-8010');
    expect(describePorts([])).toBe('none');
    expect(canonical('FD00:EC2::254')).toBe('fd00:ec2:0:0:0:0:0:254');
  });
});
