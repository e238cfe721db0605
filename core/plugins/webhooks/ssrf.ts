/**
 * The SSRF guard of webhook destinations: loopback, private, link-local, carrier-grade NAT, multicast,
 * reserved and cloud-metadata addresses are refused after DNS resolution (the connection uses the very
 * address checked, so a rebinding answer cannot slip through), unless WEBHOOK_ALLOW_HOSTS names the
 * host or the address. Redirects are not followed (send.ts): a 3xx is a failed attempt.
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, with 169.254.169.254 (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 of any IPv4 address
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local, with fd00:ec2::254 (AWS metadata)
  ['fe80::', 10],
  ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** Is this address refused? (IPv4-mapped IPv6 addresses are checked as IPv4.) */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

export class DestinationRefused extends Error {}

/** A `lookup` for http.request that resolves `hostname` and refuses blocked addresses (unless allowed). */
export function guardedLookup(allowHosts: readonly string[]) {
  const allowed = new Set(allowHosts.map((h) => h.toLowerCase()));
  return (hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
      // WEBHOOK_ALLOW_HOSTS names hosts as the URL writes them (an address literal is its own name)
      const usable = addresses.filter((a) => allowed.has(host) || !isBlockedAddress(a.address));
      if (usable.length === 0) {
        const e = new DestinationRefused(`destination ${hostname} (${addresses.map((a) => a.address).join(', ')}) is in a private, loopback, link-local or metadata range; WEBHOOK_ALLOW_HOSTS opens it`) as NodeJS.ErrnoException;
        e.code = 'EWEBHOOKREFUSED';
        return callback(e, '', 0);
      }
      const all = (options as { all?: boolean }).all === true;
      if (all) return callback(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}
