// The dashboard builds every node with these helpers: text always goes in as text, never as markup.
export type Child = Node | string | number | null | undefined | false;
export type Props = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

function setProps(node: Element, props: Props): void {
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'value' && 'value' in node) (node as HTMLInputElement).value = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  setProps(node, props);
  append(node, children);
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element, built like `h`. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  setProps(node, props);
  append(node, children);
  return node;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The inline-style-free way to place an element: CSP forbids `style` in markup, not the CSSOM. */
export function place(
  node: HTMLElement | SVGElement,
  styles: Partial<Record<'left' | 'top' | 'width' | 'height' | 'marginLeft', string>>,
): void {
  Object.assign(node.style, styles);
}

/**
 * `aria-busy` on a region that fills from a request: "true" while its answer is on the way, "false" once drawn.
 * Screen readers wait for it, and so do the tests: a "Loading…" placeholder or the last answer matches a selector
 * for the content, the marker does not.
 */
export function busy(node: Element, on: boolean): void {
  node.setAttribute('aria-busy', String(on));
}
