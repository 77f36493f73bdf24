/**
 * Removes every occurrence of a platform mention (a RegExp source such as `<@!?123>`) and reports whether one was
 * there.
 */
export function stripMention(text: string, mention: string): { text: string; mentioned: boolean } {
  const mentioned = new RegExp(mention).test(text);
  return {
    text: text
      .replace(new RegExp(mention, 'g'), '')
      .replace(/\s{2,}/g, ' ')
      .trim(),
    mentioned,
  };
}
