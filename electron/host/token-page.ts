/**
 * What the headless host answers for its page opened without the right token (a bookmark of an
 * old address, a link pasted without its end, a guessed port): a plain page, in words, saying how
 * to get the link — `baton device` prints it as it starts, `baton open --profile DIR` prints (or
 * opens) it again — instead of a UI that waits for a device it may not reach. No script runs on it.
 */

/** The page, for a host on `port`; `given`: whether a token was given (a wrong one) or none. */
export function tokenPage(port: number, given: boolean): string {
  const why = given
    ? 'The link this page was opened with carries a token this device does not take (an old link, or one cut short).'
    : 'This page was opened without its token: Baton opens a device only from the link it prints, with its token.';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Open this device with its link — Baton</title>
</head>
<body>
<main>
<h1>Open this device with its link</h1>
<p>${why}</p>
<p>To get the link of the device on port ${port}, on the machine it runs on:</p>
<ul>
<li><code>baton open --profile DIR</code> prints the link again (and opens it where a browser can be started), for the device profile in DIR;</li>
<li><code>baton device --profile DIR …</code> prints it as it starts, on the line that begins with <code>ui:</code>.</li>
</ul>
<p>The link stays the same across restarts of the device, so it can be bookmarked.</p>
</main>
</body>
</html>
`;
}
