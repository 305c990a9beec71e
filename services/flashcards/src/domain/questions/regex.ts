/**
 * Escapes text for a RegExp so every character matches literally, in `u` mode too: there only the
 * syntax characters and `/` may be escaped (`\-` outside a class is a SyntaxError, so `-` is left as is).
 */
export const escapeRegexText = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
