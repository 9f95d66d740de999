// Safe DOM building for webviews: untrusted text (tokens, logs) only ever becomes a text node.

type Child = Node | string | number | null | undefined | false;

export interface ElementOptions {
  className?: string;
  /** Attributes set with setAttribute; never event handlers (CSP forbids inline script). */
  attrs?: Record<string, string>;
  title?: string;
  dataset?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  opts: ElementOptions = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (opts.className) node.className = opts.className;
  if (opts.title !== undefined) node.title = opts.title;
  for (const [k, v] of Object.entries(opts.attrs ?? {})) {
    if (/^on/i.test(k)) throw new Error(`refusing inline handler attribute ${k}`);
    node.setAttribute(k, v);
  }
  for (const [k, v] of Object.entries(opts.dataset ?? {})) node.dataset[k] = v;
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}
