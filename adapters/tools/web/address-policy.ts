import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { ToolError } from '../tool.js';

/**
 * Which addresses a fetch may reach. Only global unicast is public; loopback, private, link-local
 * (cloud metadata lives there), CGNAT, unique-local, multicast, reserved and the IPv6 forms that
 * embed an IPv4 address (mapped, 6to4, NAT64, Teredo) are refused.
 */
export function blockedRange(ip: string): string | undefined {
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) address = v6.toIPv4Address();
    else if (isIpv4Compatible(v6)) return embeddedRange(v6);
  }
  const range = address.range();
  return range === 'unicast' ? undefined : range;
}

/**
 * `::a.b.c.d` (the deprecated IPv4-compatible form; URLs write `[::127.0.0.1]` as `[::7f00:1]`): never a
 * destination on the public internet, and a stack that still honours it reaches the embedded IPv4 address.
 */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1);
}

function embeddedRange(address: ipaddr.IPv6): string {
  const [high, low] = [address.parts[6]!, address.parts[7]!];
  const v4 = ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const range = v4.range();
  return range === 'unicast' ? 'ipv4Compatible' : range;
}

/** Names that mean this machine or the cloud metadata service whatever DNS says. */
const LOCAL_NAMES = /^(localhost|.+\.localhost|metadata\.google\.internal|metadata)\.?$/i;

export function isLocalName(host: string): boolean {
  return LOCAL_NAMES.test(host);
}

type WhitelistEntry = { kind: 'host'; host: string } | { kind: 'cidr'; range: [ipaddr.IPv4 | ipaddr.IPv6, number] };

/** `private_host_whitelist`: exact host names or IPs, or CIDR ranges matched against the address. */
export class HostWhitelist {
  private readonly entries: WhitelistEntry[];

  constructor(entries: string[]) {
    this.entries = entries.map((entry, i) => {
      if (!entry.includes('/')) return { kind: 'host', host: bare(entry).toLowerCase() };
      try {
        return { kind: 'cidr', range: ipaddr.parseCIDR(entry) };
      } catch {
        throw new ToolError(
          'invalid_whitelist',
          `tools.web.private_host_whitelist[${i}] "${entry}" is neither a ` +
            `host name, an IP address nor a CIDR range like 10.0.0.0/8`,
        );
      }
    });
  }

  allowsHost(host: string): boolean {
    const name = bare(host).toLowerCase();
    return this.entries.some((entry) => entry.kind === 'host' && entry.host === name);
  }

  allowsAddress(ip: string): boolean {
    if (this.allowsHost(ip)) return true;
    const parsed = ipaddr.process(ip);
    return this.entries.some(
      (entry) => entry.kind === 'cidr' && parsed.kind() === entry.range[0].kind() && parsed.match(entry.range),
    );
  }
}

/** `[::1]` as URLs write it, `::1` as sockets do. */
export function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function isLiteralIp(host: string): boolean {
  return isIP(bare(host)) !== 0;
}
