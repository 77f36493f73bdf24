import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { blockedRange } from '../../adapters/tools/web/address-policy.js';
import { localServer, type LocalServer } from '../support/tools-http.js';
import { toolsFixture } from '../support/tools-fixture.js';

const page =
  '<html><head><style>p{}</style><script>alert(1)</script></head><body><h1>Title</h1><p>Hello &amp; ' +
  '<a href="/x">link</a></p><ul><li>one</li><li>two</li></ul></body></html>';

let server: LocalServer;
const web = suite('web_fetch');
web.before(async () => {
  server = await localServer((req, res) => {
    if (req.url === '/missing') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such page');
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(100));
    } else if (req.url === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
    } else if (req.url === '/hop') {
      res.writeHead(301, { location: '/page' });
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    }
  });
});
web.after(() => server.close());

web('a whitelisted host is fetched as plain text by default', async () => {
  const f = toolsFixture(() => ({ fetch: { privateHostWhitelist: ['127.0.0.1'] } }));
  assert.equal(await f.call('web_fetch', { url: `${server.url}/page` }), {
    ok: true,
    content: `URL: ${server.url}/page\nStatus: 200\n\nTitle\nHello & link\none\ntwo`,
  });
  f.close();
});

web('format markdown converts HTML with a real HTML-to-markdown library', async () => {
  const f = toolsFixture(() => ({ fetch: { privateHostWhitelist: ['127.0.0.0/8'], format: 'markdown' } }));
  assert.equal(await f.call('web_fetch', { url: `${server.url}/hop` }), {
    ok: true,
    content: `URL: ${server.url}/page\nStatus: 200\n\n# Title\n\nHello & [link](/x)\n\n-   one\n-   two`,
  });
  f.close();
});

web('fetch_limit_bytes cuts the body and says so; an HTTP error is a failed result', async () => {
  const f = toolsFixture(() => ({ fetch: { privateHostWhitelist: ['127.0.0.1'], fetchLimitBytes: 10 } }));
  assert.equal(await f.call('web_fetch', { url: `${server.url}/big` }), {
    ok: true,
    content: `URL: ${server.url}/big\nStatus: 200\n\nxxxxxxxxxx\n\n[web_fetch: cut at 10 bytes]`,
  });
  assert.equal(await f.call('web_fetch', { url: `${server.url}/missing` }), {
    ok: false,
    content: `URL: ${server.url}/missing\nStatus: 404\n\nno such pa\n\n[web_fetch: cut at 10 bytes]`,
  });
  assert.equal(await f.call('web_fetch', { url: 'not a url' }), {
    ok: false,
    content: '"not a url" is not a valid URL; give an absolute http or https URL',
  });
  f.close();
});

web('a redirect loop ends after max redirects', async () => {
  const f = toolsFixture(() => ({ fetch: { privateHostWhitelist: ['127.0.0.1'], maxRedirects: 3 } }));
  assert.equal(await f.call('web_fetch', { url: `${server.url}/loop` }), {
    ok: false,
    content: `${server.url}/loop redirected more than 3 times`,
  });
  f.close();
});

web('public addresses are not blocked (benign corpus)', () => {
  for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '140.82.112.3', '2606:4700::1111', '2001:4860:4860::8888']) {
    assert.is(blockedRange(ip), undefined, ip);
  }
});

web('an invalid whitelist entry is a configuration error naming the field', () => {
  assert.throws(
    () => toolsFixture(() => ({ fetch: { privateHostWhitelist: ['10.0.0.0/99'] } })),
    (error: Error) =>
      error.message ===
      'tools.web.private_host_whitelist[0] "10.0.0.0/99" is neither a host name, ' +
        'an IP address nor a CIDR range like 10.0.0.0/8',
  );
});
web.run();
