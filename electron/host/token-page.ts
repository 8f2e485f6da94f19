/**
 * What the headless host answers for its page opened without the right token (a bookmark of an
 * old address, a link pasted without its end, a guessed port): a page in words saying how to get
 * the link — `baton device` prints it as it starts, `baton open --profile DIR` prints (or opens) it
 * again — instead of a UI that waits for a device it may not reach. No script runs on it; it wears
 * the UI's own stylesheet (named by the built page), so it looks like the rest of Baton.
 */

/** The stylesheets the built renderer page links (`<link rel="stylesheet" href="…">`), in order. */
export function pageStylesheets(indexHtml: string): string[] {
  const links = indexHtml.match(/<link\b[^>]*>/gi) ?? [];
  return links.filter((tag) => /\brel=["']?stylesheet\b/i.test(tag)).flatMap((tag) => /\bhref=["']([^"']+)["']/i.exec(tag)?.[1] ?? []);
}

const attribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The page, for a host on `port`; `given`: whether a token was given (a wrong one) or none;
 * `stylesheets`: the renderer's, as `pageStylesheets` read them from its page.
 */
export function tokenPage(port: number, given: boolean, stylesheets: readonly string[] = []): string {
  const why = given
    ? 'The link this page was opened with carries a token this device does not take (an old link, or one cut short).'
    : 'This page was opened without its token: Baton opens a device only from the link it prints, with its token.';
  const links = stylesheets.map((href) => `<link rel="stylesheet" href="${attribute(href)}">\n`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
${links}<title>Open this device with its link — Baton</title>
</head>
<body>
<main class="app-loading">
<div class="card setup-card token-card">
<h1>Open this device with its link</h1>
<p>${why}</p>
<p>To get the link of the device on port ${port}, on the machine it runs on:</p>
<ul>
<li><code>baton open --profile DIR</code> prints the link again (and opens it where a browser can be started), for the device profile in DIR;</li>
<li><code>baton device --profile DIR …</code> prints it as it starts, on the line that begins with <code>ui:</code>.</li>
</ul>
<p class="muted">The link stays the same across restarts of the device, so it can be bookmarked.</p>
</div>
</main>
</body>
</html>
`;
}
