// The console's HTTP surface on the real `npm start` server: every /api route and page answers
// with and without a trailing slash (the spec writes `GET /api/user/`), pages carry their
// Content-Security-Policy and work under it, and /api reads only JSON bodies, and only up to
// API_MAX_BODY_BYTES.
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { E2E_BASE_URL, E2E_PORT, ROOT_STATE } from "./env";

const APP = path.resolve("app");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
/** The default cap (README: API_MAX_BODY_BYTES). */
const API_CAP = 1024 * 1024;

function filesNamed(dir: string, name: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesNamed(full, name));
    else if (e.name === name) out.push(full);
  }
  return out;
}

/** A URL path for the folder of a route or page: [id] → 1, a catch-all → a path next-auth serves. */
function urlPath(file: string): string {
  const segments = path
    .relative(APP, path.dirname(file))
    .split(path.sep)
    .filter((s) => s && !/^\(.*\)$/.test(s))
    .map((s) => (s.startsWith("[...") ? "providers" : s.startsWith("[") ? "1" : s));
  return `/${segments.join("/")}`;
}

/** Every route handler under app/api with the methods its file exports. */
const API_ROUTES = filesNamed(path.join(APP, "api"), "route.ts").map((file) => {
  const source = readFileSync(file, "utf8");
  const exported = new Set<string>();
  for (const m of source.matchAll(/export\s+(?:const|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g)) exported.add(m[1]!);
  for (const m of source.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const name of m[1]!.split(",")) {
      const alias = name
        .trim()
        .split(/\s+as\s+/)
        .pop()!;
      if ((METHODS as readonly string[]).includes(alias)) exported.add(alias);
    }
  }
  return { file: path.relative(process.cwd(), file), path: urlPath(file), methods: [...exported] };
});

const PAGES = filesNamed(APP, "page.tsx").map(urlPath);

async function rootApi(playwright: { request: { newContext(o: { baseURL: string }): Promise<APIRequestContext> } }) {
  const api = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  const login = await api.post("/api/user/login", { data: { username: "root", password: "123456" } });
  expect(login.status()).toBe(200);
  return api;
}

const AS_ROOT = { "New-Api-User": "1" };

/** Routes whose answer is a redirect by design: the OAuth authorize steps send the browser to the provider (or back to the callback page). */
const REDIRECTING = /^\/api\/oauth\/[a-z]+\/authorize$/;

test.describe("trailing slash", () => {
  test("the test sees every route file", () => {
    expect(API_ROUTES.length).toBeGreaterThan(30);
    for (const r of API_ROUTES) expect(r.methods.length, r.file).toBeGreaterThan(0);
    expect(PAGES).toContain("/token");
  });

  test("every /api route answers each of its methods with and without a trailing slash, never with a redirect", async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
    try {
      for (const route of API_ROUTES) {
        for (const method of route.methods) {
          const answers = [];
          for (const url of [route.path, `${route.path}/`]) {
            const res = await api.fetch(url, { method, maxRedirects: 0 });
            const what = `${method} ${url} (${route.file})`;
            expect(res.status(), what).not.toBe(308);
            if (REDIRECTING.test(route.path)) {
              // Its own redirect, never one to the other slash form.
              expect(res.status(), what).toBe(302);
              const to = new URL(res.headers().location ?? "", E2E_BASE_URL).pathname;
              expect(to, what).not.toMatch(/^\/api\/oauth\/[a-z]+\/authorize\/?$/);
              answers.push({ status: res.status(), type: "redirect", success: to });
              continue;
            }
            expect(res.status() < 300 || res.status() >= 400, `${what}: ${res.status()} ${res.headers().location ?? ""}`).toBe(true);
            // The route handler answered, not Next's not-found page.
            const type = res.headers()["content-type"] ?? "";
            expect(type, what).not.toContain("text/html");
            const text = await res.text();
            answers.push({ status: res.status(), type, success: type.includes("json") ? JSON.parse(text).success : text });
          }
          expect(answers[1], `${method} ${route.path} vs its slash form`).toEqual(answers[0]);
        }
      }
    } finally {
      await api.dispose();
    }
  });

  test("the spec's slash paths work for a signed-in root, reads and writes alike", async ({ playwright }) => {
    const api = await rootApi(playwright);
    try {
      const call = async (method: string, url: string, data?: unknown) => {
        const res = await api.fetch(url, { method, headers: AS_ROOT, data, maxRedirects: 0 });
        expect(res.status(), `${method} ${url}`).toBe(200);
        const body = await res.json();
        expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
        return body.data;
      };
      for (const url of [
        "/api/user/",
        "/api/token/",
        "/api/channel/",
        "/api/log/",
        "/api/log/self/",
        "/api/option/",
        "/api/group/",
        "/api/user/self/",
        "/api/redemption/",
        "/api/redemption/search/?keyword=x",
      ]) {
        await call("GET", url);
      }
      const name = `slash${Date.now().toString(36).slice(-6)}`;
      const created = await call("POST", "/api/token/", { name, remain_quota: 1000, expired_time: -1 });
      await call("PUT", "/api/token/", { id: created.id, name: `${name}b` });
      await call("PUT", "/api/token/?status_only=true", { id: created.id, status: 2 });
      expect(await call("GET", `/api/token/${created.id}/`)).toMatchObject({ name: `${name}b`, status: 2 });
      await call("DELETE", `/api/token/${created.id}/`);
      const gone = await api.get(`/api/token/${created.id}`, { headers: AS_ROOT });
      expect((await gone.json()).success).toBe(false);

      const [code] = await call("POST", "/api/redemption/", { name, quota: 1000 });
      const [row] = (await call("GET", `/api/redemption/search/?keyword=${code}`)).items;
      await call("PUT", "/api/redemption/", { id: row.id, quota: 2000 });
      await call("PUT", "/api/redemption/?status_only=true", { id: row.id, status: 2 });
      await call("PUT", "/api/redemption/?status_only=true", { id: row.id, status: 1 });
      expect(await call("GET", `/api/redemption/${row.id}/`)).toMatchObject({ key: code, quota: 2000, status: 1 });
      expect(await call("POST", "/api/user/topup/", { key: code })).toBe(2000);
      await call("DELETE", `/api/redemption/${row.id}/`);
      const deleted = await api.get(`/api/redemption/${row.id}`, { headers: AS_ROOT });
      expect((await deleted.json()).success).toBe(false);
    } finally {
      await api.dispose();
    }
  });

  test("console pages answer with and without a trailing slash", async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: E2E_BASE_URL, storageState: ROOT_STATE });
    // The channel editor's page needs a channel that exists (this spec may run before any other made one).
    const made = await (
      await api.post("/api/channel/", {
        headers: AS_ROOT,
        data: {
          name: `slash-${Date.now()}`,
          type: 1,
          key: "e2e-unused",
          base_url: "http://127.0.0.1:9",
          models: "e2e-seed-only",
          group: "default",
        },
      })
    ).json();
    expect(made.success, made.message).toBe(true);
    const channelId = made.data[0].id as number;
    try {
      for (const listed of PAGES) {
        const page = listed === "/channel/edit/1" ? `/channel/edit/${channelId}` : listed;
        for (const url of page === "/" ? ["/"] : [page, `${page}/`]) {
          const res = await api.get(url, { maxRedirects: 0 });
          expect(res.status(), url).toBe(200);
          expect(res.headers()["content-type"], url).toContain("text/html");
        }
      }
    } finally {
      await api.delete(`/api/channel/${channelId}`, { headers: AS_ROOT });
      await api.dispose();
    }
  });
});

/** Records the page's CSP violations (from its first script on) in window.__cspViolations. */
async function watchViolations(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const consoleErrors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  return {
    violations: () => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
    consoleErrors,
  };
}

async function browse(browser: Browser, storageState: string | undefined, pages: string[]) {
  const context = await browser.newContext({ storageState });
  const page = await context.newPage();
  const watch = await watchViolations(page);
  try {
    for (const url of pages) {
      const res = await page.goto(url);
      const policy = res!.headers()["content-security-policy"] ?? "";
      expect(policy, url).toContain("frame-ancestors 'self'");
      expect(policy, url).toMatch(/script-src [^;]*'nonce-[A-Za-z0-9+/=]+'/);
      expect(res!.headers()["x-content-type-options"], url).toBe("nosniff");
      // Hydrated: the theme switch is a React handler.
      const html = page.locator("html");
      const before = await html.getAttribute("data-mantine-color-scheme");
      await page.getByRole("button", { name: "切换明暗主题" }).click();
      await expect(html).not.toHaveAttribute("data-mantine-color-scheme", before ?? "");
      await page.getByRole("button", { name: "切换明暗主题" }).click();
      await expect(html).toHaveAttribute("data-mantine-color-scheme", before ?? "light");
      expect(await watch.violations(), url).toEqual([]);
    }
    expect(watch.consoleErrors.filter((e) => /Content.Security.Policy/i.test(e))).toEqual([]);
  } finally {
    await context.close();
  }
}

test.describe("Content-Security-Policy", () => {
  test("public pages render and hydrate under it, with no violation", async ({ browser }) => {
    await browse(browser, undefined, ["/", "/login", "/register", "/about", "/no/such/page"]);
  });

  test("console pages render and hydrate under it, with no violation", async ({ browser }) => {
    await browse(browser, ROOT_STATE, ["/token", "/", "/about"]);
  });

  test("each page load gets its own nonce, and injected markup cannot run script", async ({ page }) => {
    const watch = await watchViolations(page);
    const first = (await page.goto("/login"))!.headers()["content-security-policy"];
    const second = (await page.goto("/login"))!.headers()["content-security-policy"];
    const nonce = (p: string | undefined) => /'nonce-([^']+)'/.exec(p ?? "")?.[1];
    expect(nonce(first)).toBeTruthy();
    expect(nonce(second)).not.toBe(nonce(first));
    // What an XSS in rendered content would look like: an inline handler in injected HTML.
    await page.evaluate(() => {
      const box = document.createElement("div");
      box.innerHTML = '<img src="/no-such-image.png" onerror="window.__injected = true">';
      document.body.appendChild(box);
    });
    await expect.poll(() => watch.violations()).toContainEqual(expect.stringMatching(/^script-src-attr inline/));
    expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
  });

  test("another site cannot frame the console", async ({ page }) => {
    const refused: string[] = [];
    page.on("console", (m) => {
      if (/frame-ancestors/.test(m.text())) refused.push(m.text());
    });
    await page.setContent(`<iframe id="f" src="${E2E_BASE_URL}/login" style="width:800px;height:600px"></iframe>`);
    await expect.poll(() => refused.length).toBeGreaterThan(0);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame?.locator("text=用户登录").count()).toBe(0);
  });
});

test.describe("/api reads JSON only", () => {
  const credentials = JSON.stringify({ username: "root", password: "123456" });

  test("a login posted as a form, multipart or text/plain is refused and signs nobody in", async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
    try {
      const attempts = [
        { headers: { "content-type": "text/plain" }, data: credentials },
        { headers: { "content-type": "text/plain;charset=UTF-8" }, data: credentials },
        { form: { username: "root", password: "123456" } },
        { multipart: { username: "root", password: "123456" } },
        { headers: { "content-type": "application/x-www-form-urlencoded" }, data: credentials },
      ];
      for (const attempt of attempts) {
        const res = await api.post("/api/user/login", attempt);
        expect(res.status(), JSON.stringify(attempt)).toBe(415);
        expect(await res.json()).toEqual({ success: false, message: "请求体必须是 JSON（Content-Type: application/json）" });
        expect(res.headers()["set-cookie"]).toBeUndefined();
      }
      expect((await api.storageState()).cookies).toEqual([]);
      // The console's own JSON call still works.
      expect((await api.post("/api/user/login", { data: JSON.parse(credentials) })).status()).toBe(200);
    } finally {
      await api.dispose();
    }
  });

  test("a cross-site HTML form cannot sign the browser in (login CSRF)", async ({ page, context }) => {
    // A text/plain form whose one field makes the body valid JSON: the classic way around a JSON API.
    await page.setContent(
      `<form method="post" action="${E2E_BASE_URL}/api/user/login" enctype="text/plain">
         <input type="hidden" name='{"username":"root","password":"123456","x":"' value='"}'>
       </form>`,
    );
    const [answer] = await Promise.all([
      page.waitForResponse(`${E2E_BASE_URL}/api/user/login`),
      page.locator("form").evaluate((f: HTMLFormElement) => f.submit()),
    ]);
    expect(answer.status()).toBe(415);
    expect((await context.cookies(E2E_BASE_URL)).find((c) => c.name === "qiao_session")).toBeUndefined();
  });
});

/** Sends `total` bytes to `path` with chunked encoding (no Content-Length) on `agent`. */
function postChunked(agent: http.Agent, urlPath: string, total: number, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: E2E_PORT,
        path: urlPath,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on("error", reject);
    const chunk = Buffer.alloc(64 * 1024, 0x20); // spaces: valid JSON padding
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    req.write('{"username":"root","password":"123456"}');
    pump();
  });
}

test.describe("/api body cap", () => {
  const tooLarge = { success: false, message: "请求体过大（不能超过 1 MB）" };

  test("a body over the cap gets 413 whether or not it declares its length, and signs nobody in", async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
    try {
      const padded = JSON.stringify({ username: "root", password: "123456", pad: "x".repeat(API_CAP) });
      const declared = await api.post("/api/user/login", { headers: { "content-type": "application/json" }, data: padded });
      expect(declared.status()).toBe(413);
      expect(await declared.json()).toEqual(tooLarge);
      expect(declared.headers()["set-cookie"]).toBeUndefined();
    } finally {
      await api.dispose();
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const chunked = await postChunked(agent, "/api/user/login", 2 * API_CAP);
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body)).toEqual(tooLarge);
      // The connection was not cut: the next request on it is answered.
      const small = await postChunked(agent, "/api/user/login", 0);
      expect(small.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  test("an oversized write changes nothing", async ({ playwright }) => {
    const api = await rootApi(playwright);
    try {
      const notice = async () => (await (await api.get("/api/notice")).json()).data;
      const before = await notice();
      const put = await api.put("/api/option/", { headers: AS_ROOT, data: { key: "Notice", value: "x".repeat(API_CAP + 1) } });
      expect(put.status()).toBe(413);
      expect(await put.json()).toEqual(tooLarge);
      expect(await notice()).toBe(before);

      const total = async () => (await (await api.get("/api/token/", { headers: AS_ROOT })).json()).data.total;
      const tokens = await total();
      const post = await api.post("/api/token/", { headers: AS_ROOT, data: { name: "big", model_limits: "m,".repeat(API_CAP / 2) } });
      expect(post.status()).toBe(413);
      expect(await total()).toBe(tokens);
      // An ordinary write still goes through.
      const under = await api.put("/api/option/", { headers: AS_ROOT, data: { key: "Notice", value: before ?? "" } });
      expect(under.status()).toBe(200);
    } finally {
      await api.dispose();
    }
  });
});
