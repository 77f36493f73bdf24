// The two engines the peer runtime added beyond the spec's ten: Sogou's keyless mobile results page, and Gemini
// answering with Google Search as its grounding tool. Same keys and defaults as the peer's `tools.web.sogou|gemini`.
import * as z from 'zod';
import { htmlToPlaintext } from '../html-text.js';
import { joinUrl, type Hit, type SearchEngine } from './engine.js';
import type { SearchRange } from './search-range.js';

// Sogou has no date filter; like the peer runtime, a range is asked for in words its Chinese index understands.
const SOGOU_RANGE: Record<SearchRange, string> = { d: '最近一天', w: '最近一周', m: '最近一个月', y: '最近一年' };
const SOGOU_RESULT = /<a\s+class="?resultLink"?\s+href="([^"]+)"[^>]*id="sogou_vr_\d+_\d+"[^>]*>([\s\S]*?)<\/a>/g;
const SOGOU_SNIPPET = /<div class="clamp\d*[^"]*">([\s\S]*?)<\/div>/;

/** A result link is Sogou's redirect; the page it leads to is its `url` parameter. */
function sogouTarget(href: string): string | undefined {
  const encoded = /[?&]url=([^&]+)/.exec(href.replace(/&amp;/g, '&'))?.[1];
  if (!encoded) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

function parseSogou(html: string): Hit[] {
  const links = [...html.matchAll(SOGOU_RESULT)];
  const seen = new Set<string>();
  return links.flatMap((link, i) => {
    const url = sogouTarget(link[1]!);
    const title = htmlToPlaintext(link[2]!);
    if (!url || !title || seen.has(url)) return [];
    seen.add(url);
    // The snippet is the first text block after this link and before the next one.
    const after = html.slice(link.index! + link[0].length, links[i + 1]?.index ?? html.length);
    const snippet = SOGOU_SNIPPET.exec(after)?.[1];
    return [{ title, url, snippet: snippet ? htmlToPlaintext(snippet) : '' }];
  });
}

/** Sogou: no key; GET `/web/searchList.jsp?keyword=…` on its mobile site, results read from the HTML. */
export const sogou: SearchEngine = {
  name: 'sogou',
  label: 'Sogou',
  keys: 'none',
  defaultBaseUrl: 'https://wap.sogou.com',
  request: ({ baseUrl, query, range }) => {
    const keyword = range ? `${query} ${SOGOU_RANGE[range]}` : query;
    const params = new URLSearchParams({ keyword, v: '5', p: '1' });
    return { method: 'GET', url: joinUrl(baseUrl, `/web/searchList.jsp?${params}`), headers: { accept: 'text/html' } };
  },
  parse: (body) => ({ hits: parseSogou(String(body)) }),
};

const geminiBody = z.object({
  candidates: z
    .array(
      z.object({
        content: z.object({ parts: z.array(z.object({ text: z.string().optional() })).default([]) }).optional(),
        groundingMetadata: z
          .object({
            groundingChunks: z
              .array(z.object({ web: z.object({ uri: z.string(), title: z.string().default('') }).optional() }))
              .default([]),
          })
          .optional(),
      }),
    )
    .default([]),
});

/**
 * Gemini with Google Search grounding: POST `/models/<model>:generateContent` with the `google_search` tool, key in
 * `x-goog-api-key`. Its answer comes first, then the pages it was grounded on as the sources.
 */
export const gemini: SearchEngine = {
  name: 'gemini',
  label: 'Gemini Google Search',
  keys: 'required',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  request: ({ baseUrl, query, key, options }) => ({
    method: 'POST',
    url: joinUrl(baseUrl, `/models/${encodeURIComponent(options.model ?? 'gemini-2.5-flash')}:generateContent`),
    headers: { 'x-goog-api-key': key ?? '', 'content-type': 'application/json' },
    body: { contents: [{ role: 'user', parts: [{ text: query }] }], tools: [{ google_search: {} }] },
  }),
  parse: (body) => {
    const [first] = geminiBody.parse(body).candidates;
    const answer = (first?.content?.parts ?? [])
      .map((part) => part.text?.trim() ?? '')
      .filter(Boolean)
      .join('\n');
    const hits = (first?.groundingMetadata?.groundingChunks ?? []).flatMap((chunk) =>
      chunk.web ? [{ title: chunk.web.title.trim(), url: chunk.web.uri, snippet: '' }] : [],
    );
    return { hits, ...(answer ? { answer } : {}) };
  },
};
