// Helpers for the console specs, and the `test` every spec imports: it waits for the network to
// go idle after each test, so a request that never ends (a page that never settles) fails it.
import {
  type APIRequestContext,
  test as base,
  type Browser,
  type BrowserContext,
  errors,
  expect,
  type Page,
  type Request,
} from "@playwright/test";
import { SignJWT } from "jose";
import { E2E_SESSION_SECRET } from "./env";

export { expect };
export type { Page };

/** Quiet this long counts as idle (Playwright's own "networkidle" uses 500 ms). */
const NETWORK_QUIET_MS = 500;
/** A page still busy this long after it loaded has a request that never finishes. */
const NETWORK_IDLE_TIMEOUT_MS = 10_000;
const IDLE_POLL_MS = 100;

/** The requests in flight in one browser context. */
export class NetworkWatch {
  private readonly inflight = new Set<Request>();
  private lastActivity = Date.now();

  constructor(context: BrowserContext) {
    context.on("request", (r) => {
      // An event stream is open by design.
      if (r.resourceType() !== "eventsource") this.inflight.add(r);
      this.lastActivity = Date.now();
    });
    const done = (r: Request) => {
      this.inflight.delete(r);
      this.lastActivity = Date.now();
    };
    context.on("requestfinished", done);
    context.on("requestfailed", done);
  }

  /** Waits until nothing is in flight for NETWORK_QUIET_MS; fails naming what never finished. */
  async idle(when: string): Promise<void> {
    const deadline = Date.now() + NETWORK_IDLE_TIMEOUT_MS;
    while (this.inflight.size > 0 || Date.now() - this.lastActivity < NETWORK_QUIET_MS) {
      if (Date.now() > deadline) {
        const pending = [...this.inflight].map((r) => `${r.method()} ${r.url()}`).join("\n  ");
        throw new Error(`the network did not go idle within ${NETWORK_IDLE_TIMEOUT_MS} ms ${when}; still pending:\n  ${pending}`);
      }
      await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
    }
  }
}

/**
 * Every `goto` and `reload` on this page also waits for `idle` when given (the test's own page:
 * its NetworkWatch), then for React to have hydrated the page (see `hydrated`).
 */
function hydratingNavigation(page: Page, idle?: (what: string) => Promise<void>): Page {
  const goto = page.goto.bind(page);
  page.goto = async (url, options) => {
    const response = await goto(url, options);
    await idle?.(`after loading ${url}`);
    await hydrated(page);
    return response;
  };
  const reload = page.reload.bind(page);
  page.reload = async (options) => {
    const response = await reload(options);
    await idle?.(`after reloading ${page.url()}`);
    await hydrated(page);
    return response;
  };
  return page;
}

function hydratingContext(context: BrowserContext): BrowserContext {
  const newPage = context.newPage.bind(context);
  context.newPage = async () => hydratingNavigation(await newPage());
  return context;
}

const hydratingBrowsers = new WeakSet<Browser>();

export const test = base.extend<{ network: NetworkWatch }, { browser: Browser }>({
  // Pages a spec opens itself (a second user's context, a private server's) wait for hydration
  // after each goto too: a click on a page React has not hydrated yet can be lost (the reset link
  // on mail.spec's private server stayed on /login that way in full runs).
  browser: [
    async ({ browser }, use) => {
      if (!hydratingBrowsers.has(browser)) {
        hydratingBrowsers.add(browser);
        const newContext = browser.newContext.bind(browser);
        const newPage = browser.newPage.bind(browser);
        browser.newContext = async (options) => hydratingContext(await newContext(options));
        browser.newPage = async (options) => hydratingNavigation(await newPage(options));
      }
      await use(browser);
    },
    { scope: "worker" },
  ],
  network: [
    async ({ context }, use, testInfo) => {
      const watch = new NetworkWatch(context);
      await use(watch);
      // A test that already failed keeps its own error.
      if (testInfo.status === testInfo.expectedStatus) await watch.idle("after the test");
    },
    { auto: true },
  ],
  // Every navigation by URL or reload also waits for idle, so a hang on a page the test later
  // leaves fails too (leaving would cancel the pending request), and then for React to have
  // hydrated the page's controls: on a loaded box that can come well after the last script
  // arrived, and a click before it does nothing (the CSV export and the reset link failed that
  // way; so did channels.spec's 「ID 排序」 switch right after a reload: unchecked by the click,
  // checked again by React).
  page: async ({ page, network }, use) => {
    await use(hydratingNavigation(page, (what) => network.idle(what)));
  },
});

/**
 * How long a page may take to hydrate before the test goes on regardless: long enough for a
 * loaded box. Controls hidden from users are not waited for: Mantine's autosizing textarea adds a
 * hidden measuring copy outside React, which no page ever hydrates (the channel editor waited out
 * the limit on every visit because of it). Nor are those a mock script put there
 * (`data-outside-react`: the Telegram widget's button, which cost 15 s on each sign-in page).
 */
const HYDRATION_TIMEOUT_MS = 15_000;

/**
 * Waits until React has hydrated every control on the page (buttons and fields carry React's
 * props once it has), or HYDRATION_TIMEOUT_MS: this wait makes clicks land, it is not what a test
 * checks.
 */
export async function hydrated(page: Page): Promise<void> {
  const deadline = Date.now() + HYDRATION_TIMEOUT_MS;
  for (;;) {
    const timeout = deadline - Date.now();
    try {
      await page.waitForFunction(`${UNHYDRATED_CONTROLS}.length === 0`, undefined, { timeout: Math.max(timeout, 1), polling: 50 });
      return;
    } catch (error) {
      if (page.isClosed()) return;
      // The page went on to another (a redirect): wait for that one.
      if (!(error instanceof errors.TimeoutError) && Date.now() < deadline) continue;
      // Said in the run's output, so a page that never hydrates (and slows every visit) is found.
      const left = (await page.evaluate(UNHYDRATED_CONTROLS).catch(() => [])) as string[];
      console.warn(
        `[hydrated] ${page.url()}: ${left.length} control(s) not hydrated after ${HYDRATION_TIMEOUT_MS} ms: ${left.join(" | ")}`,
      );
      return;
    }
  }
}

/** In the page: the controls a user can reach that React has not hydrated yet (their markup). */
const UNHYDRATED_CONTROLS = `[...document.querySelectorAll("button, input, textarea, select")]
  .filter((el) => el.getAttribute("aria-hidden") !== "true" && !el.hasAttribute("data-outside-react"))
  .filter((el) => !Object.keys(el).some((k) => k.startsWith("__reactProps$")))
  .map((el) => el.outerHTML.slice(0, 160))`;

export const SCREENSHOT_DIR = "test-results/screenshots";

const FIT_SETTLE_MS = 5_000;

/**
 * The page is no wider than its viewport (nothing scrolls sideways). On failure the message names
 * the elements whose right edge passes the viewport, widest first, so a run's log says what grew.
 * Passes as soon as the page fits; fails only if it still does not after FIT_SETTLE_MS.
 */
export async function expectFits(page: Page, width: number) {
  // A layout change (the side menu leaving at the breakpoint) runs a short transition: wait for it.
  const deadline = Date.now() + FIT_SETTLE_MS;
  while (Date.now() < deadline) {
    if ((await page.evaluate(() => document.documentElement.scrollWidth)) <= width) return;
    await page.waitForTimeout(100);
  }
  const found = await page.evaluate((limit) => {
    const scrollWidth = document.documentElement.scrollWidth;
    if (scrollWidth <= limit) return { scrollWidth, over: [] as string[] };
    const over = [...document.body.querySelectorAll<HTMLElement>("*")]
      .map((el) => ({ el, right: el.getBoundingClientRect().right }))
      .filter(({ right }) => right > limit + 0.5)
      .sort((a, b) => b.right - a.right)
      .slice(0, 8)
      .map(({ el, right }) => {
        const tag = el.tagName.toLowerCase();
        const cls = typeof el.className === "string" ? el.className.split(/\s+/).slice(0, 3).join(".") : "";
        const text = (el.textContent ?? "").trim().slice(0, 40);
        return `${tag}${cls ? `.${cls}` : ""} right=${Math.round(right)} «${text}»`;
      });
    return { scrollWidth, over };
  }, width);
  expect(found.scrollWidth, `page wider than ${width} px:\n${found.over.join("\n")}`).toBeLessThanOrEqual(width);
}

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}.png`, fullPage: true });
}

/** Logs in through the form and waits for the token page. */
export async function loginViaUi(page: Page, username: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("用户名", { exact: true }).fill(username);
  await page.getByLabel("密码", { exact: true }).fill(password);
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByRole("heading", { name: "令牌管理" })).toBeVisible();
}

export const sideMenu = (page: Page) => page.getByRole("navigation", { name: "侧边菜单" });

export const DEFAULT_PASSWORD_NOTICE = "您正在使用默认密码！请立刻修改默认密码！";

/** A correctly signed session cookie for a user that does not exist: pages load, the API says 401. */
export async function forgedSessionCookie(): Promise<string> {
  return new SignJWT({ username: "ghost", role: 1, ver: 0 })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("987654")
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
    .sign(new TextEncoder().encode(E2E_SESSION_SECRET));
}

export const uniqueName = (prefix: string) => `${prefix}${Date.now().toString(36).slice(-6)}${Math.floor(Math.random() * 100)}`;

/** A fresh ordinary user (through the real register call), logged in through the form. */
export async function newUserSession(page: Page, prefix = "u"): Promise<{ username: string; password: string }> {
  const username = uniqueName(prefix);
  const password = "password-123";
  const res = await page.request.post("/api/user/register", { data: { username, password, password2: password } });
  expect((await res.json()).success).toBe(true);
  await loginViaUi(page, username, password);
  return { username, password };
}

/** The text on the clipboard (the context needs clipboard permissions). */
export const clipboardText = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

/** A notification toast with this text. */
export const toast = (page: Page, text: string | RegExp) => page.locator(".mantine-Notification-root").filter({ hasText: text });

/**
 * Closes the open dialog, popover or drawer with Escape and waits until it has left the page. A
 * Mantine dialog stays in the DOM through its closing transition, so a step that opens the next
 * one at once would otherwise see two (stop 41's CI: the usage popover, still closing, lent its
 * "每分钟请求数 0 / 20" bar to the drawer's label lookup).
 */
export async function closeDialog(page: Page) {
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
}

/** PUT /api/option/ through `request` (root's session), failing with the server's message. */
export async function setOption(request: APIRequestContext, key: string, value: string): Promise<void> {
  const body = await (await request.put("/api/option/", { data: { key, value }, headers: { "New-Api-User": "1" } })).json();
  expect(body.success, `${key}=${value}: ${body.message}`).toBe(true);
}

/** Every option's value as GET /api/option/ lists it (secrets are listed without their values). */
export async function optionValues(request: APIRequestContext): Promise<Map<string, string>> {
  const body = await (await request.get("/api/option/", { headers: { "New-Api-User": "1" } })).json();
  expect(body.success, JSON.stringify(body)).toBe(true);
  return new Map((body.data as Array<{ key: string; value: string }>).map((o) => [o.key, o.value]));
}

/**
 * Sets `values`, in their order, and answers a function that puts the old values back, in the
 * reverse order (a secret goes back to "", its default: it is listed without its value). Should
 * one fail, those already set are put back before the error goes on.
 */
export async function setOptions(request: APIRequestContext, values: Record<string, string>): Promise<() => Promise<void>> {
  const before = await optionValues(request);
  const restore: Array<[string, string]> = [];
  const putBack = async () => {
    for (const [key, value] of restore) await setOption(request, key, value);
  };
  try {
    for (const [key, value] of Object.entries(values)) {
      restore.unshift([key, before.get(key) ?? ""]);
      await setOption(request, key, value);
    }
  } catch (error) {
    await putBack();
    throw error;
  }
  return putBack;
}
