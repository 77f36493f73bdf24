import * as z from 'zod';
import type { FetchOptions } from '../options.js';
import { fail, ok, ToolError, type Tool, type ToolResult } from '../tool.js';
import { fetchPage, type Page } from './fetch-page.js';
import { htmlToMarkdown, htmlToPlaintext } from './html-text.js';
import { SsrfGuard } from './ssrf-guard.js';

const parameters = z.object({
  url: z.string().describe('The http or https URL to fetch'),
});

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new ToolError('invalid_url', `"${text}" is not a valid URL; give an absolute http or https URL`);
  }
}

async function render(page: Page, format: FetchOptions['format']): Promise<string> {
  const type = page.contentType.toLowerCase();
  if (type.includes('html')) {
    const html = page.body.toString('utf8');
    return format === 'markdown' ? await htmlToMarkdown(html) : htmlToPlaintext(html);
  }
  if (type === '' || type.startsWith('text/') || type.includes('json') || type.includes('xml'))
    return page.body.toString('utf8');
  return `[${page.body.length} bytes of ${type} not shown]`;
}

async function result(url: URL, page: Page, options: FetchOptions): Promise<ToolResult> {
  const cut = page.truncated ? `\n\n[web_fetch: cut at ${options.fetchLimitBytes} bytes]` : '';
  const text = `URL: ${url.href}\nStatus: ${page.status}\n\n${await render(page, options.format)}${cut}`;
  return page.status >= 400 ? fail(text) : ok(text);
}

export function webFetchTool(options: FetchOptions): Tool<z.infer<typeof parameters>> {
  const guard = new SsrfGuard(options.privateHostWhitelist, options.lookup);
  return {
    name: 'web_fetch',
    description:
      `Fetch a web page and return its text (${options.format}). ` +
      `Private and local ` +
      `network addresses are refused.`,
    parameters,
    async execute({ url }, context) {
      let current = parseUrl(url);
      for (let hop = 0; hop <= options.maxRedirects; hop += 1) {
        guard.checkUrl(current);
        const page = await fetchPage(current, {
          limitBytes: options.fetchLimitBytes,
          timeoutMs: options.timeoutMs,
          lookup: guard.lookup,
          signal: context.signal,
          ...(options.proxy ? { proxy: options.proxy } : {}),
        });
        if (page.status < 300 || page.status >= 400 || !page.location) return result(current, page, options);
        current = new URL(page.location, current);
      }
      throw new ToolError('too_many_redirects', `${url} redirected more than ${options.maxRedirects} times`);
    },
  };
}
