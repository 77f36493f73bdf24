import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { undici, undiciCore } from './undici.js';

/**
 * Where a request goes out and the limits of its connections: what one dispatcher (and its keep-alive sockets) serves.
 */
export interface Route {
  /**
   * A proxy URL (`http://[user:pass@]host:port`, `https://…`, `socks5://…`) for every request of this route. Empty or
   * absent: the environment's `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY` (lowercase first, as curl reads them), or none.
   */
  proxy?: string;
  /** Bytes an answer's body may have; a longer body fails with `TransportError` `too_large`. Absent: no cap. */
  maxAnswerBytes?: number;
  /** How long making the connection (and the TLS handshake) may take. */
  connectTimeoutMs?: number;
  /** Resolves host names for direct connections (the web tools' address guard). A proxy resolves names itself. */
  lookup?: LookupFunction;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** The proxy variables, in the order undici reads them. */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'] as const;

export class InvalidProxyError extends Error {
  readonly code = 'invalid_proxy';
  constructor(readonly proxy: string) {
    super(`proxy "${maskProxy(proxy)}" is not an http://, https:// or socks5:// URL`);
    this.name = 'InvalidProxyError';
  }
}

/** A proxy URL as it may be shown: the password (or a lone user name, which may be a token) replaced by `****`. */
export function maskProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.password) url.password = '****';
    else if (url.username) url.username = '****';
    return url.href.replace(/\/$/, '');
  } catch {
    return proxy.replace(/\/\/[^/@]*@/, '//****@');
  }
}

function checkedProxy(proxy: string): string {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    throw new InvalidProxyError(proxy);
  }
  if (!['http:', 'https:', 'socks5:', 'socks:'].includes(url.protocol)) throw new InvalidProxyError(proxy);
  return proxy;
}

function agentOptions(route: Route) {
  return {
    connectTimeout: route.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(route.maxAnswerBytes !== undefined ? { maxResponseSize: route.maxAnswerBytes } : {}),
    // A plain-http target goes to the proxy in absolute form (`GET http://host/path`), as curl sends it; https is
    // tunnelled with CONNECT.
    proxyTunnel: false,
    // Used by direct connections only: through a proxy, the proxy resolves the name.
    ...(route.lookup ? { connect: { lookup: route.lookup } } : {}),
  };
}

const throughProxy = (route: Route): boolean =>
  Boolean(route.proxy) || PROXY_VARIABLES.some((name) => process.env[name]);

/**
 * Made once its agent class is loaded. A proxy's agents open their tunnels with `Dispatcher#connect`, which only the
 * package's index adds: they come from it (`undici()`); a direct route needs no more than `undiciCore()`.
 */
async function maker(route: Route): Promise<() => Dispatcher> {
  if (!throughProxy(route)) {
    const { Agent } = await undiciCore();
    return () => new Agent(agentOptions(route));
  }
  const { EnvHttpProxyAgent, ProxyAgent } = await undici();
  return () =>
    route.proxy
      ? new ProxyAgent({ ...agentOptions(route), uri: checkedProxy(route.proxy) })
      : new EnvHttpProxyAgent(agentOptions(route));
}

// One dispatcher per route, so every call on a route shares its keep-alive connections. The environment's proxy
// variables are part of the key: a process that changes them gets a dispatcher that reads the new values.
const dispatchers = new Map<string, Dispatcher>();
const withLookup = new WeakMap<LookupFunction, Map<string, Dispatcher>>();

function keyOf(route: Route): string {
  const environment = route.proxy ? '' : PROXY_VARIABLES.map((name) => process.env[name] ?? '').join('\n');
  return `${route.proxy ?? ''}\n${route.maxAnswerBytes ?? ''}\n${route.connectTimeoutMs ?? ''}\n${environment}`;
}

/**
 * The dispatcher for `route`, made on first use. Rejects with `InvalidProxyError` for a proxy that is not an http(s)
 * URL.
 */
export async function dispatcherFor(route: Route = {}): Promise<Dispatcher> {
  const make = await maker(route);
  const key = keyOf(route);
  let kept = dispatchers;
  if (route.lookup) {
    kept = withLookup.get(route.lookup) ?? new Map();
    withLookup.set(route.lookup, kept);
  }
  let dispatcher = kept.get(key);
  if (dispatcher === undefined) {
    dispatcher = make();
    kept.set(key, dispatcher);
  }
  return dispatcher;
}

/**
 * The proxy a request to `url` on `route` goes through (as configured, unmasked), and where it was set; undefined:
 * direct.
 */
export function proxyFor(
  url: string,
  route: Pick<Route, 'proxy'>,
): { proxy: string; from: 'config' | 'environment' } | undefined {
  if (route.proxy) return { proxy: route.proxy, from: 'config' };
  const env = process.env;
  const target = new URL(url);
  const proxy =
    target.protocol === 'https:'
      ? (env.https_proxy ?? env.HTTPS_PROXY ?? env.http_proxy ?? env.HTTP_PROXY)
      : (env.http_proxy ?? env.HTTP_PROXY);
  if (!proxy || bypassed(target, env.no_proxy ?? env.NO_PROXY ?? '')) return undefined;
  return { proxy, from: 'environment' };
}

/**
 * NO_PROXY as undici's EnvHttpProxyAgent reads it: `*` alone, or host names and domains (a leading `.` or `*.`
 * optional), each with an optional port.
 */
function bypassed(target: URL, noProxy: string): boolean {
  if (noProxy === '*') return true;
  const host = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .some((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      const name = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
      if (parsed && Number(parsed[2]) !== port) return false;
      return host === name || host.endsWith(`.${name}`);
    });
}
