import { describe, expect, it } from 'vitest';
import { printedSelectors, renderWithin, type OutlineNode } from '../../src/browser/outline.js';

const card = (n: number): OutlineNode => ({
  k: 'b',
  kind: 'section',
  name: '',
  sel: `#s${n}`,
  items: [
    { k: 'h', level: 2, text: `Part ${n}` },
    ...['first', 'second', 'third', 'fourth'].map((name) => ({
      k: 'c' as const,
      kind: 'link',
      name: `the ${name} link of part ${n}`,
      sel: `#s${n} a.${name}`,
    })),
  ],
});

const catalogue: OutlineNode[] = [
  {
    k: 'b',
    kind: 'main',
    name: '',
    sel: 'main',
    items: [
      {
        k: 'g',
        count: 3,
        from: 1,
        to: 3,
        kind: 'article.card',
        sel: '#card-{n}',
        items: [
          { k: 'h', level: 2, text: 'Kettle', names: ['Kettle', 'Lamp', 'Mug'] },
          { k: 'c', kind: 'button', name: 'Add to cart', sel: '#card-{n} button' },
        ],
      },
      { k: 'c', kind: 'link', name: 'Next page', sel: 'a.next' },
    ],
  },
];

describe('outline text', () => {
  it('prints a group once, with a template every instance fills', () => {
    const { outline, truncated } = renderWithin(catalogue, 10_000);
    expect(truncated).toBe(false);
    expect(outline.split('\n').slice(1)).toEqual([
      'main main',
      '  3 × article.card #card-{1..3}',
      '    ## "Kettle"|"Lamp"|"Mug"',
      '    button "Add to cart" #card-{n} button',
      '  link "Next page" a.next',
    ]);
    expect(printedSelectors(outline)).toEqual([
      'main',
      '#card-1',
      '#card-2',
      '#card-3',
      '#card-1 button',
      '#card-2 button',
      '#card-3 button',
      'a.next',
    ]);
  });

  it('folds deeper blocks rather than cutting the end when the page is long', () => {
    const tree: OutlineNode[] = [
      { k: 'b', kind: 'main', name: '', sel: 'main', items: Array.from({ length: 60 }, (_, i) => card(i)) },
      { k: 'b', kind: 'footer', name: '', sel: 'footer', items: [{ k: 'c', kind: 'link', name: 'Terms', sel: '#t' }] },
    ];
    const whole = renderWithin(tree, 100_000).outline;
    const { outline, truncated } = renderWithin(tree, 4_000);
    expect(whole.length).toBeGreaterThan(8_000);
    expect(truncated).toBe(false);
    expect(outline.length).toBeLessThanOrEqual(4_000);
    expect(outline).toContain('footer footer');
    expect(outline).toContain('section #s59 — 1 heading, 4 links: outline it for them');
  });

  it('cuts with a visible marker only when even the top level does not fit', () => {
    const tree: OutlineNode[] = Array.from({ length: 500 }, (_, i) => ({
      k: 'c' as const,
      kind: 'link',
      name: `Link ${i}`,
      sel: `#l${i}`,
    }));
    const { outline, truncated } = renderWithin(tree, 1_000);
    expect(truncated).toBe(true);
    expect(outline).toMatch(/truncated/);
  });

  it('leaves out a line that carries a typed secret, and says so', () => {
    const tree: OutlineNode[] = [
      { k: 'c', kind: 'text', name: 'hunter2-secret-value', sel: '#a' },
      { k: 'c', kind: 'button', name: 'Go', sel: '#b' },
    ];
    const { outline, withheld } = renderWithin(tree, 1_000, (line) => line.includes('hunter2'));
    expect(withheld).toBe(true);
    expect(outline).toBe('button "Go" #b');
  });
});
