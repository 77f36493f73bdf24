import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';

/** DNS with a few names pinned to chosen addresses, the way a hostile resolver would answer. */
export function pinnedLookup(pins: Record<string, string[]>): LookupFunction {
  return (hostname, options, callback) => {
    const addresses = pins[hostname.toLowerCase()];
    if (!addresses) return dnsLookup(hostname, options, callback);
    const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) return callback(null, all);
    return callback(null, all[0]!.address, all[0]!.family);
  };
}
