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
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as ipaddr.IPv6).toIPv4Address();
  }
  const range = address.range();
  return range === 'unicast' ? undefined : range;
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
        throw new ToolError('invalid_whitelist', `tools.web.private_host_whitelist[${i}] "${entry}" is neither a host name, an IP address nor a CIDR range like 10.0.0.0/8`);
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
    return this.entries.some((entry) => entry.kind === 'cidr' && parsed.kind() === entry.range[0].kind() && parsed.match(entry.range));
  }
}

/** `[::1]` as URLs write it, `::1` as sockets do. */
export function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function isLiteralIp(host: string): boolean {
  return isIP(bare(host)) !== 0;
}
