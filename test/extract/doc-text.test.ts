import { expect, test } from 'vitest';
import { docText } from '../../src/extract/index.js';

test('lines of a paragraph are joined; paragraphs, lists and code are kept', () => {
  expect(docText('Read a file.\nWrapped line.\n\nSecond paragraph\nalso wrapped.')).toBe(
    'Read a file. Wrapped line.\n\nSecond paragraph also wrapped.',
  );
  expect(docText('Modes:\n- fast\n- slow\n\n\n\nEnd.')).toBe('Modes:\n- fast\n- slow\n\nEnd.');
  expect(docText('Example:\n```\nread_file("a")\n  indented\n```\nafter')).toBe(
    'Example:\n```\nread_file("a")\n  indented\n```\nafter',
  );
  expect(docText('  \n')).toBe('');
});
