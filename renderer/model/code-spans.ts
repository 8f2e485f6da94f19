/**
 * Text as agents and Baton write it, cut into plain runs and code: `inline code` between matching
 * runs of backticks on one line, and fenced blocks (a line of three or more backticks, an optional
 * language, the code, a closing line of the same backticks). A backtick with no match stays text:
 * nothing is lost but the marks and the line breaks that frame a block.
 */

/** One part of a text: plain words, inline code, or a fenced block. */
export type TextPart = { kind: 'text'; text: string } | { kind: 'code'; text: string } | { kind: 'block'; text: string };

const FENCE = /^(`{3,})[^`\n]*\n([\s\S]*?)\n?\1[ \t]*$/gm;
// A run of backticks, then at least one character that is not a backtick or a line break, then the same run.
const SPAN = /(?<!`)(`+)(?!`)([^\n]*?[^`\n])\1(?!`)/g;

function inlineParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let at = 0;
  for (const match of text.matchAll(SPAN)) {
    if (match.index > at) parts.push({ kind: 'text', text: text.slice(at, match.index) });
    // As in Markdown: one space padding both ends is the writer's, not the code's.
    const code = match[2]!;
    parts.push({ kind: 'code', text: /^ .* $/.test(code) && code.trim() !== '' ? code.slice(1, -1) : code });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ kind: 'text', text: text.slice(at) });
  return parts;
}

/** The parts of `text`, in order; a text with no code is one plain part (none for an empty text). */
export function codeSpans(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let at = 0;
  // A block stands on lines of its own: the line breaks around it are its edges, not text.
  for (const match of text.matchAll(FENCE)) {
    parts.push(...inlineParts(text.slice(at, match.index).replace(/\n$/, '')));
    parts.push({ kind: 'block', text: match[2]! });
    at = match.index + match[0].length;
    if (text[at] === '\n') at += 1;
  }
  parts.push(...inlineParts(text.slice(at)));
  return parts;
}
