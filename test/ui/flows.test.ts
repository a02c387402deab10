import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, signIn, type PageBrowser } from './browser.js';

const TOKEN = 'admin-flows-token-0d2e';
const WORKSPACE = 'ui-flows';
let running: RunningServer;
let browser: PageBrowser;
let dataDir: string;

const FLOW = `# written by a person: this comment must survive the editor
description: Search the fixture site
parameters:
  type: object
  required: [query]
  properties:
    query: {type: string, description: what to look for}
    unused: {type: number}
steps:
  - tool: navigate
    id: open
    args: {url: "https://example.test/"}
  - tool: write
    id: type-query
    args: {selector: {css: "#q"}, text: "\${query}"}
`;

async function putFlow(text: string) {
  const answer = await fetch(`${running.url}/flows/search`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE, 'content-type': 'application/yaml' },
    body: text,
  });
  expect(answer.status, await answer.text()).toBe(200);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'admin-flows-'));
  [running, browser] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN, FLOW_DATA_DIR: dataDir }),
    launchBrowser(),
  ]);
  await putFlow(FLOW);
});

afterAll(async () => {
  await Promise.all([browser?.close(), running?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('the Flows tab', () => {
  it('outlines a flow, edits its YAML keeping comments, explains errors and 409s, moves and deletes', async () => {
    const tab = await openTab(browser, `${running.url}/admin/#/workspaces/${WORKSPACE}/flows/search`);
    const page = tab.page;
    await signIn(tab, TOKEN);
    await page.getByRole('heading', { name: 'search', level: 2 }).waitFor();

    // A parameter lists the steps that read it; one nothing reads is called out.
    await page.getByRole('button', { name: 'Parameter query, required' }).click();
    await page.getByRole('button', { name: /step 2/ }).click();
    await expect.poll(() => page.getByText('type-query', { exact: true }).count()).toBeGreaterThan(1);
    await page.getByRole('button', { name: 'Parameter unused' }).click();
    await page.getByText('No step uses this parameter').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    // The editor holds the file as written, comment included.
    await page.getByRole('button', { name: 'Edit YAML' }).click();
    const editor = page.getByRole('dialog', { name: 'Edit search' });
    await editor.locator('.cm-content').waitFor();
    expect(await editor.locator('.cm-content').textContent()).toContain('this comment must survive the editor');
    expect(await accessibilityViolations(page)).toEqual([]);

    // A syntax error is shown at its line, and nothing typed is lost.
    await editor.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n  - tool: [broken');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => editor.getByRole('alert').textContent()).toMatch(/Line \d+:/);
    expect(await editor.locator('.cm-content').textContent()).toContain('tool: [broken');
    expect(await editor.locator('.cm-lintRange-error').count()).toBeGreaterThan(0);

    // Someone else saves meanwhile: the save is refused as stale, explained, and reload is offered.
    // Undo takes the broken line back out (CodeMirror's history, as a person would).
    for (let i = 0; i < 10 && (await editor.locator('.cm-content').textContent())?.includes('broken'); i += 1) {
      await page.keyboard.press('Control+z');
    }
    expect(await editor.locator('.cm-content').textContent()).not.toContain('broken');
    await putFlow(FLOW.replace('Search the fixture site', 'Changed by someone else'));
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => editor.getByRole('alert').textContent()).toContain('Someone else saved this flow');
    await editor.getByRole('button', { name: 'Reload their version' }).click();
    await expect.poll(() => editor.locator('.cm-content').textContent()).toContain('Changed by someone else');

    // Their version, edited and saved: the comment is still in the stored file.
    await editor.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('# and a second comment\n');
    await editor.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved search.').waitFor();
    const stored = (await (
      await fetch(`${running.url}/admin/api/workspaces/${WORKSPACE}/flows/search`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json()) as { text: string };
    expect(stored.text).toContain('# and a second comment\n# written by a person');

    // Move to the shared library and back, then delete after a confirm.
    await page.getByRole('button', { name: 'Move to global' }).click();
    await page.getByText('Moved search to the shared library.').waitFor();
    await page.getByRole('heading', { name: '🌐 search' }).waitFor();
    await page.getByRole('button', { name: `Move to ${WORKSPACE}` }).click();
    await page.getByText(`Moved search into ${WORKSPACE}.`).waitFor();
    await page.getByRole('button', { name: 'Delete flow' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete flow' });
    expect(await confirm.getByRole('listitem').allTextContents()).toEqual(['search']);
    await confirm.getByRole('button', { name: 'Delete flow' }).click();
    await page.getByText('Deleted search.').waitFor();
    expect(new URL(page.url()).hash).toBe(`#/workspaces/${WORKSPACE}/flows`);
    expect(tab.problems).toEqual([]);
    await page.close();
  });
});
