// Issue 20.17: the channel editor says which of the channel's models have no price (the relay
// refuses them with 倍率或价格未配置), without blocking the save. Light, dark and 390 px.
import { ROOT_STATE } from "./env";
import { expect, expectFits, shot, test, uniqueName } from "./support";

test.use({ storageState: ROOT_STATE });

test("the channel editor warns about models without a price, and only about those", async ({ page }) => {
  const unpriced = uniqueName("e2e-unpriced-");
  await page.goto("/channel/add");
  await expect(page.getByRole("heading", { name: "创建新的渠道" })).toBeVisible();
  const warning = page.getByTestId("unpriced-models");
  await page.getByRole("button", { name: "清除所有模型" }).click();
  await expect(warning).toHaveCount(0);

  // gpt-4o has a ratio by default; the custom model has none.
  await page.getByRole("textbox", { name: "自定义模型名称", exact: true }).fill(`gpt-4o,${unpriced}`);
  await page.getByRole("button", { name: "填入", exact: true }).click();
  await expect(warning).toBeVisible();
  await expect(warning).toContainText("以下模型未设置价格");
  await expect(warning).toContainText(`${unpriced}：未配置模型倍率或模型价格`);
  await expect(warning).not.toContainText("gpt-4o");
  await warning.scrollIntoViewIfNeeded();
  await shot(page, "channel-unpriced-light");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "channel-unpriced-dark");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(warning).toBeVisible();
  await expectFits(page, 390);
  await shot(page, "channel-unpriced-390");

  // Not blocking: the channel saves, and a price set later clears the warning on its editor.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("textbox", { name: "名称", exact: true }).fill(unpriced);
  await page.getByRole("textbox", { name: "密钥", exact: true }).fill("sk-e2e-unpriced");
  await page.getByRole("button", { name: "提交" }).click();
  await expect(page).toHaveURL(/\/channel$/);
  const api = (method: string, url: string, data?: unknown) =>
    page.request.fetch(url, { method, data, headers: { "New-Api-User": "1" } }).then((r) => r.json());
  const found = await api("GET", `/api/channel/search?keyword=${unpriced}`);
  const id: number = (found.data.items ?? found.data)[0].id;
  const options: { key: string; value: string }[] = (await api("GET", "/api/option/")).data;
  const ratios = options.find((o) => o.key === "ModelRatio")!.value;
  try {
    const put = await api("PUT", "/api/option/", { key: "ModelRatio", value: JSON.stringify({ ...JSON.parse(ratios), [unpriced]: 1 }) });
    expect(put.success).toBe(true);
    await page.goto(`/channel/edit/${id}`);
    await expect(page.getByRole("heading", { name: `编辑渠道「${unpriced}」` })).toBeVisible();
    await expect(warning).toHaveCount(0);
  } finally {
    await api("PUT", "/api/option/", { key: "ModelRatio", value: ratios });
    await api("DELETE", `/api/channel/${id}`);
  }
});
