import { describe, expect, it } from 'vitest';
import { mightNameFiles } from '../../src/browser/typing.js';

describe('text the driver could read as files', () => {
  it('is text whose every line is an absolute path, on Linux or Windows', () => {
    for (const text of [
      '/etc/passwd',
      ' /etc/passwd',
      '/a\n/b',
      '/a\r\n\n/b',
      'C:\\Users\\me',
      'c:/x',
      '\\\\host\\share',
      // geckodriver reads ~ as the browser's home, and ~x as a sibling of it
      '~/grid.toml',
      '~/../../etc/passwd',
      '~../etc/passwd',
      ' ~/a\n/b',
    ]) {
      expect(mightNameFiles(text), JSON.stringify(text)).toBe(true);
    }
  });

  it('is not text of which a line is no absolute path (the drivers refuse it whole)', () => {
    for (const text of [
      '',
      'bench@example.com',
      'etc/passwd',
      '/a\nb',
      'int x; // a comment',
      'https://example.com/',
    ]) {
      expect(mightNameFiles(text), JSON.stringify(text)).toBe(false);
    }
  });
});
