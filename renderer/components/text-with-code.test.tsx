/** Words with code in them show the code as code, and no backtick as it was typed. */
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TextWithCode } from './text-with-code.tsx';

describe('text with code', () => {
  it('shows inline code and fenced blocks as code, the backticks gone', () => {
    const { container } = render(
      <div>
        <TextWithCode text={'Permission to run `npm test`: allowed on desktop.\n```sh\nnpm test\n```'} />
      </div>,
    );
    expect(container.textContent).toBe('Permission to run npm test: allowed on desktop.npm test');
    expect([...container.querySelectorAll('code')].map((code) => code.textContent)).toEqual(['npm test', 'npm test']);
    expect(container.querySelector('pre.code-block > code')).toHaveTextContent('npm test');
  });

  it('leaves text with no code as it is', () => {
    const { container } = render(
      <p>
        <TextWithCode text="It's 5` long." />
      </p>,
    );
    expect(container.innerHTML).toBe("<p>It's 5` long.</p>");
  });
});
