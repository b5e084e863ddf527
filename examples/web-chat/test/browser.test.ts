import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScriptedProvider, startScriptedProvider } from '@yourtool/testing';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptDemoModel } from '../src/demo-model.js';
import { startWebChat, type WebChat } from '../src/server.js';

// Debian's chromium package (`.ci/run` installs it); Playwright's own browser downloads are not used
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
const SCREENSHOT = join(ARTIFACTS, 'web-chat.png');
const missing = !existsSync(CHROMIUM);
if (missing) {
  // printed while the file is collected (not inside a test), so the no-console rule allows it
  process.stdout.write(
    `SKIPPED browser test: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`,
  );
}

describe.skipIf(missing)('the web chat in headless Chromium', () => {
  let provider: ScriptedProvider;
  let chat: WebChat;
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  const printed: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'web-chat-'));
    provider = await startScriptedProvider();
    scriptDemoModel(provider);
    chat = await startWebChat({
      models: provider.modelsYaml({
        models: {
          'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
          'google:gemini-2.5-flash': { aliases: ['gemini'] },
        },
      }),
      choices: ['anthropic:claude-sonnet-4-6', 'google:gemini-2.5-flash'],
      db: join(dir, 'chat.db'),
      logger: false,
    });
    // a fresh profile per run: nothing cached from an earlier one
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await context?.close();
    await chat?.close();
    await provider?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    for (const line of printed) process.stdout.write(`${line}\n`);
  });

  const texts = () => page.getByTestId('text').allTextContents();
  async function send(text: string) {
    await page.getByTestId('input').fill(text);
    await page.getByTestId('send').click();
  }
  // playwright-core has no assertions of its own: vitest polls what the page shows
  const shown = (testId: string) => () => page.getByTestId(testId).last().textContent();
  const wait = { timeout: 20_000 };
  const idle = () => expect.poll(shown('status'), wait).toBe('ready');

  it('sends, streams, approves a tool, swaps the model, stops a turn, and shows the history after a reload', async () => {
    await page.goto(chat.url);
    await idle();

    await send('hello there');
    await expect.poll(shown('text'), wait).toBe('[claude-sonnet-4-6] You said: hello there');
    await idle();

    await send('note buy milk');
    await page.getByTestId('approve').click();
    await expect.poll(shown('tool'), wait).toContain('saved note 1: buy milk');
    await expect.poll(shown('text'), wait).toBe('Done (saved note 1: buy milk).');
    await idle();
    expect(chat.notes).toEqual(['buy milk']);

    await page.getByTestId('model').selectOption('google:gemini-2.5-flash');
    await expect
      .poll(async () => (await chat.runtime.store.getSession(chat.sessionId))?.active_model)
      .toBe('google:gemini-2.5-flash');
    await send('who are you');
    await expect.poll(shown('text'), wait).toBe('[gemini-2.5-flash] You said: who are you');
    await idle();
    await expect.poll(shown('cost'), wait).not.toBe('session $0');

    // a slow reply: text is seen growing, then the stop button ends the turn
    await send('long');
    await expect.poll(shown('text'), wait).toContain('word3 ');
    const partial = (await page.getByTestId('text').last().textContent()) ?? '';
    await expect
      .poll(async () => ((await page.getByTestId('text').last().textContent()) ?? '').length)
      .toBeGreaterThan(partial.length);
    await page.getByTestId('stop').click();
    await idle();
    await expect
      .poll(
        async () => (await chat.runtime.sessions.history(chat.sessionId)).at(-1)?.metadata.status,
      )
      .toBe('cancelled');
    const stopped = (await page.getByTestId('text').last().textContent()) ?? '';
    expect(stopped).not.toContain('word120');

    await page.reload();
    await expect.poll(() => page.getByTestId('message-user').count(), wait).toBe(4);
    const after = await texts();
    expect(after).toEqual(
      expect.arrayContaining([
        'hello there',
        '[claude-sonnet-4-6] You said: hello there',
        'Done (saved note 1: buy milk).',
        '[gemini-2.5-flash] You said: who are you',
      ]),
    );
    expect(after.some((t) => t.startsWith('word1 word2'))).toBe(true);
    expect((await page.getByTestId('tool').allTextContents()).join('\n')).toContain(
      'saved note 1: buy milk',
    );
    expect(await page.getByTestId('model').inputValue()).toBe('google:gemini-2.5-flash');
    await expect.poll(shown('cost'), wait).not.toBe('session $0');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    printed.push(
      `browser test: Chromium ${context.browser()?.version() ?? ''} at ${CHROMIUM}; screenshot: ${SCREENSHOT}`,
    );
  });
});
