let known: Set<string> | null = null;

/**
 * IANA names the runtime can format with, plus "UTC" (not always in the supported list): a zone
 * the runtime does not know would break every `daysRemaining` of the school.
 */
export function isKnownTimeZone(name: string): boolean {
  known ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);
  return known.has(name);
}
