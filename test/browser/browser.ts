/**
 * The browser tests' harness: Debian's chromium (scripts/chromium-setup.sh) driven through
 * playwright-core, which launches that binary and downloads nothing.
 *
 * Which browser: IRIS_TEST_CHROMIUM (set by `npm test` to the path chromium-setup.sh printed),
 * else IRIS_CHROMIUM, else `chromium` on PATH. Without one the tests are skipped with a message,
 * except under CI=true (or IRIS_TEST_CHROMIUM set), where a missing browser fails the run.
 *
 * The launch flags keep chromium off the network it cannot reach here (no background
 * networking, component updates, sync or QUIC) and give each launch a fresh profile.
 * Screenshots go to IRIS_SCREENSHOTS when set (docs/dashboard.md's pictures come from there),
 * else to a temporary folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

function findChromium(): string | null {
  for (const candidate of [process.env.IRIS_TEST_CHROMIUM, process.env.IRIS_CHROMIUM]) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  const which = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  return found || null;
}

export const CHROMIUM = findChromium();
const ci = process.env.CI;
export const MUST_RUN =
  (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') || Boolean(process.env.IRIS_TEST_CHROMIUM);
export const MISSING_BROWSER =
  'chromium is required here (CI=true or IRIS_TEST_CHROMIUM) but not found: run `bash scripts/chromium-setup.sh`';
if (!CHROMIUM && !MUST_RUN)
  console.warn('skipping the browser tests: chromium is not installed (bash scripts/chromium-setup.sh installs it)');

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error(MISSING_BROWSER);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
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
