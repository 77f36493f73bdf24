import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { ToolError } from '../tool.js';
import { bare, blockedRange, HostWhitelist, isLiteralIp, isLocalName } from './address-policy.js';

export const privateAddressMessage = (host: string, range: string) =>
  `access denied: ${host} is a private or local address (${range})`;
export const privateResolutionMessage = (host: string, ip: string, range: string) =>
  `access denied: ${host} resolves to a private or local address (${ip}, ${range})`;
export const localNameMessage = (host: string) => `access denied: ${host} is a local host name`;
export const schemeMessage = (url: string) => `access denied: ${url} is not an http or https URL`;

/**
 * Refuses private destinations twice: by URL before connecting (literal IPs and local names), and
 * inside DNS resolution, so the address that is checked is the address that is connected to, on
 * every redirect hop.
 */
export class SsrfGuard {
  private readonly whitelist: HostWhitelist;

  constructor(
    whitelist: string[],
    private readonly base: LookupFunction = dnsLookup,
  ) {
    this.whitelist = new HostWhitelist(whitelist);
  }

  checkUrl(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ToolError('unsupported_scheme', schemeMessage(url.href));
    const host = bare(url.hostname);
    if (this.whitelist.allowsHost(host)) return;
    if (isLocalName(host)) throw new ToolError('ssrf_blocked', localNameMessage(host));
    if (!isLiteralIp(host)) return;
    const range = blockedRange(host);
    if (range && !this.whitelist.allowsAddress(host))
      throw new ToolError('ssrf_blocked', privateAddressMessage(host, range));
  }

  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.base(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      const addresses = Array.isArray(found)
        ? found
        : [{ address: found, family: options.family === 6 ? 6 : 4 } as LookupAddress];
      const refused = this.whitelist.allowsHost(hostname) ? undefined : this.firstBlocked(hostname, addresses);
      if (refused) return callback(refused, '', 0);
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

  private firstBlocked(hostname: string, addresses: LookupAddress[]): ToolError | undefined {
    for (const { address } of addresses) {
      const range = blockedRange(address);
      if (range && !this.whitelist.allowsAddress(address)) {
        return new ToolError('ssrf_blocked', privateResolutionMessage(hostname, address, range));
      }
    }
    return undefined;
  }
}
