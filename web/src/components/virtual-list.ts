import { h, place } from '../dom.js';

/** A row drawn for an item; `resized` is called when its height changes (it opened or closed). */
export type RenderRow<T> = (item: T, resized: () => void) => HTMLElement;

/** Rows drawn beyond the visible ones, above and below, so fast scrolling shows no blank. */
const OVERSCAN = 8;

/**
 * A long list that keeps only the rows in view (and a few around them) in the page. Rows may differ in
 * height: each is measured once drawn, the others are assumed as tall as the first one measured.
 */
export class VirtualList<T> {
  readonly element: HTMLElement;
  private readonly inner: HTMLElement;
  private items: T[] = [];
  private readonly heights = new Map<string, number>();
  private readonly drawn = new Map<string, HTMLElement>();
  private estimate = 32;
  private offsets: number[] = [0];
  private frame = 0;

  constructor(
    private readonly key: (item: T) => string,
    private readonly render: RenderRow<T>,
    private readonly onNearEnd?: () => void,
  ) {
    this.inner = h('div', { class: 'vlist-inner' });
    this.element = h('div', { class: 'vlist', role: 'list', tabindex: 0 }, this.inner);
    this.element.addEventListener('scroll', () => this.schedule());
    window.addEventListener('resize', this.onResize);
  }

  get length(): number {
    return this.items.length;
  }

  at(index: number): T | undefined {
    return this.items[index];
  }

  set(items: T[]): void {
    this.items = items;
    for (const node of this.drawn.values()) node.remove();
    this.drawn.clear();
    this.element.scrollTop = 0;
    this.layout();
  }

  /** New items on top; a reader scrolled down keeps seeing the same rows. */
  prepend(items: T[]): void {
    if (items.length === 0) return;
    const keep = this.element.scrollTop > 0;
    const added = items.reduce((sum, item) => sum + this.heightOf(item), 0);
    this.items = [...items, ...this.items];
    this.layout();
    if (keep) this.element.scrollTop += added;
  }

  append(items: T[]): void {
    this.items = [...this.items, ...items];
    this.layout();
  }

  dispose(): void {
    window.removeEventListener('resize', this.onResize);
    cancelAnimationFrame(this.frame);
  }

  private readonly onResize = (): void => {
    this.heights.clear();
    this.layout();
  };

  private heightOf(item: T): number {
    return this.heights.get(this.key(item)) ?? this.estimate;
  }

  private schedule(): void {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.paint());
  }

  private layout(): void {
    this.offsets = [0];
    for (const item of this.items) this.offsets.push((this.offsets.at(-1) ?? 0) + this.heightOf(item));
    place(this.inner, { height: `${this.offsets.at(-1) ?? 0}px` });
    this.paint();
  }

  /** The first row whose bottom is below `y`. */
  private indexAt(y: number): number {
    let low = 0;
    let high = this.items.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.offsets[mid + 1] ?? 0) <= y) low = mid + 1;
      else high = mid;
    }
    return Math.max(0, low);
  }

  private paint(): void {
    const top = this.element.scrollTop;
    const bottom = top + (this.element.clientHeight || 600);
    const first = Math.max(0, this.indexAt(top) - OVERSCAN);
    const last = Math.min(this.items.length - 1, this.indexAt(bottom) + OVERSCAN);
    const wanted = new Set<string>();
    const ordered: HTMLElement[] = [];
    let remeasure = false;
    for (let i = first; i <= last; i++) {
      const item = this.items[i];
      if (item === undefined) continue;
      const key = this.key(item);
      wanted.add(key);
      let node = this.drawn.get(key);
      if (!node) {
        node = this.render(item, () => {
          this.heights.set(key, node?.offsetHeight ?? this.estimate);
          this.layout();
        });
        node.classList.add('vrow');
        this.inner.append(node);
        this.drawn.set(key, node);
      }
      place(node, { top: `${this.offsets[i] ?? 0}px` });
      ordered.push(node);
      const height = node.offsetHeight;
      if (!this.heights.has(key) && this.heights.size === 0) this.estimate = height || this.estimate;
      if (height && height !== this.heightOf(item)) {
        this.heights.set(key, height);
        remeasure = true;
      }
    }
    for (const [key, node] of this.drawn) {
      if (wanted.has(key)) continue;
      node.remove();
      this.drawn.delete(key);
    }
    // Rows in the page in the order they are seen, for screen readers and keyboard focus.
    if (ordered.some((node, i) => this.inner.children[i] !== node)) this.inner.append(...ordered);
    if (remeasure) {
      this.offsets = [0];
      for (const item of this.items) this.offsets.push((this.offsets.at(-1) ?? 0) + this.heightOf(item));
      place(this.inner, { height: `${this.offsets.at(-1) ?? 0}px` });
      for (let i = first; i <= last; i++) {
        const item = this.items[i];
        const node = item === undefined ? undefined : this.drawn.get(this.key(item));
        if (node) place(node, { top: `${this.offsets[i] ?? 0}px` });
      }
    }
    if (this.onNearEnd && last >= this.items.length - 1 - OVERSCAN && this.items.length > 0) this.onNearEnd();
  }
}
