import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: true, async: false });

/**
 * Markdown as the HTML Matrix clients show (`format: org.matrix.custom.html`); a single paragraph loses its `<p>`, as
 * Element sends it. The Markdown itself goes in `body`, the fallback every client can show.
 */
export function matrixHtml(markdown: string): string {
  const html = (marked.parse(markdown) as string).trim();
  const single = /^<p>([\s\S]*)<\/p>$/.exec(html);
  return single && !single[1]!.includes('<p>') ? single[1]! : html;
}
