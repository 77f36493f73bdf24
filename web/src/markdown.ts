import { append, h, type Child } from './dom.js';

// A small markdown subset rendered straight to DOM nodes: the text is never parsed as HTML, so nothing a
// model writes can become markup. Links keep only http(s) targets.
const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\([^)\s]+\))/;

function inline(text: string): Child[] {
  const out: Child[] = [];
  let rest = text;
  for (let match = INLINE.exec(rest); match; match = INLINE.exec(rest)) {
    out.push(rest.slice(0, match.index));
    const token = match[0];
    if (match[1]) out.push(h('code', {}, token.slice(1, -1)));
    else if (match[2]) out.push(h('strong', {}, ...inline(token.slice(2, -2))));
    else if (match[3]) out.push(h('em', {}, ...inline(token.slice(1, -1))));
    else out.push(link(token));
    rest = rest.slice(match.index + token.length);
  }
  out.push(rest);
  return out;
}

function link(token: string): Child {
  const [, label = '', href = ''] = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(token) ?? [];
  return /^https?:\/\//i.test(href) ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, label) : token;
}

type Block = { kind: 'code' | 'list' | 'olist' | 'heading' | 'para' | 'table'; lines: string[]; level?: number };

/** A table row's cells: `| a | b |` or `a | b`, pipes escaped as `\|` stay in the cell. */
const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function blocks(source: string): Block[] {
  const out: Block[] = [];
  const lines = source.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const last = out[out.length - 1];
    if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !(lines[i] ?? '').startsWith('```'); i++) code.push(lines[i] ?? '');
      out.push({ kind: 'code', lines: code });
    } else if (line.includes('|') && TABLE_RULE.test(lines[i + 1] ?? '')) {
      const rows = [line];
      for (i += 2; i < lines.length && (lines[i] ?? '').includes('|') && (lines[i] ?? '').trim() !== ''; i++)
        rows.push(lines[i] ?? '');
      i--;
      out.push({ kind: 'table', lines: rows });
    } else if (/^#{1,4}\s/.test(line))
      out.push({ kind: 'heading', lines: [line.replace(/^#+\s/, '')], level: /^#+/.exec(line)?.[0].length ?? 1 });
    else if (/^\s*[-*]\s/.test(line)) {
      if (last?.kind === 'list') last.lines.push(line.replace(/^\s*[-*]\s/, ''));
      else out.push({ kind: 'list', lines: [line.replace(/^\s*[-*]\s/, '')] });
    } else if (/^\s*\d+\.\s/.test(line)) {
      if (last?.kind === 'olist') last.lines.push(line.replace(/^\s*\d+\.\s/, ''));
      else out.push({ kind: 'olist', lines: [line.replace(/^\s*\d+\.\s/, '')] });
    } else if (line.trim() === '') out.push({ kind: 'para', lines: [] });
    else if (last?.kind === 'para' && last.lines.length > 0) last.lines.push(line);
    else out.push({ kind: 'para', lines: [line] });
  }
  return out.filter((b) => b.kind === 'code' || b.lines.length > 0);
}

/** A table scrolls sideways inside its bubble on a narrow screen rather than widening the page. */
function table(lines: string[]): Node {
  const [head = '', ...body] = lines;
  const width = cells(head).length;
  const row = (line: string, tag: 'th' | 'td') =>
    h('tr', {}, ...Array.from({ length: width }, (_, i) => h(tag, {}, ...inline(cells(line)[i] ?? ''))));
  return h(
    'div',
    { class: 'md-table' },
    h('table', {}, h('thead', {}, row(head, 'th')), h('tbody', {}, ...body.map((l) => row(l, 'td')))),
  );
}

function renderBlock(block: Block): Node {
  switch (block.kind) {
    case 'code':
      return h('pre', {}, h('code', {}, block.lines.join('\n')));
    case 'heading':
      return h(block.level === 1 ? 'h3' : 'h4', {}, ...inline(block.lines[0] ?? ''));
    case 'list':
      return h('ul', {}, ...block.lines.map((l) => h('li', {}, ...inline(l))));
    case 'olist':
      return h('ol', {}, ...block.lines.map((l) => h('li', {}, ...inline(l))));
    case 'table':
      return table(block.lines);
    case 'para':
      return h('p', {}, ...block.lines.flatMap((l, i) => (i === 0 ? inline(l) : [h('br'), ...inline(l)])));
  }
}

export function renderMarkdown(source: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  append(fragment, blocks(source).map(renderBlock));
  return fragment;
}
