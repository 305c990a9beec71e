/** Escapes text for a RegExp so every character matches literally. */
export const escapeRegexText = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
