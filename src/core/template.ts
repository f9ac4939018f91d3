/** Double-brace templates (ARCHITECTURE §4 Scripted replies: `{{name}}` is filled from variables). */

/**
 * Fills `{{name}}` placeholders; a name with no value stays as written, so a missing
 * variable is visible in the transcript.
 * @example fillTemplate('Hi {{name}}', { name: 'Ann' }) // 'Hi Ann'
 */
export function fillTemplate(text: string, variables: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (whole, name: string) => {
    const value = Object.prototype.hasOwnProperty.call(variables, name) ? variables[name] : undefined;
    return value === undefined || value === null ? whole : typeof value === 'string' ? value : JSON.stringify(value);
  });
}
