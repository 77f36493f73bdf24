import { Lexer, type Token, type Tokens } from 'marked';

/**
 * What a platform shows as formatting: Telegram's HTML subset (`parse_mode: HTML`), Slack's mrkdwn, WhatsApp's
 * `*bold*` `_italic_` `~strike~`, or plain text (LINE, and every fallback). Discord and Mattermost read Markdown
 * themselves and get the text unchanged.
 */
export type Dialect = 'telegram-html' | 'slack' | 'whatsapp' | 'plain';

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string): string => escapeHtml(text).replace(/"/g, '&quot;');

interface Marks {
  strong(inner: string): string;
  em(inner: string): string;
  del(inner: string): string;
  code(text: string): string;
  link(href: string, inner: string): string;
  block(text: string, lang: string | undefined): string;
  quote(inner: string): string;
  heading(inner: string): string;
  text(text: string): string;
}

const quoted = (inner: string): string =>
  inner
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
const plainLink = (href: string, inner: string): string =>
  inner === href || inner === '' ? href : `${inner} (${href})`;
const fenced = (text: string): string => `\`\`\`\n${text}\n\`\`\``;

const MARKS: Record<Dialect, Marks> = {
  'telegram-html': {
    strong: (inner) => `<b>${inner}</b>`,
    em: (inner) => `<i>${inner}</i>`,
    del: (inner) => `<s>${inner}</s>`,
    code: (text) => `<code>${escapeHtml(text)}</code>`,
    link: (href, inner) => `<a href="${escapeAttribute(href)}">${inner}</a>`,
    block: (text, lang) =>
      `<pre><code${lang ? ` class="language-${escapeAttribute(lang)}"` : ''}>${escapeHtml(text)}</code></pre>`,
    quote: (inner) => `<blockquote>${inner}</blockquote>`,
    heading: (inner) => `<b>${inner}</b>`,
    text: escapeHtml,
  },
  slack: {
    strong: (inner) => `*${inner}*`,
    em: (inner) => `_${inner}_`,
    del: (inner) => `~${inner}~`,
    code: (text) => `\`${text}\``,
    link: (href, inner) => (inner === href ? `<${href}>` : `<${href}|${inner}>`),
    block: fenced,
    quote: quoted,
    heading: (inner) => `*${inner}*`,
    // Slack reads &, < and > as markup of its own.
    text: escapeHtml,
  },
  whatsapp: {
    strong: (inner) => `*${inner}*`,
    em: (inner) => `_${inner}_`,
    del: (inner) => `~${inner}~`,
    code: (text) => `\`${text}\``,
    link: plainLink,
    block: fenced,
    quote: quoted,
    heading: (inner) => `*${inner}*`,
    text: (text) => text,
  },
  plain: {
    strong: (inner) => inner,
    em: (inner) => inner,
    del: (inner) => inner,
    code: (text) => text,
    link: plainLink,
    block: (text) => text,
    quote: (inner) => inner,
    heading: (inner) => inner,
    text: (text) => text,
  },
};

function inline(tokens: readonly Token[] | undefined, marks: Marks): string {
  return (tokens ?? []).map((token) => inlineToken(token, marks)).join('');
}

function inlineToken(token: Token, marks: Marks): string {
  switch (token.type) {
    case 'strong':
      return marks.strong(inline((token as Tokens.Strong).tokens, marks));
    case 'em':
      return marks.em(inline((token as Tokens.Em).tokens, marks));
    case 'del':
      return marks.del(inline((token as Tokens.Del).tokens, marks));
    case 'codespan':
      return marks.code((token as Tokens.Codespan).text);
    case 'link': {
      const link = token as Tokens.Link;
      return marks.link(link.href, inline(link.tokens, marks));
    }
    case 'image': {
      const image = token as Tokens.Image;
      return marks.link(image.href, marks.text(image.text));
    }
    case 'br':
      return '\n';
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens, marks) : marks.text(text.text);
    }
    case 'escape':
      return marks.text((token as Tokens.Escape).text);
    default:
      return marks.text('raw' in token ? String(token.raw) : '');
  }
}

function listText(list: Tokens.List, marks: Marks): string {
  const start = typeof list.start === 'number' ? list.start : 1;
  return list.items
    .map((item, index) => {
      const bullet = list.ordered ? `${start + index}. ` : '• ';
      const body = blocks(item.tokens, marks).replace(/\n/g, '\n   ');
      return `${bullet}${item.task ? (item.checked ? '[x] ' : '[ ] ') : ''}${body}`;
    })
    .join('\n');
}

function blockToken(token: Token, marks: Marks): string {
  switch (token.type) {
    case 'paragraph':
      return inline((token as Tokens.Paragraph).tokens, marks);
    case 'heading':
      return marks.heading(inline((token as Tokens.Heading).tokens, marks));
    case 'code': {
      const code = token as Tokens.Code;
      return marks.block(code.text, code.lang || undefined);
    }
    case 'blockquote':
      return marks.quote(blocks((token as Tokens.Blockquote).tokens, marks));
    case 'list':
      return listText(token as Tokens.List, marks);
    case 'hr':
      return '———';
    case 'space':
      return '';
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens, marks) : marks.text(text.text);
    }
    default:
      return marks.text('raw' in token ? String(token.raw).replace(/\n+$/, '') : '');
  }
}

/** Blocks keep the line breaks that followed them in the source (a blank line stays a blank line). */
function blocks(tokens: readonly Token[], marks: Marks): string {
  let out = '';
  for (const token of tokens) {
    if (token.type === 'space') {
      out += token.raw.replace(/[^\n]/g, '');
      continue;
    }
    out += blockToken(token, marks) + (/\n+$/.exec(token.raw)?.[0] ?? '');
  }
  return out.replace(/\n+$/, '');
}

/** Markdown (as models write it) in a platform's dialect; text that is not Markdown comes back unchanged. */
export function renderMarkdown(markdown: string, dialect: Dialect): string {
  const marks = MARKS[dialect];
  const trailing = /\s*$/.exec(markdown)?.[0] ?? '';
  const leading = /^\s*/.exec(markdown)?.[0] ?? '';
  return leading + blocks(Lexer.lex(markdown.trim(), { gfm: true }), marks) + (trailing.includes('\n') ? '' : trailing);
}
