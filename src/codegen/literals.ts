// Text from the Python program (string literals, dict keys, names, file names) reaches generated TS/JS as
// string literals and inside comments. Either must stay what it is wherever the output goes: parsed as a
// module, inlined in an HTML <script>, or shown in an editor. So no raw line separators (U+2028/U+2029
// end a comment, and older parsers reject them in strings), no `</script` or `<!--`, and no `*/` in a
// comment.

const hex4 = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON data as a JS expression, safe in a module and in an HTML <script> (the characters escaped only occur in its strings). */
export function jsJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u2028\u2029]|<(?=[/!])/g, (c) => (c === '<' ? '\\x3C' : hex4(c)));
}

/** A JS/TS string literal (double-quoted) whose value is exactly `s`, safe in a module and in an HTML <script>. */
export const jsString = (s: string): string => jsJson(s);

/** An import specifier as generated modules write it: single-quoted when plain, else a {@link jsString}. */
export const jsSpecifier = (s: string): string => (/^[\w./@:+-]*$/.test(s) ? `'${s}'` : jsString(s));

/** `s` as text inside a `//` or `/* *\/` comment: one line, no `*\/`, control characters and `</` escaped. */
export function commentText(s: string): string {
  return s.replace(/\*\//g, '*\\/').replace(/<(?=[/!])/g, '<\\').replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => {
    const j = JSON.stringify(c);
    return j.length === 4 ? j.slice(1, -1) : hex4(c);
  });
}
