// Signing the dashboard in to a token-protected server: a write refused
// before, the token typed once, the write then made from the page, the
// session cookie out of every script's reach, and signing out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, screenshots } from './harness.mjs';
import { join } from 'node:path';

const TOKEN = 'lab-write-token-0451';
let server;
let chromium;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
}, { args: ['--token', TOKEN] });

test('a person signs in with the token, shares a view, and signs out', async () => {
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.base}/`);
  await page.locator('#sign-in-token').waitFor();

  // Before signing in, a write from the page is refused, saying how.
  await page.locator('#share').click();
  await page.getByText('sign in on the dashboard').waitFor();
  assert.equal(await page.locator('#share-link').count(), 0);

  // A wrong token: said, and still signed out.
  await page.locator('#sign-in-token').fill('not-the-token-at-all');
  await page.locator('#sign-in button[type=submit]').click();
  await page.getByText("that is not this server's token").waitFor();
  assert.equal(await page.locator('#signed-in').count(), 0);

  await page.screenshot({ path: join(screenshots, 'sign-in.png') });
  await page.locator('#sign-in-token').fill(TOKEN);
  await page.locator('#sign-in button[type=submit]').click();
  await page.locator('#signed-in').waitFor();
  await page.screenshot({ path: join(screenshots, 'signed-in.png') });

  // The cookie: kept by the browser for the API alone, out of every
  // script's reach.
  const api = `${server.base}/api/session`;
  assert.equal((await context.cookies(server.base)).length, 0, 'the cookie is not sent for the pages');
  const cookies = await context.cookies(api);
  const session = cookies.find((c) => c.name === 'pqbench_session');
  assert.ok(session, JSON.stringify(cookies));
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Strict');
  assert.equal(session.path, '/api');
  assert.ok(!(await page.evaluate(() => document.cookie)).includes('pqbench_session'));
  assert.ok(!session.value.includes(TOKEN));

  // The write goes through now, and the page stays signed in on reload.
  await page.locator('#share').click();
  await page.locator('#share-link').waitFor();
  await page.reload();
  await page.locator('#signed-in').waitFor();

  // Signed out, the same write is refused again.
  await page.locator('#sign-out').click();
  await page.locator('#sign-in-token').waitFor();
  assert.equal((await context.cookies(api)).find((c) => c.name === 'pqbench_session'), undefined);
  const status = await page.evaluate(async () => {
    const response = await fetch('/api/reports', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ view: { runs: [1] } }),
    });
    return response.status;
  });
  assert.equal(status, 401);
  await context.close();
});
