// The shared form behaviour of the console (issue 20.18, 20.20, 20.22): a failed submit brings the
// first invalid field into view, focuses it and says what is wrong in a toast, in every drawer and
// the channel editor; toasts never cover a drawer's title or buttons; on a phone the drawer's
// buttons stay on screen. Screenshots of a drawer with an error in light, dark and at 390 px.
import type { Locator } from "@playwright/test";
import { ROOT_STATE } from "./env";
import { expect, type Page, shot, test, toast, uniqueName } from "./support";

test.use({ storageState: ROOT_STATE });

const AS_ROOT = { "New-Api-User": "1" };
const PHONE = { width: 390, height: 844 };

type Box = { x: number; y: number; width: number; height: number };

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(locator: Locator): Promise<Box> {
  const b = await locator.boundingBox();
  if (!b) throw new Error(`no box for ${locator}`);
  return b;
}

const drawer = (page: Page) => page.getByRole("dialog");
const submitButton = (page: Page) => drawer(page).getByRole("button", { name: "提交", exact: true });

/** Scrolls the drawer's body to its end, so the fields at its top are out of view. */
async function scrollDrawerToEnd(page: Page) {
  await drawer(page).evaluate((el) => {
    const scroller = el.closest(".mantine-Drawer-content") ?? el;
    scroller.scrollTop = scroller.scrollHeight;
  });
}

/** The boxes of the toasts on screen, once they rest (the enter transition slides them in). */
async function restingToasts(page: Page): Promise<Box[]> {
  const toasts = page.locator(".mantine-Notification-root");
  await expect(toasts.first()).toBeVisible();
  let last = "";
  await expect
    .poll(async () => {
      const now = JSON.stringify(await box(toasts.first()));
      const still = now === last;
      last = now;
      return still;
    })
    .toBe(true);
  return Promise.all((await toasts.all()).map(box));
}

/** The field is on screen (not under the drawer's sticky header nor under a toast) and has the focus. */
async function expectRevealed(page: Page, field: Locator) {
  await expect(field).toBeFocused();
  await expect(field).toBeInViewport({ ratio: 1 });
  const header = drawer(page).locator(".mantine-Drawer-header");
  if (await header.count()) expect(overlaps(await box(field), await box(header))).toBe(false);
  const wrapper = field.locator("xpath=ancestor::*[contains(@class, 'mantine-InputWrapper-root')][1]");
  const whole = await box(wrapper);
  for (const t of await restingToasts(page)) {
    expect(overlaps(t, whole), `toast ${JSON.stringify(t)} over the field ${JSON.stringify(whole)}`).toBe(false);
  }
}

/** No toast on screen touches the drawer's header (title, close) or its buttons. */
async function expectToastsClearOfDrawer(page: Page) {
  const header = await box(drawer(page).locator(".mantine-Drawer-header"));
  const footer = await box(submitButton(page).locator("xpath=.."));
  for (const b of await restingToasts(page)) {
    expect(overlaps(b, header), `toast ${JSON.stringify(b)} over the drawer header ${JSON.stringify(header)}`).toBe(false);
    expect(overlaps(b, footer), `toast ${JSON.stringify(b)} over the drawer buttons ${JSON.stringify(footer)}`).toBe(false);
  }
}

async function makeUser(page: Page): Promise<string> {
  const username = uniqueName("f");
  const res = await page.request.post("/api/user/", { data: { username, password: "password-123" }, headers: AS_ROOT });
  expect((await res.json()).success).toBe(true);
  return username;
}

async function openUserEditor(page: Page, username: string) {
  await page.goto(`/user?keyword=${username}`);
  await page.locator("main [data-row-id]").filter({ hasText: username }).getByRole("button", { name: "编辑" }).click();
  await expect(drawer(page).getByRole("textbox", { name: "用户名", exact: true })).toHaveValue(username);
}

for (const [size, viewport] of [
  ["desktop", { width: 1280, height: 800 }],
  ["phone", PHONE],
] as const) {
  test.describe(`on a ${size}`, () => {
    test.use({ viewport });

    test("the edit-user drawer shows its first error: in view, focused, toasted, clear of toasts", async ({ page }) => {
      const username = await makeUser(page);
      await openUserEditor(page, username);
      const name = drawer(page).getByRole("textbox", { name: "用户名", exact: true });
      await name.fill("");
      // Beyond a safe integer: not a whole number the server could take.
      await drawer(page).getByRole("textbox", { name: "添加额度", exact: true }).fill("99999999999999999999");
      await scrollDrawerToEnd(page);
      await expect(name).not.toBeInViewport();
      // The buttons stay on screen however far the form scrolls.
      await expect(submitButton(page)).toBeInViewport({ ratio: 1 });
      await submitButton(page).click();
      await expectRevealed(page, name);
      await expect(toast(page, "请输入用户名")).toBeVisible();
      await expectToastsClearOfDrawer(page);
      await shot(page, `drawer-error-user-${size}`);
      // Fixing the first error moves to the next one.
      await name.fill(username);
      await submitButton(page).click();
      await expectRevealed(page, drawer(page).getByRole("textbox", { name: "添加额度", exact: true }));
      await expect(toast(page, "添加额度：额度必须是整数")).toBeVisible();
    });

    test("the token drawer reveals a bad expiry found on submit, and its buttons stay on screen", async ({ page }) => {
      await page.goto("/token");
      await page.getByRole("button", { name: "添加令牌" }).click();
      await expect(drawer(page).getByRole("heading", { name: "创建新的令牌" })).toBeVisible();
      const name = drawer(page).getByRole("textbox", { name: "名称", exact: true });
      await submitButton(page).click();
      await expectRevealed(page, name);
      await expect(toast(page, "请输入名称")).toBeVisible();

      await name.fill(uniqueName("t"));
      const expiry = drawer(page).getByRole("textbox", { name: "过期时间", exact: true });
      await expiry.fill("明天下午");
      await scrollDrawerToEnd(page);
      await expect(submitButton(page)).toBeInViewport({ ratio: 1 });
      await submitButton(page).click();
      await expectRevealed(page, expiry);
      await expect(toast(page, "过期时间格式错误！")).toBeVisible();
      await expectToastsClearOfDrawer(page);
      await shot(page, `drawer-error-token-${size}`);
      // Nothing was created.
      await drawer(page).getByRole("button", { name: "取消" }).click();
    });

    test("the redemption drawer reveals its bad quota", async ({ page }) => {
      await page.goto("/redemption");
      await page.getByRole("button", { name: "添加兑换码" }).click();
      await drawer(page).getByRole("textbox", { name: "名称", exact: true }).fill(uniqueName("r"));
      const quota = drawer(page).getByRole("textbox", { name: /^额度/ });
      await quota.fill("");
      await submitButton(page).click();
      await expectRevealed(page, quota);
      await expect(page.locator(".mantine-Notification-root")).toHaveCount(1);
      await expectToastsClearOfDrawer(page);
    });

    test("the channel editor brings its first error into view, focused, with a toast", async ({ page }) => {
      await page.goto("/channel/add");
      await expect(page.getByRole("heading", { name: "创建新的渠道" })).toBeVisible();
      const name = page.getByRole("textbox", { name: "名称", exact: true });
      await page.getByRole("textbox", { name: "密钥", exact: true }).fill("sk-test");
      await page.getByRole("button", { name: "提交", exact: true }).click();
      await expectRevealed(page, name);
      await expect(toast(page, "请填写渠道名称和渠道密钥！")).toBeVisible();

      await name.fill(uniqueName("c"));
      const mapping = page.getByRole("textbox", { name: "模型重定向", exact: true });
      await mapping.fill("{bad");
      await page.getByRole("button", { name: "提交", exact: true }).click();
      await expectRevealed(page, mapping);
      await expect(toast(page, "模型映射必须是合法的 JSON 格式！")).toBeVisible();
      await shot(page, `channel-editor-error-${size}`);
    });
  });
}

test("a drawer with an error in dark mode", async ({ page }) => {
  const username = await makeUser(page);
  await page.goto("/user");
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await openUserEditor(page, username);
  await drawer(page).getByRole("textbox", { name: "用户名", exact: true }).fill("");
  await submitButton(page).click();
  await expect(toast(page, "请输入用户名")).toBeVisible();
  await expectToastsClearOfDrawer(page);
  await shot(page, "drawer-error-user-dark");
  await page.setViewportSize(PHONE);
  await shot(page, "drawer-error-user-dark-phone");
});
