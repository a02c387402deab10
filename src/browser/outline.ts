import type { WebDriver } from 'selenium-webdriver';
import { runInPage, TRUNCATION_MARK } from './reading.js';
import { OUTLINE_SCRIPT } from './outline-script.js';
import { noElement, type Selector } from './selectors.js';

/**
 * What the page script answers: the page's structure in document order, with runs of sibling
 * blocks of one shape folded into a group whose selectors hold `{n}` (verified in the page to
 * reach every instance). Rendering to text happens here, so it can fold more when it is long.
 */
export type OutlineNode =
  | { k: 'h'; level: number; text: string; names?: string[] }
  | { k: 'c'; kind: string; name: string; sel: string | null; names?: string[]; meta?: string }
  | { k: 'b'; kind: string; name: string; sel: string; meta?: string; items: OutlineNode[] }
  | {
      k: 'g';
      count: number;
      from: number;
      to: number;
      kind: string;
      sel: string;
      items: OutlineNode[];
      /** each instance's own selector, when an instance is one control (a short list of them reads better unfolded) */
      own?: string[];
    };

export async function outline(
  driver: WebDriver,
  scope: Selector | undefined,
  maxChars: number,
  carriesSecret: (text: string) => boolean = () => false,
): Promise<{ outline: string; truncated: boolean; withheld: boolean }> {
  const css = scope && 'css' in scope ? scope.css : null;
  const xpath = scope && 'xpath' in scope ? scope.xpath : null;
  const tree = await runInPage<OutlineNode[] | null>(driver, OUTLINE_SCRIPT, css, xpath);
  if (tree === null) {
    throw noElement(scope ?? { css: 'body' }, 0);
  }
  return renderWithin(tree, maxChars, carriesSecret);
}

/** How much one rendering shows; each level folds more than the one before. */
interface Level {
  /** a group of single controls up to this long is listed one control per line */
  unfoldUpTo: number;
  /** the names that vary across a group are all listed when they take up to this many characters, else first … last */
  namesUpTo: number;
  /** blocks and groups nested deeper than this are one line each, with what they hold */
  depth: number;
}

const LEVELS: Level[] = [
  { unfoldUpTo: 30, namesUpTo: 240, depth: Infinity },
  { unfoldUpTo: 8, namesUpTo: 120, depth: Infinity },
  { unfoldUpTo: 0, namesUpTo: 0, depth: Infinity },
  { unfoldUpTo: 0, namesUpTo: 0, depth: 4 },
  { unfoldUpTo: 0, namesUpTo: 0, depth: 3 },
  { unfoldUpTo: 0, namesUpTo: 0, depth: 2 },
  { unfoldUpTo: 0, namesUpTo: 0, depth: 1 },
  { unfoldUpTo: 0, namesUpTo: 0, depth: 0 },
];

export const OUTLINE_LEGEND = '(a selector with {a..b} stands for one per number; {n} is the number of its group)';

/**
 * The outline as text, folded as little as fits in maxChars: a long page loses detail from
 * its deepest parts first, and only a page too long even fully folded is cut at the end.
 * Screened line by line before any cut: a cut could leave part of a value, and the rest of
 * the map is still worth having.
 */
export function renderWithin(
  tree: OutlineNode[],
  maxChars: number,
  carriesSecret: (text: string) => boolean = () => false,
): { outline: string; truncated: boolean; withheld: boolean } {
  let text = '';
  let withheld = false;
  for (const level of LEVELS) {
    const lines = renderLines(tree, level);
    const shown = lines.filter((line) => !carriesSecret(line));
    withheld = shown.length !== lines.length;
    text = shown.join('\n');
    if (text.length <= maxChars) {
      return { outline: text, truncated: false, withheld };
    }
  }
  return { outline: text.slice(0, maxChars) + TRUNCATION_MARK, truncated: true, withheld };
}

export function renderLines(tree: OutlineNode[], level: Level): string[] {
  const lines = renderNodes(tree, 0, level);
  if (lines.some((l) => l.includes('{n}') || /\{\d+\.\.\d+\}/.test(l))) {
    lines.unshift(OUTLINE_LEGEND);
  }
  return lines;
}

const quote = (name: string) => `"${name}"`;

function namesText(name: string, names: string[] | undefined, level: Level): string {
  if (!names) {
    return quote(name);
  }
  const all = names.map(quote).join('|');
  if (all.length <= level.namesUpTo) {
    return all;
  }
  return `${quote(names[0] ?? '')} … ${quote(names.at(-1) ?? '')}`;
}

const ranged = (sel: string, from: number, to: number) => sel.split('{n}').join(`{${from}..${to}}`);

function renderNodes(nodes: OutlineNode[], depth: number, level: Level): string[] {
  return nodes.flatMap((node) => renderNode(node, depth, level));
}

function renderNode(node: OutlineNode, depth: number, level: Level): string[] {
  const pad = '  '.repeat(depth);
  switch (node.k) {
    case 'h':
      return [`${pad}${'#'.repeat(node.level)} ${node.names ? namesText(node.text, node.names, level) : node.text}`];
    case 'c':
      return [controlLine(pad, node.kind, namesText(node.name, node.names, level), node.sel, node.meta)];
    case 'b': {
      const head = `${pad}${node.kind}${node.name ? ` ${quote(node.name)}` : ''} ${node.sel}${node.meta ? ` — ${node.meta}` : ''}`;
      if (node.items.length > 0 && depth >= level.depth) {
        return [`${head} — ${holding(node.items)}: outline it for them`];
      }
      return [head, ...renderNodes(node.items, depth + 1, level)];
    }
    case 'g':
      return groupLines(node, pad, depth, level);
  }
}

function controlLine(pad: string, kind: string, names: string, sel: string | null, meta?: string): string {
  return `${pad}${kind} ${names} ${sel ?? '(no selector reaches every instance: outline one instance)'}${meta ? ` — ${meta}` : ''}`;
}

function groupLines(node: Extract<OutlineNode, { k: 'g' }>, pad: string, depth: number, level: Level): string[] {
  const [only] = node.items;
  if (node.items.length === 1 && only?.k === 'c') {
    if (node.own && only.names && node.count <= level.unfoldUpTo) {
      return node.own.map((sel, i) => controlLine(pad, only.kind, quote(only.names?.[i] ?? only.name), sel, only.meta));
    }
    const sel = only.sel === null ? null : ranged(only.sel, node.from, node.to);
    return [controlLine(pad, `${node.count} × ${only.kind}`, namesText(only.name, only.names, level), sel, only.meta)];
  }
  const head = `${pad}${node.count} × ${node.kind} ${ranged(node.sel, node.from, node.to)}`;
  if (depth >= level.depth) {
    return [`${head} — ${holding(node.items)} each`];
  }
  return [head, ...renderNodes(node.items, depth + 1, level)];
}

/** What a folded block holds, counted: enough to decide whether to outline it. */
function holding(items: OutlineNode[]): string {
  const counts = new Map<string, number>();
  const add = (what: string, n: number) => counts.set(what, (counts.get(what) ?? 0) + n);
  const visit = (nodes: OutlineNode[], times: number) => {
    for (const node of nodes) {
      if (node.k === 'h') {
        add('headings', times);
      } else if (node.k === 'c') {
        add(node.kind === 'link' ? 'links' : 'controls', times);
      } else if (node.k === 'b') {
        if (node.kind === 'table') {
          add('tables', times);
        }
        visit(node.items, times);
      } else {
        visit(node.items, times * node.count);
      }
    }
  };
  visit(items, 1);
  return [...counts].map(([what, n]) => `${n} ${n === 1 ? what.replace(/s$/, '') : what}`).join(', ');
}

/**
 * Every selector an outline prints, one per element: `{a..b}` expanded, and `{n}` expanded
 * with the numbers of the group it sits in. The grammar of a line is
 * `[count × ]kind ["name"[|"name"…| … "name"]] selector[ — what else]`; headings start with #.
 */
export function printedSelectors(text: string): string[] {
  const out: string[] = [];
  const groups: { indent: number; from: number; to: number }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trimStart();
    const indent = raw.length - line.length;
    while ((groups.at(-1)?.indent ?? -1) >= indent) {
      groups.pop();
    }
    const sel = line.startsWith('#') || line.startsWith('(') ? undefined : selectorOf(line);
    if (!sel) {
      continue;
    }
    const range = /\{(\d+)\.\.(\d+)\}/.exec(sel);
    const group = groups.at(-1);
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      for (let n = from; n <= to; n++) {
        out.push(sel.replace(range[0], String(n)));
      }
      groups.push({ indent, from, to });
    } else if (sel.includes('{n}') && group) {
      for (let n = group.from; n <= group.to; n++) {
        out.push(sel.split('{n}').join(String(n)));
      }
    } else {
      out.push(sel);
    }
  }
  return out;
}

function selectorOf(line: string): string | undefined {
  const afterKind = line.replace(/^\d+ × /, '').replace(/^\S+ /, '');
  const names = /^"[^"]*"(?:(?:\|| … )"[^"]*")* /.exec(afterKind);
  const rest = afterKind.slice(names ? names[0].length : 0);
  const sel = rest.split(' — ')[0]?.trim();
  return sel && sel !== line ? sel : undefined;
}
