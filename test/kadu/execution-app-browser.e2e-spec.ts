import type { Browser, Frame, Page } from 'playwright-core';
import { decide } from '../support/approvals.js';
import { startAppsHost, type AppsHost } from '../support/apps-host.js';
import type { HostApi } from '../support/apps-host/host-api.js';
import {
  DESKTOP,
  launchChromium,
  PHONE,
  screenshots,
  seriousViolations,
  type AxeViolation,
} from '../support/browser.js';
import { AMBIGUOUS_BANK_CSV, AMBIGUOUS_LEDGER_CSV, createTask } from '../support/executions.js';
import { uploadFile } from '../support/files.js';
import { chromium as chromiumBinary, requires } from '../support/infrastructure.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * Issue 31 in real Chromium: a host page built on @modelcontextprotocol/ext-apps' AppBridge and the
 * official client runs a task, renders ui://kadu/execution in a sandboxed iframe, and the app
 * follows the execution and cancels it — every call through the bridge, as the person.
 */
/** The host page's window, as the functions passed to page.evaluate see it. */
declare const window: HostApi;

let kadu: KaduTestApp;
let host: AppsHost;
let browser: Browser;
let admin: KaduClient;

requires(chromiumBinary()).describe('the execution app in a host', () => {
  beforeAll(async () => {
    kadu = await startKadu();
    await kadu.app.listen(0, '127.0.0.1');
    host = await startAppsHost((kadu.server.address() as { port: number }).port);
    browser = await launchChromium();
    admin = new KaduClient(kadu, { role: 'admin' });
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await kadu?.close();
  });

  /** A page of the host, connected as `token`; every request it makes is recorded. */
  async function hostPage(token: string): Promise<{ page: Page; requests: string[] }> {
    const page = await browser.newPage({ viewport: DESKTOP });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(host.url);
    await page.evaluate((t) => window.hostConnect(t), token);
    return { page, requests };
  }

  /** A host call; a destructive tool is approved on Kadu's page first, as the person would. */
  async function confirmedCall(page: Page, tool: string, args: Record<string, unknown>) {
    const call = () => page.evaluate(([t, a]) => window.hostCall(t, a), [tool, args] as const);
    const first = await call();
    if (!first.isError) return first;
    const error = JSON.parse((first.content as { text: string }[])[0]!.text).error;
    expect(error.code).toBe('approval_required');
    expect((await decide(kadu.server, error.approval_url, 'approve')).status).toBe(200);
    return call();
  }

  const appFrame = async (page: Page): Promise<Frame> => {
    await expect.poll(() => page.frames().length).toBe(2);
    return page.frames()[1]!;
  };
  const text = (frame: Frame, selector: string) => frame.locator(selector).innerText();

  it('runs a task, sees the steps appear and the cost move, the input requested, and Cancel cancels it', async () => {
    const bank = await uploadFile(kadu, admin, 'bank.csv', AMBIGUOUS_BANK_CSV);
    const ledger = await uploadFile(kadu, admin, 'ledger.csv', AMBIGUOUS_LEDGER_CSV);
    const taskId = await createTask(admin, 'reconcile', 50, 'Reconcile November');
    const { page, requests } = await hostPage(await kadu.token({ role: 'admin' }));
    const args = { task_id: taskId, input_file_ids: [bank, ledger] };
    const result = await confirmedCall(page, 'kadu_tasks_run', args);
    expect(result.isError).toBeFalsy();
    const queued = (result.structuredContent as { data: { id: string; status: string; cost: { spent: number } } }).data;
    expect(queued.cost.spent).toBe(0);
    expect(await page.evaluate(([a, r]) => window.hostOpenApp('kadu_tasks_run', a, r), [args, result] as const)).toBe(
      'ui://kadu/execution',
    );
    const frame = await appFrame(page);

    await expect.poll(() => text(frame, '#id'), { timeout: 15_000 }).toBe(queued.id);
    // The worker runs it: the steps appear one by one and the cost moves, then it asks for input.
    await expect.poll(() => frame.locator('#steps li').count(), { timeout: 15_000 }).toBeGreaterThan(1);
    await expect.poll(() => text(frame, '#status'), { timeout: 15_000 }).toBe('Waiting for your input');
    expect(await text(frame, '#steps')).toContain('Matching bank line');
    const cost = await text(frame, '#cost');
    expect(cost).toMatch(/^[1-9]\d* of 50$/);
    expect(await text(frame, '#question')).toContain('Bank line 1');
    expect(await text(frame, '#question')).toContain('L-1, L-2');
    await screenshots(page, 'execution-app-awaiting-input');
    // At phone width the app needs no horizontal scrolling inside its frame.
    await page.setViewportSize(PHONE);
    expect(await frame.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.setViewportSize(DESKTOP);

    const violations: AxeViolation[] = await seriousViolations(frame as unknown as Page);
    expect(violations).toEqual([]);

    // Cancel goes through kadu_executions_cancel: Kadu asks for the person's confirmation first.
    await frame.getByRole('button', { name: 'Cancel execution' }).click();
    await expect.poll(() => text(frame, '#notice')).toContain('confirm the cancel');
    expect(await admin.rest('get', `/api/v1/executions/${queued.id}`).then((r) => r.body.data.status)).toBe(
      'awaiting_input',
    );
    await frame.getByRole('button', { name: 'Open the approval page' }).click();
    await expect.poll(() => page.evaluate(() => window.openedLinks.length)).toBe(1);
    const link = (await page.evaluate(() => window.openedLinks[0]))!;
    expect((await decide(kadu.server, link, 'approve')).status).toBe(200);
    await frame.getByRole('button', { name: 'Cancel execution' }).click();
    await expect.poll(() => text(frame, '#status'), { timeout: 15_000 }).toBe('Canceled');
    expect(await text(frame, '#notice')).toContain('canceled');
    expect((await admin.rest('get', `/api/v1/executions/${queued.id}`)).body.data.status).toBe('canceled');
    await expect.poll(() => frame.getByRole('button', { name: 'Cancel execution' }).isHidden()).toBe(true);
    expect(await frame.getByRole('button', { name: 'Open the approval page' }).isHidden()).toBe(true);
    await screenshots(page, 'execution-app-canceled');

    // Nothing came from outside: the host's own origin only (its page, its script, /mcp).
    const origins = new Set(requests.filter((u) => /^https?:/.test(u)).map((u) => new URL(u).origin));
    expect([...origins]).toEqual([new URL(host.url).origin]);
    await page.close();
  });

  it("shown to another organisation for org A's execution, the app reveals nothing of it", async () => {
    const taskId = await createTask(admin, 'echo', 5, 'Org A task');
    const run = await admin.confirmedTool('2026', 'kadu_tasks_run', { task_id: taskId, input: { secret: 'orgA-42' } });
    const execution = run.body.data;
    await admin.waitForExecution(execution.id);
    const { page } = await hostPage(await kadu.token({ org: 'globex', user: 'gus@globex.test', role: 'owner' }));
    // Org B's host hands the app a result naming org A's execution; every read is org B's call.
    const forged = {
      content: [{ type: 'text', text: JSON.stringify({ data: execution }) }],
      structuredContent: { data: execution },
    };
    await page.evaluate(
      ([r]) => window.hostOpenApp('kadu_executions_get', { execution_id: r.structuredContent.data.id }, r),
      [forged] as const,
    );
    const frame = await appFrame(page);
    await expect.poll(() => text(frame, '#notice'), { timeout: 15_000 }).toContain('Not found');
    expect(await text(frame, '#steps')).toBe('');
    const all = await frame.locator('body').innerText();
    expect(all).not.toContain('Echoed');
    expect(all).not.toContain('orgA-42');
    await page.close();
  });
});
