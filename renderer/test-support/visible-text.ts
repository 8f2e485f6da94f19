/** For tests: an element's text as the page shows it at first, without what closed Details hold. */

/** The text of `element` with every closed `<details>` element's content left out (its summary kept). */
export function visibleText(element: HTMLElement): string {
  const copy = element.cloneNode(true) as HTMLElement;
  for (const details of copy.querySelectorAll('details:not([open])')) {
    for (const child of [...details.children]) if (child.tagName !== 'SUMMARY') child.remove();
  }
  return copy.textContent ?? '';
}
