/** Counts in words for messages people read: "1 changed file", "2 changed files", "no files". */

/** `n` and `noun` in the right number ("1 file", "2 files"); `plural` for an irregular one ("1 repository", "2 repositories"). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** "it" or "them", for what `counted` named. */
export function themOrIt(n: number): string {
  return n === 1 ? 'it' : 'them';
}
