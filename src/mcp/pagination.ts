/**
 * The `tools/list` page size when none is given.
 *
 * @example
 * createMcpServer(registry, { pageSize: DEFAULT_PAGE_SIZE });
 */
export const DEFAULT_PAGE_SIZE = 100;

const PREFIX = 'toolpact.v1:';

/**
 * An opaque cursor for the page that starts at `offset`.
 *
 * @example
 * decodeCursor(encodeCursor(100)); // 100
 */
export function encodeCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`, 'utf8').toString('base64url');
}

/**
 * The offset a cursor stands for, or undefined when the cursor is not one of ours (the server then
 * answers -32602, as the pagination spec asks for an invalid cursor).
 *
 * @example
 * decodeCursor('not-ours'); // undefined
 */
export function decodeCursor(cursor: string): number | undefined {
  if (cursor.length > 64) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(PREFIX)) return undefined;
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9]\d{0,8})$/.test(digits)) return undefined;
  return Number(digits);
}
