/** The time the prompt builder puts at the start of the newest user message: `[2026-11-27 03:07 UTC] `. */
export const USER_TIME = /^\[\d{4}-\d\d-\d\d \d\d:\d\d UTC\] /;

/** What the user wrote, without that time: the loopback models answer to the words, whatever the minute. */
export const withoutTime = (content: string): string => content.replace(USER_TIME, '');
