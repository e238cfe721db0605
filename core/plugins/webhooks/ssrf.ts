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
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): the IPv4 address may sit anywhere in it
  ['100::', 64],
  ['2001::', 32], // Teredo: the IPv4 address is obfuscated in it
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local, with fd00:ec2::254 (AWS metadata)
  ['fe80::', 10],
  ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (a trailing dotted IPv4 part and a zone `%…` allowed); null: not one. */
export function ipv6Bytes(address: string): number[] | null {
  const a = address.replace(/%.*$/, '');
  if (isIP(a) !== 6) return null;
  let text = a;
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [, b0, b1, b2, b3] = tail.map(Number);
    text = text.slice(0, tail.index) + ((b0 << 8) | b1).toString(16) + ':' + ((b2 << 8) | b3).toString(16);
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const part = (p: string): number[] => (p === '' ? [] : p.split(':').map((h) => parseInt(h, 16)));
  const hi = part(head);
  const lo = rest === undefined ? [] : part(rest);
  const words = rest === undefined ? hi : [...hi, ...Array<number>(8 - hi.length - lo.length).fill(0), ...lo];
  if (words.length !== 8) return null;
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

/**
 * The IPv4 address an IPv6 address carries, in the forms that reach it: IPv4-compatible `::/96`, IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64
 * `64:ff9b::/96` and 6to4 `2002::/16`; null: none. (A URL's host or a DNS answer in any of them reached the
 * IPv4 address while only `::ffff:a.b.c.d` was checked as one: `http://[::7f00:1]/` was loopback let through.)
 */
export function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  if (!b) return null;
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  const v4 = (at: number): string => b.slice(at, at + 4).join('.');
  if (zero(0, 12)) return v4(12); // ::a.b.c.d (:: and ::1 become 0.0.0.0 and 0.0.0.1: refused as 0.0.0.0/8)
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return v4(12); // ::ffff:0:a.b.c.d
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4(12); // 64:ff9b::a.b.c.d
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2); // 2002:AABB:CCDD::
  return null;
}

/** Is this address refused? (An IPv6 address carrying an IPv4 one, `embeddedIpv4`, is checked as that IPv4 address.) */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4 !== null) return blocked.check(v4, 'ipv4');
  return blocked.check(address.replace(/%.*$/, ''), 'ipv6');
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
