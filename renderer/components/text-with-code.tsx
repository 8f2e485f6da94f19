/**
 * Text with its code shown as code: `inline code` as <code>, fenced blocks as <pre><code>, the
 * backticks themselves not shown (model/code-spans.ts). For the transcript's words and the
 * permission card's sentences, which agents and Baton write with backticks.
 */
import { codeSpans } from '../model/code-spans.ts';

/** Renders `text` inline, its code spans and blocks marked up. */
export function TextWithCode({ text }: { text: string }) {
  return (
    <>
      {codeSpans(text).map((part, index) => {
        if (part.kind === 'code')
          return (
            <code key={index} className="inline-code">
              {part.text}
            </code>
          );
        if (part.kind === 'block')
          return (
            <pre key={index} className="code-block">
              <code>{part.text}</code>
            </pre>
          );
        return part.text;
      })}
    </>
  );
}
