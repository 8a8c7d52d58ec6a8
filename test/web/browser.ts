// The system's Chromium (Debian package `chromium`) driven by playwright-core: nothing downloads
// a browser. Tests that need it skip, saying why, when it is missing.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => p !== undefined && p !== '')

/** Path of the browser, or undefined. */
export const CHROMIUM = CANDIDATES.find((p) => existsSync(p))

/** The describe title, saying what is missing when it is. */
export function needsChromium(title: string): string {
  return CHROMIUM === undefined ? `${title} (skipped: no Chromium at ${CANDIDATES.join(' or ')}; apt-get install chromium, or set CHROMIUM_PATH)` : title
}

/** Headless Chromium; root needs --no-sandbox. */
export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : []
  return chromium.launch({ executablePath: CHROMIUM as string, headless: true, args })
}

/** Where screenshots go (gitignored). */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts')

/** Saves a screenshot under test-artifacts/. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true })
  const path = join(ARTIFACTS, name)
  await page.screenshot({ path, fullPage: true })
  return path
}

/** Collects console errors and uncaught page errors. */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  return errors
}
