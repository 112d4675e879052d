/**
 * The browser tests' harness: Debian's chromium (scripts/chromium-setup.sh) driven through
 * playwright-core, which launches that binary and downloads nothing.
 *
 * Which browser and its launch flags: scripts/chromium.mjs (shared with the dashboard bench).
 * Without one the tests are skipped with a message, except under CI=true (or IRIS_TEST_CHROMIUM
 * set), where a missing browser fails the run. Each launch has a fresh profile.
 * Screenshots go to IRIS_SCREENSHOTS when set (docs/dashboard.md's pictures come from there),
 * else to a temporary folder.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_FLAGS, chromiumPath } from '../../scripts/chromium.mjs';

export const CHROMIUM = chromiumPath();
const ci = process.env.CI;
export const MUST_RUN =
  (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') || Boolean(process.env.IRIS_TEST_CHROMIUM);
export const MISSING_BROWSER =
  'chromium is required here (CI=true or IRIS_TEST_CHROMIUM) but not found: run `bash scripts/chromium-setup.sh`';
if (!CHROMIUM && !MUST_RUN)
  console.warn('skipping the browser tests: chromium is not installed (bash scripts/chromium-setup.sh installs it)');

export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error(MISSING_BROWSER);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS], timeout: 60_000 });
}

/** A fresh context (no cookies) with a laptop-sized window unless told otherwise. */
export function freshContext(
  browser: Browser,
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<BrowserContext> {
  return browser.newContext({ viewport, colorScheme: 'light' });
}

const shotDir = process.env.IRIS_SCREENSHOTS ?? mkdtempSync(path.join(tmpdir(), 'iris-shots-'));

/** Saves a full-page PNG named `name.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(shotDir, { recursive: true });
  const file = path.join(shotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
