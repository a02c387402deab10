/**
 * The in-page half of outline: it walks the page and answers OutlineNode[] (outline.ts), folding
 * runs of sibling blocks of one shape into groups whose selectors it verifies in the page.
 */

// The script is a string run by the browser, not code of ours: String.raw keeps its regular
// expressions' backslashes as written. It has no template placeholders.
export const OUTLINE_SCRIPT = String.raw`
const [css, xpath] = arguments;
const root = css !== null ? document.querySelector(css)
  : xpath !== null ? document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue
  : document.body;
if (!root) return null;
const clean = (s, n) => (s || '').replace(/\s+/g, ' ').trim().replace(/"/g, "'").slice(0, n || 60);
const esc = (s) => (window.CSS && CSS.escape) ? CSS.escape(s) : s.replace(/[^a-zA-Z0-9_-]/g, '\\$&');
const only = (sel, el) => { try { const m = document.querySelectorAll(sel); return m.length === 1 && m[0] === el; } catch { return false; } };
const attrs = (el, names) => {
  const out = [];
  for (const attr of names) {
    const v = el.getAttribute(attr);
    if (v && v.length < 80) out.push(el.localName + '[' + attr + '="' + v.replace(/["\\]/g, '\\$&') + '"]');
  }
  return out;
};
const candidates = (el) => {
  const tag = el.localName;
  return [tag].concat(el.classList[0] ? [tag + '.' + esc(el.classList[0])] : [], attrs(el, ['name', 'data-testid', 'aria-label', 'placeholder', 'href', 'value', 'title', 'type']));
};
const anchorOf = (el) => {
  if (el === document.body) return 'body';
  if (el.id && only('#' + esc(el.id), el)) return '#' + esc(el.id);
  return candidates(el).find((c) => only(c, el)) || null;
};
const step = (n) => {
  let i = 1, same = 0;
  for (const s of n.parentElement ? n.parentElement.children : []) { if (s.localName === n.localName) { same++; if (s === n) i = same; } }
  return n.localName + (same > 1 ? ':nth-of-type(' + i + ')' : '');
};
const selectorFor = (el) => {
  const own = anchorOf(el);
  if (own) return own;
  const mine = candidates(el);
  const path = [step(el)];
  for (let n = el.parentElement; n && n !== document.documentElement; n = n.parentElement) {
    const anchor = anchorOf(n);
    if (anchor) {
      const near = mine.map((c) => anchor + ' ' + c).find((c) => only(c, el));
      return near || anchor + ' > ' + path.join(' > ');
    }
    path.unshift(step(n));
  }
  return path.join(' > ');
};
const visible = (el) => {
  if (el.checkVisibility ? el.checkVisibility() : (el.offsetWidth || el.offsetHeight || el.getClientRects().length)) return true;
  return getComputedStyle(el).display === 'contents';
};
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'meta', 'link', 'option', 'datalist']);
const BLOCKS = { header: 'header', nav: 'nav', main: 'main', aside: 'aside', footer: 'footer', form: 'form', section: 'section', article: 'article', dialog: 'dialog', fieldset: 'fieldset', table: 'table' };
const ROLE_BLOCKS = new Set(['navigation', 'main', 'search', 'banner', 'contentinfo', 'complementary', 'form', 'region', 'dialog', 'alertdialog', 'table', 'grid', 'tablist', 'menu', 'menubar', 'toolbar']);
const ROLE_CONTROLS = new Set(['button', 'link', 'tab', 'menuitem', 'checkbox', 'radio', 'switch', 'combobox', 'textbox', 'searchbox', 'slider', 'option']);
const controlKind = (el) => {
  const tag = el.localName;
  if (tag === 'a' && el.hasAttribute('href')) return 'link';
  if (tag === 'button') return 'button';
  if (tag === 'input') { const t = el.type; if (t === 'hidden') return null; return ['submit', 'button', 'reset', 'image'].includes(t) ? 'button' : t; }
  if (tag === 'select' || tag === 'textarea' || tag === 'summary') return tag;
  const role = el.getAttribute('role');
  if (role && ROLE_CONTROLS.has(role)) return role;
  if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'editable';
  return null;
};
const PRESSED = new Set(['link', 'button', 'summary', 'tab', 'menuitem', 'option']);
const nameOf = (el, kind) => {
  const aria = el.getAttribute('aria-label');
  if (PRESSED.has(kind)) {
    const img = el.querySelector && el.querySelector('img[alt]');
    return clean(aria || el.innerText || el.value || el.getAttribute('title') || (img && img.alt) || '', 50);
  }
  if (el.labels && el.labels[0]) return clean(el.labels[0].innerText, 50);
  return clean(aria || el.getAttribute('placeholder') || el.getAttribute('title') || el.name || '', 50);
};
const blockKind = (el) => { const r = el.getAttribute('role'); return (r && ROLE_BLOCKS.has(r)) ? r : (BLOCKS[el.localName] || null); };
const blockName = (el) => {
  const legend = el.localName === 'fieldset' && el.querySelector('legend');
  const caption = el.localName === 'table' && el.caption;
  return clean(el.getAttribute('aria-label') || (legend && legend.innerText) || (caption && caption.innerText) || '', 50);
};
const tableMeta = (t) => {
  const headRow = (t.tHead && t.tHead.rows[t.tHead.rows.length - 1]) || (t.rows[0] && t.rows[0].querySelector('th') ? t.rows[0] : null);
  let rows = 0; for (const b of t.tBodies) rows += b.rows.length;
  if (!t.tBodies.length) rows = t.rows.length;
  if (headRow && headRow.parentElement.localName !== 'thead') rows -= 1;
  const head = headRow ? [...headRow.cells].slice(0, 12).map((c) => clean(c.innerText, 24) || '·') : [];
  return rows + ' rows' + (head.length ? ': ' + head.join(' | ') : '');
};
const blockMeta = (el, kind) => {
  if (el.localName === 'table') return tableMeta(el);
  if (kind === 'form' && el.getAttribute('action')) return '→ ' + clean(el.getAttribute('action'), 80);
  return undefined;
};
const fill = (tpl, n) => tpl.split('{n}').join(String(n));
const sample = (count) => {
  if (count <= 300) return [...Array(count).keys()];
  const picked = new Set([...Array(100).keys()].concat([...Array(100).keys()].map((i) => count - 1 - i)));
  for (let i = 100; i < count - 100; i += Math.ceil(count / 100)) picked.add(i);
  return [...picked];
};
const holds = (tpl, els, keys) => sample(els.length).every((i) => only(fill(tpl, keys[i]), els[i]));
const numericTemplate = (sels) => {
  const parts = sels.map((s) => s.split(/(\d+)/));
  const len = parts[0].length;
  if (!parts.every((p) => p.length === len)) return null;
  let at = -1;
  for (let t = 0; t < len; t++) {
    if (parts.every((p) => p[t] === parts[0][t])) continue;
    if (t % 2 === 0 || at !== -1) return null;
    at = t;
  }
  if (at === -1) return null;
  const keys = parts.map((p) => Number(p[at]));
  if (!keys.every((k, i) => k === keys[0] + i && String(k) === parts[i][at])) return null;
  return { tpl: parts[0].map((x, t) => (t === at ? '{n}' : x)).join(''), keys };
};
const instanceTemplate = (els) => {
  const own = numericTemplate(els.map(selectorFor));
  if (own) return own;
  const parent = els[0].parentElement;
  const first = [...parent.children].indexOf(els[0]) + 1;
  const key = { tpl: selectorFor(parent) + ' > ' + els[0].localName + ':nth-child({n})', keys: els.map((_, i) => first + i) };
  return holds(key.tpl, els, key.keys) ? key : null;
};
const relativeTo = (el, inst) => {
  for (const c of candidates(el)) { try { const m = inst.querySelectorAll(c); if (m.length === 1 && m[0] === el) return ' ' + c; } catch { /* an odd attribute value */ } }
  const parts = [];
  for (let n = el; n && n !== inst; n = n.parentElement) parts.unshift(step(n));
  return ' > ' + parts.join(' > ');
};
const leafTemplate = (leaves, insts, key) => {
  const els = leaves.map((l) => l.el);
  if (els[0] === insts[0]) return holds(key.tpl, els, key.keys) ? key.tpl : null;
  const tries = [key.tpl + relativeTo(els[0], insts[0])];
  const own = selectorFor(els[0]).split(/(\d+)/);
  for (let t = 1; t < own.length; t += 2) if (own[t] === String(key.keys[0])) tries.push(own.map((x, u) => (u === t ? '{n}' : x)).join(''));
  tries.sort((a, b) => a.length - b.length);
  return tries.find((tpl) => holds(tpl, els, key.keys)) || null;
};
const MAX_NAMES = 200;
const namesOf = (leaves) => {
  const names = leaves.map((l) => l.name);
  if (names.every((x) => x === names[0])) return undefined;
  return names.length <= MAX_NAMES ? names : names.slice(0, MAX_NAMES - 1).concat([names[names.length - 1]]);
};
const OWN_UP_TO = 30;
const group = (run) => {
  const insts = run.map((r) => r.el);
  const key = instanceTemplate(insts);
  if (!key) return null;
  const leafCount = run[0].flat.length;
  const items = [];
  for (let j = 0; j < leafCount; j++) {
    const leaves = run.map((r) => r.flat[j]);
    const first = leaves[0];
    const names = namesOf(leaves);
    const node = first.k === 'h' ? { k: 'h', level: first.level, text: first.name }
      : { k: 'c', kind: first.kind, name: first.name, sel: leafTemplate(leaves, insts, key) };
    if (names) node.names = names;
    items.push(node);
  }
  const first = insts[0];
  const g = { k: 'g', count: insts.length, from: key.keys[0], to: key.keys[key.keys.length - 1], kind: first.localName + (first.classList[0] ? '.' + esc(first.classList[0]) : ''), sel: key.tpl, items };
  if (leafCount === 1 && run[0].flat[0].k === 'c' && insts.length <= OWN_UP_TO) g.own = run.map((r) => selectorFor(r.flat[0].el));
  return g;
};
const leaf = (el, node) => ({ items: [node], flat: [{ k: node.k, kind: node.kind, level: node.level, name: node.k === 'h' ? node.text : node.name, el }] });
const EMPTY = { items: [], flat: [] };
const walk = (el) => {
  if (SKIP.has(el.localName) || !visible(el)) return EMPTY;
  const kind = controlKind(el);
  if (kind) return leaf(el, { k: 'c', kind, name: nameOf(el, kind), el });
  if (/^h[1-6]$/.test(el.localName)) return leaf(el, { k: 'h', level: Number(el.localName[1]), text: clean(el.innerText, 80) });
  if (el.localName === 'iframe') return leaf(el, { k: 'c', kind: 'iframe', name: clean(el.getAttribute('title') || el.name || '', 50), el, meta: el.getAttribute('src') ? 'src=' + clean(el.getAttribute('src'), 80) : undefined });
  const kids = [...el.children].map((c) => { const r = walk(c); return { el: c, items: r.items, flat: r.flat, sig: r.flat.length ? c.localName + '|' + r.flat.map((f) => f.k === 'h' ? 'h' + f.level : f.kind).join(',') : '' }; });
  const items = [];
  const flat = [];
  for (let i = 0; i < kids.length;) {
    let j = i + 1;
    if (kids[i].sig) while (j < kids.length && kids[j].sig === kids[i].sig) j++;
    const run = kids.slice(i, j);
    const g = run.length >= 2 ? group(run) : null;
    if (g) items.push(g); else for (const r of run) items.push(...r.items);
    for (const r of run) flat.push(...r.flat);
    i = j;
  }
  const bk = blockKind(el);
  if (bk && (items.length || el.localName === 'table') && el !== root) {
    const node = { k: 'b', kind: bk, name: blockName(el), sel: selectorFor(el), items };
    const meta = blockMeta(el, bk);
    if (meta) node.meta = meta;
    return { items: [node], flat };
  }
  return { items, flat };
};
// A control's own selector is worked out only if it is shown on its own line, not folded into a group.
const finish = (nodes) => { for (const n of nodes) { if (n.el) { n.sel = selectorFor(n.el); delete n.el; } if (n.items) finish(n.items); } return nodes; };
return finish(walk(root).items);`;
