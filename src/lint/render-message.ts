/**
 * Fills a message template's `{placeholder}`s from a finding's data. An unknown placeholder is left
 * as it is, so a missing value shows instead of vanishing.
 *
 * @example
 * renderMessage('Tool "{tool}" is vague.', { tool: 'read_file' }); // 'Tool "read_file" is vague.'
 */
export function renderMessage(template: string, data: { readonly [key: string]: string | number }): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    Object.hasOwn(data, key) ? String(data[key]) : whole,
  );
}
