import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  localNameMessage,
  privateAddressMessage,
  privateResolutionMessage,
  schemeMessage,
} from '../../adapters/tools/web/ssrf-guard.js';
import { localServer, type LocalServer } from '../support/tools-http.js';
import { pinnedLookup } from '../support/tools-lookup.js';
import { toolsFixture } from '../support/tools-fixture.js';

const lookup = pinnedLookup({
  'evil.test': ['127.0.0.1'],
  'evil6.test': ['::1'],
  'meta.test': ['169.254.169.254'],
  'corp.test': ['10.1.2.3'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'cgnat.test': ['100.64.1.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'ula.test': ['fd12:3456::1'],
  'compat.test': ['::7f00:1'],
  'rebind.test': ['10.0.0.5'],
});

const literal: [url: string, host: string, range: string][] = [
  ['http://127.0.0.1/', '127.0.0.1', 'loopback'],
  ['http://127.1/', '127.0.0.1', 'loopback'],
  ['http://2130706433/', '127.0.0.1', 'loopback'],
  ['http://0x7f000001/', '127.0.0.1', 'loopback'],
  ['http://0177.0.0.1/', '127.0.0.1', 'loopback'],
  ['http://0x7f.0.0.1/', '127.0.0.1', 'loopback'],
  ['http://127.000.000.001/', '127.0.0.1', 'loopback'],
  ['http://127.0.0.1./', '127.0.0.1', 'loopback'],
  ['https://127.0.0.1:443/x', '127.0.0.1', 'loopback'],
  ['http://user:pw@127.0.0.1/', '127.0.0.1', 'loopback'],
  ['http://[::1]/', '::1', 'loopback'],
  ['http://[0:0:0:0:0:0:0:1]/', '::1', 'loopback'],
  ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1', 'loopback'],
  ['http://[::ffff:10.0.0.1]/', '::ffff:a00:1', 'private'],
  ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe', 'linkLocal'],
  ['http://10.0.0.1/', '10.0.0.1', 'private'],
  ['http://10.255.255.255/', '10.255.255.255', 'private'],
  ['http://172.16.0.1/', '172.16.0.1', 'private'],
  ['http://172.31.255.1/', '172.31.255.1', 'private'],
  ['http://192.168.1.1/', '192.168.1.1', 'private'],
  ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'linkLocal'],
  ['http://2852039166/', '169.254.169.254', 'linkLocal'],
  ['http://100.64.0.1/', '100.64.0.1', 'carrierGradeNat'],
  ['http://[fd00::1]/', 'fd00::1', 'uniqueLocal'],
  ['http://[fd00:ec2::254]/', 'fd00:ec2::254', 'uniqueLocal'],
  ['http://[fe80::1]/', 'fe80::1', 'linkLocal'],
  ['http://0.0.0.0/', '0.0.0.0', 'unspecified'],
  ['http://0/', '0.0.0.0', 'unspecified'],
  ['http://[::]/', '::', 'unspecified'],
  ['http://224.0.0.1/', '224.0.0.1', 'multicast'],
  ['http://255.255.255.255/', '255.255.255.255', 'broadcast'],
  ['http://[2002:7f00:1::]/', '2002:7f00:1::', '6to4'],
  ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1', 'rfc6052'],
  // The IPv4-compatible form ::a.b.c.d (URLs normalise [::127.0.0.1] to [::7f00:1]) and its neighbours.
  ['http://[::127.0.0.1]/', '::7f00:1', 'loopback'],
  ['http://[0:0:0:0:0:0:127.0.0.1]/', '::7f00:1', 'loopback'],
  ['http://[::7f00:1]/', '::7f00:1', 'loopback'],
  ['http://[::10.0.0.1]/', '::a00:1', 'private'],
  ['http://[::169.254.169.254]/', '::a9fe:a9fe', 'linkLocal'],
  ['http://[::0.0.0.2]/', '::2', 'unspecified'],
  ['http://[::8.8.8.8]/', '::808:808', 'ipv4Compatible'],
  ['http://[::ffff:0:127.0.0.1]/', '::ffff:0:7f00:1', 'rfc6145'],
  ['http://[64:ff9b:1::7f00:1]/', '64:ff9b:1::7f00:1', 'rfc6052'],
  ['http://[2001::7f00:1]/', '2001::7f00:1', 'teredo'],
  ['http://[fec0::1]/', 'fec0::1', 'deprecatedSiteLocal'],
];

const localNames: [url: string, host: string][] = [
  ['http://localhost/', 'localhost'],
  ['http://LOCALHOST:8080/', 'localhost'],
  ['http://foo.localhost/', 'foo.localhost'],
  ['http://localhost./', 'localhost.'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal'],
];

const resolved: [url: string, host: string, ip: string, range: string][] = [
  ['http://evil.test/', 'evil.test', '127.0.0.1', 'loopback'],
  ['http://EVIL.test/', 'evil.test', '127.0.0.1', 'loopback'],
  ['http://evil6.test/', 'evil6.test', '::1', 'loopback'],
  ['http://meta.test/latest/', 'meta.test', '169.254.169.254', 'linkLocal'],
  ['http://corp.test/', 'corp.test', '10.1.2.3', 'private'],
  ['http://mixed.test/', 'mixed.test', '127.0.0.1', 'loopback'],
  ['http://cgnat.test/', 'cgnat.test', '100.64.1.1', 'carrierGradeNat'],
  ['http://mapped.test/', 'mapped.test', '::ffff:127.0.0.1', 'loopback'],
  ['https://ula.test/', 'ula.test', 'fd12:3456::1', 'uniqueLocal'],
  ['http://compat.test/', 'compat.test', '::7f00:1', 'loopback'],
];

const schemes = [
  'file:///etc/passwd',
  'ftp://127.0.0.1/x',
  'gopher://example.com/',
  'data:text/plain,hi',
  'javascript:alert(1)',
];

let server: LocalServer;
const ssrf = suite('attack corpus: web_fetch SSRF');
ssrf.before(async () => {
  server = await localServer((req, res) => {
    const targets: Record<string, string> = {
      '/to-localhost': `http://localhost:${server.port}/secret`,
      '/to-meta': 'http://169.254.169.254/latest/meta-data/',
      '/to-v6': `http://[::1]:${server.port}/`,
      '/to-private': 'http://10.0.0.1/',
      '/to-rebind': `http://rebind.test:${server.port}/`,
      '/to-file': 'file:///etc/passwd',
      '/to-zero': `http://0.0.0.0:${server.port}/`,
      '/chain': '/to-meta',
    };
    const target = targets[req.url ?? ''];
    res.writeHead(target ? 302 : 200, target ? { location: target } : { 'content-type': 'text/plain' });
    res.end(target ? '' : 'local secret');
  });
});
ssrf.after(() => server.close());

ssrf(`${literal.length} literal private addresses in every notation are refused`, async () => {
  const f = toolsFixture(() => ({ fetch: { lookup } }));
  for (const [url, host, range] of literal) {
    assert.equal(await f.call('web_fetch', { url }), { ok: false, content: privateAddressMessage(host, range) }, url);
  }
  f.close();
});

ssrf(`${localNames.length} local host names are refused by name`, async () => {
  const f = toolsFixture(() => ({ fetch: { lookup } }));
  for (const [url, host] of localNames)
    assert.equal(await f.call('web_fetch', { url }), { ok: false, content: localNameMessage(host) }, url);
  f.close();
});

ssrf(`${resolved.length} names resolving to private addresses are refused after DNS`, async () => {
  const f = toolsFixture(() => ({ fetch: { lookup } }));
  for (const [url, host, ip, range] of resolved) {
    assert.equal(
      await f.call('web_fetch', { url }),
      { ok: false, content: privateResolutionMessage(host, ip, range) },
      url,
    );
  }
  f.close();
});

ssrf(`${schemes.length} non-web schemes are refused`, async () => {
  const f = toolsFixture(() => ({ fetch: { lookup } }));
  for (const url of schemes)
    assert.equal(await f.call('web_fetch', { url }), { ok: false, content: schemeMessage(new URL(url).href) }, url);
  f.close();
});

ssrf('redirects from a whitelisted host to private destinations are refused on every hop', async () => {
  const f = toolsFixture(() => ({ fetch: { lookup, privateHostWhitelist: ['127.0.0.1'] } }));
  const cases: [path: string, message: string][] = [
    ['/to-localhost', localNameMessage('localhost')],
    ['/to-meta', privateAddressMessage('169.254.169.254', 'linkLocal')],
    ['/to-v6', privateAddressMessage('::1', 'loopback')],
    ['/to-private', privateAddressMessage('10.0.0.1', 'private')],
    ['/to-rebind', privateResolutionMessage('rebind.test', '10.0.0.5', 'private')],
    ['/to-file', schemeMessage('file:///etc/passwd')],
    ['/to-zero', privateAddressMessage('0.0.0.0', 'unspecified')],
    ['/chain', privateAddressMessage('169.254.169.254', 'linkLocal')],
  ];
  for (const [path, message] of cases)
    assert.equal(await f.call('web_fetch', { url: `${server.url}${path}` }), { ok: false, content: message }, path);
  f.close();
});
ssrf.run();
