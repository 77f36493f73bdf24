/** A page draws itself into the main element and returns what stops its sockets and listeners. */
export type Page = (root: HTMLElement, param: string | undefined) => () => void;
