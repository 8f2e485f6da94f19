/** A sentence that starts with a name or a phrase ("this device", "laptop") starts with a capital. */

/** `text` with its first letter in upper case ("this device" → "This device"). */
export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
