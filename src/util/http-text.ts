/**
 * The value of the cookie `name` in a `Cookie` header, or undefined.
 *
 * @example
 * cookieValue('a=1; toolpact-studio-4400=xyz', 'toolpact-studio-4400'); // 'xyz'
 */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Text made safe inside HTML text and attribute values.
 *
 * @example
 * escapeHtml('<b>'); // '&#60;b&#62;'
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The first value of a request header Node may give as a list. */
export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
