/**
 * Escaping for everything report.html shows: metric names, error strings, the target URL and payload
 * text come from the run (and from whoever the target is), so none of it may become markup or script.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * JSON safe to embed in `<script type="application/json">`: no `<`, `>` or `&` can close the element
 * or open a comment, and U+2028/U+2029 cannot break a parser. `JSON.parse` reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Inline script text must not contain `</script` (it would end the element early). */
export function assertInlineScriptSafe(source: string, what: string): string {
  if (/<\/script/i.test(source)) throw new Error(`${what} contains "</script" and cannot be inlined`);
  return source;
}
