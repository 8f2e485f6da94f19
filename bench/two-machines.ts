/**
 * bench:two-machines — Baton across two machines (two hosts of network namespaces joined by a veth
 * link, each running `npm start` headless and shown in a Chromium on that host: dev-env/two-hosts/).
 * Desk creates the account, so it hosts the backend, and lets other machines reach it.
 *
 * - Joining: from the moment the invite pasted on the laptop's set-up screen is sent (Join) to the
 *   app on screen there (New session), `BENCH_JOINS` times (default 3), each a fresh laptop profile.
 * - Moving: Move → the target shows the session running on it, for a demo session moved back and forth
 *   between desk and the laptop (two hosts), against the same moves of a second session between desk
 *   and a second device on desk's own host (one host): `BENCH_RUNS` moves each (default 8), one of each
 *   in turn. The ratio is the two hosts' median over the one host's.
 * Times are read in the target page (a MutationObserver notes when the text appears) against the same
 * clock the click was timed by. Prints a table and ends with one JSON line.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { openOnHost } from '../dev-env/two-hosts/host-browser.ts';
import { startTwoMachines, type Machine, type TwoMachines } from '../dev-env/two-hosts/two-machines.ts';
import { median } from './median.ts';

const JOINS = Number(process.env.BENCH_JOINS ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 8);
const browsers: Browser[] = [];

async function open(world: TwoMachines, machine: Machine): Promise<Page> {
  const { browser, page } = await openOnHost(machine, world.sandbox.root);
  browsers.push(browser);
  return page;
}

/**
 * Notes, in `page`, the time `test` (a JavaScript expression on the page) first holds (read back with
 * `seenAt`). Page scripts are strings: this file is transpiled by tsx, whose helpers a page lacks.
 */
async function watchFor(page: Page, test: string): Promise<void> {
  await page.evaluate(`(() => {
    window.__seenAt = null;
    const check = () => { if (window.__seenAt === null && (${test})) window.__seenAt = Date.now(); };
    check();
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  })()`);
}

/** A page test: `text` is in the page's main region. */
const mainHas = (text: string) => `(document.querySelector('main')?.textContent ?? '').includes(${JSON.stringify(text)})`;

/** The time `watchFor`'s test first held in `page`, waiting up to a minute for it. */
async function seenAt(page: Page): Promise<number> {
  for (let tries = 0; tries < 1200; tries++) {
    const at = (await page.evaluate('window.__seenAt')) as number | null;
    if (at !== null) return at;
    await page.waitForTimeout(50);
  }
  throw new Error('what was awaited never appeared');
}

/** A fresh invite from desk's Devices screen. */
async function invite(desk: Page): Promise<string> {
  const add = desk.getByRole('region', { name: 'Add a device' });
  const field = add.getByRole('textbox', { name: 'Invite' });
  const before = (await field.count()) > 0 ? await field.inputValue() : '';
  await add.getByRole('button', { name: 'Add a device' }).click();
  for (let tries = 0; (await field.count()) === 0 || ['', before].includes(await field.inputValue()); tries++) {
    if (tries > 600) throw new Error('desk made no invite');
    await desk.waitForTimeout(50);
  }
  return field.inputValue();
}

/** Joins `machine` (its set-up screen on `page`) with `line`; the milliseconds from Join to the app on screen. */
async function timedJoin(page: Page, line: string): Promise<number> {
  const join = page.getByRole('region', { name: 'Join with an invite' });
  await join.getByRole('textbox', { name: 'Invite' }).fill(line);
  await watchFor(page, `[...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'New session')`);
  const started = Date.now();
  await join.getByRole('button', { name: 'Join' }).click();
  return (await seenAt(page)) - started;
}

/** Opens `title` on `page`. */
async function openSession(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('link', { name: title }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

/** Moves the open session of `from` to `target` (its device name); the milliseconds until `to` shows it running there. */
async function timedMove(from: Page, to: Page, target: string): Promise<number> {
  await from.getByRole('main').getByRole('region', { name: 'Ownership' }).getByRole('button', { name: 'Move', exact: true }).click();
  const dialog = from.getByRole('dialog', { name: 'Move session' });
  const radio = dialog.getByRole('radio', { name: target, exact: true });
  for (let tries = 0; !(await radio.isEnabled()); tries++) {
    if (tries > 600) throw new Error(`${target} never became a target of the move`);
    await from.waitForTimeout(50);
  }
  await radio.check();
  await watchFor(to, mainHas(`Running on ${target} — this device`));
  const started = Date.now();
  await dialog.getByRole('button', { name: 'Start move' }).click();
  const ms = (await seenAt(to)) - started;
  // The message box takes input again once the agent resumed: the move is over on both sides.
  const message = to.getByRole('textbox', { name: 'Message', exact: true });
  for (let tries = 0; !(await message.isEnabled()); tries++) {
    if (tries > 600) throw new Error('the moved session never took input on its new device');
    await to.waitForTimeout(50);
  }
  return ms;
}

async function startDemoSession(page: Page, workspace: string, title: string): Promise<void> {
  await page.getByRole('button', { name: 'New session' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Workspace').fill(workspace);
  await dialog.getByLabel('Provider').selectOption({ label: 'Demo agent' });
  await dialog.getByLabel('Title').fill(title);
  await dialog.getByLabel('Prompt').fill('Look around.');
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

async function main(): Promise<void> {
  const world = await startTwoMachines('baton-bench-two-machines-');
  try {
    console.log(`two hosts made by ${world.lab.madeBy}; ${JOINS} joins, ${RUNS} moves each way of measuring`);
    await world.desk.start();
    const desk = await open(world, world.desk);
    const create = desk.getByRole('region', { name: 'Create an account' });
    await create.getByRole('button', { name: 'Create account' }).click();
    await desk.getByRole('button', { name: 'New session' }).waitFor();
    await desk.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Devices' }).click();
    await desk.getByRole('button', { name: 'Let other machines reach this backend' }).click();
    await desk.getByRole('list', { name: 'Other machines reach your sync backend at:' }).waitFor();

    const joins: number[] = [];
    let laptop: Machine = world.laptop;
    let laptopPage: Page | null = null;
    for (let i = 0; i < JOINS; i++) {
      laptop = i === 0 ? world.laptop : world.machineOn(world.lab.b, `laptop-${i + 1}`);
      await laptop.start();
      laptopPage = await open(world, laptop);
      await laptopPage.getByRole('heading', { level: 1, name: 'Set up Baton on this device' }).waitFor();
      const ms = await timedJoin(laptopPage, await invite(desk));
      joins.push(ms);
      console.log(`join ${i + 1}: ${ms} ms`);
      if (i < JOINS - 1) {
        await laptopPage.context().browser()?.close();
        await laptop.stop();
      }
    }
    // The one-host baseline: a second device on desk's own host.
    const twin = world.machineOn(world.lab.a, 'desk-twin');
    await twin.start({ BATON_INVITE: await invite(desk) });
    const twinPage = await open(world, twin);
    await twinPage.getByRole('button', { name: 'New session' }).waitFor();

    const second = join(world.sandbox.root, 'desk-home', 'src', 'notes');
    mkdirSync(join(second, '..'), { recursive: true });
    world.sandbox.clone(world.sandbox.makeOrigin('notes'), second);
    for (const repo of [world.repo, second]) {
      world.sandbox.commitFile(repo, 'README.md', '# bench\n', 'Start');
      world.sandbox.push(repo);
    }
    await startDemoSession(desk, world.repo, 'Across the link');
    await startDemoSession(desk, second, 'On one host');
    const pages = { desk, laptop: laptopPage!, twin: twinPage };
    const across: number[] = [];
    const local: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const out = i % 2 === 0;
      for (const [title, other, name, into] of [
        ['Across the link', pages.laptop, laptop.name, across],
        ['On one host', pages.twin, twin.name, local],
      ] as const) {
        const [from, to] = out ? [pages.desk, other] : [other, pages.desk];
        await openSession(from, title);
        await openSession(to, title);
        const ms = await timedMove(from, to, out ? name : 'desk');
        into.push(ms);
      }
      console.log(`move ${i + 1}: two hosts ${across.at(-1)} ms, one host ${local.at(-1)} ms`);
    }
    const result = {
      join_ms: median(joins),
      two_hosts_ms: median(across),
      one_host_ms: median(local),
    };
    const ratio = result.two_hosts_ms / result.one_host_ms;
    console.log('');
    console.log('| what                                   | median   | runs |');
    console.log('| -------------------------------------- | -------- | ---- |');
    console.log(`| join: Join → the app on the laptop     | ${result.join_ms} ms | ${joins.length} |`);
    console.log(`| move between the two hosts             | ${result.two_hosts_ms} ms | ${across.length} |`);
    console.log(`| the same move on one host              | ${result.one_host_ms} ms | ${local.length} |`);
    console.log(`ratio (two hosts ÷ one host): ${ratio.toFixed(2)}`);
    console.log(
      JSON.stringify({ bench: 'two-machines', ratio: Number(ratio.toFixed(3)), ...result, joins_ms: joins, made_by: world.lab.madeBy }),
    );
  } finally {
    for (const browser of browsers) await browser.close().catch(() => undefined);
    await world.close();
  }
}

await main();
