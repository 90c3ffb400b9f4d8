// The channel editor for the vendors whose key is more than one API key (issue 14): the key hint
// per type from the catalogue's keyFormat, the refusals of a key of the wrong shape, and Vertex
// AI's service-account JSON key (a monospace textarea, checked before saving, no batch mode).
// Driven as root through the real console; screenshots in light, dark and at 390 px.
import { ROOT_STATE } from "./env";
import { expect, expectFits, type Page, shot as fullPageShot, test, toast } from "./support";

test.use({ storageState: ROOT_STATE });
test.describe.configure({ mode: "serial" });

const uid = Date.now().toString(36);
const VERTEX = `vertex${uid}`;

const SERVICE_ACCOUNT = JSON.stringify(
  {
    type: "service_account",
    project_id: "qiao-e2e",
    private_key_id: "0123456789abcdef",
    private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
    client_email: "relay@qiao-e2e.iam.gserviceaccount.com",
    token_uri: "https://oauth2.googleapis.com/token",
  },
  null,
  2,
);

const REGION_ERROR = "部署地区「attacker.example/x?」不合法：只能是 global，或由小写字母、数字和连字符组成（例如 us-central1）";

const keyField = (page: Page) => page.getByRole("textbox", { name: "密钥", exact: true });
const batchSwitch = (page: Page) => page.getByRole("switch", { name: "批量创建（一行一个密钥）" });

/** A full-page screenshot from the top (a scrolled page draws its sticky header mid-page). */
async function shot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullPageShot(page, name);
}

async function pickType(page: Page, label: string) {
  await page.getByRole("combobox", { name: "类型" }).click();
  await page.getByRole("option", { name: label, exact: true }).click();
  await expect(page.getByRole("combobox", { name: "类型" })).toHaveValue(label);
}

const ROOT = { "New-Api-User": "1" };

/** The channels whose name, id or key matches, through the console's own search. */
async function findChannels(page: Page, keyword: string): Promise<Array<{ id: number; name: string; other: string }>> {
  const res = await page.request.get(`/api/channel/search?keyword=${encodeURIComponent(keyword)}`, { headers: ROOT });
  const body = await res.json();
  expect(body.success).toBe(true);
  return body.data.items;
}

async function openEditor(page: Page) {
  await page.goto("/channel/add");
  await expect(page.getByRole("heading", { name: "创建新的渠道" })).toBeVisible();
}

test("Bedrock and Spark keys: the format is shown, and a key of the wrong shape is refused", async ({ page }) => {
  await openEditor(page);
  await pickType(page, "AWS Claude");
  await expect(keyField(page)).toHaveAttribute("placeholder", "按照如下格式输入：AccessKey|SecretAccessKey|Region");
  await expect(page.getByText("AWS 的 Access Key ID、Secret Access Key 和 Bedrock 所在地区")).toBeVisible();
  // The address comes from the key's region: the base URL may stay empty.
  await expect(page.getByRole("textbox", { name: "Base URL" })).toHaveAttribute(
    "placeholder",
    /bedrock-runtime\.\{Region\}\.amazonaws\.com/,
  );
  await page.getByRole("textbox", { name: "名称", exact: true }).fill(`bedrock${uid}`);
  await keyField(page).fill("AKIAEXAMPLE|secret");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "密钥格式应为 AccessKey|SecretAccessKey|Region（AWS Claude）")).toBeVisible();
  await shot(page, "channel-editor-bedrock");

  await pickType(page, "讯飞星火认知");
  await expect(keyField(page)).toHaveAttribute("placeholder", "按照如下格式输入：APPID|APISecret|APIKey");
  await expect(page.getByText("讯飞开放平台应用的 APPID、APISecret、APIKey")).toBeVisible();
  await expect(page.getByRole("textbox", { name: "星火大模型版本", exact: true })).toHaveValue("v1.1");
  // Bedrock's untouched default models became Spark's.
  const models = page.locator(".mantine-MultiSelect-root").first();
  await expect(models.getByText("SparkDesk-v3.5", { exact: true })).toBeVisible();
  await expect(models.getByText("claude-3-haiku-20240307", { exact: true })).toHaveCount(0);
  await keyField(page).fill("appid|apisecret");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "密钥格式应为 APPID|APISecret|APIKey（讯飞星火认知）")).toBeVisible();
  await shot(page, "channel-editor-spark");
  // Nothing was saved.
  expect(await findChannels(page, `bedrock${uid}`)).toHaveLength(0);
});

test("a Vertex AI channel from its service-account JSON key; batch mode is off for it", async ({ page }) => {
  await openEditor(page);
  // Batch mode on for OpenAI is turned off by the change to Vertex, which cannot use it.
  await batchSwitch(page).check({ force: true });
  await expect(batchSwitch(page)).toBeChecked();
  await pickType(page, "Vertex AI");
  await expect(batchSwitch(page)).not.toBeChecked();
  await expect(batchSwitch(page)).toBeDisabled();
  await expect(page.getByText("Vertex AI 的密钥是多行的 JSON 凭证，不能批量创建")).toBeVisible();
  await expect(keyField(page)).toHaveAttribute("placeholder", /"client_email"/);
  await expect(page.getByRole("textbox", { name: "部署地区（Region）", exact: true })).toHaveValue("us-central1");
  await expect(page.locator(".mantine-MultiSelect-root").first().getByText("gemini-1.5-pro-001", { exact: true })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Base URL" })).toHaveAttribute("placeholder", /aiplatform\.googleapis\.com/);
  await shot(page, "channel-editor-vertex-empty");

  await page.getByRole("textbox", { name: "名称", exact: true }).fill(VERTEX);
  await keyField(page).fill("sk-this-is-not-json");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "Vertex AI 的密钥应为服务账号的 JSON 凭证")).toBeVisible();
  const noEmail = JSON.parse(SERVICE_ACCOUNT);
  delete noEmail.client_email;
  await keyField(page).fill(JSON.stringify(noEmail, null, 2));
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "Vertex AI 的服务账号 JSON 凭证缺少 client_email 字段")).toBeVisible();
  await shot(page, "channel-editor-vertex-refused");

  await keyField(page).fill(SERVICE_ACCOUNT);
  // The region is part of the host: anything but a region is refused before it is sent.
  const region = page.getByRole("textbox", { name: "部署地区（Region）", exact: true });
  await region.fill("attacker.example/x?");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, REGION_ERROR)).toBeVisible();
  await shot(page, "channel-editor-vertex-region-refused");
  expect(await findChannels(page, VERTEX)).toHaveLength(0);
  await region.fill("us-central1");
  await shot(page, "channel-editor-vertex");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "渠道创建成功！")).toBeVisible();
  await expect(page).toHaveURL(/\/channel$/);
  const row = page.locator("tbody tr").filter({ has: page.getByRole("cell", { name: VERTEX, exact: true }) });
  await expect(row).toContainText("Vertex AI");
  // The key is stored whole, as pasted (root's explicit reveal).
  const [saved] = await findChannels(page, VERTEX);
  expect(saved?.other).toBe("us-central1");
  const id = saved?.id;
  // A reveal needs a sign-in within the last five minutes (step-up): the run may be past that since
  // the setup's sign-in, so root proves it again with the password first.
  const verified = await page.request.post("/api/verify", { headers: ROOT, data: { method: "password", password: "123456" } });
  expect((await verified.json()).success).toBe(true);
  const revealed = await page.request.post(`/api/channel/${id}/key`, { headers: ROOT });
  expect((await revealed.json()).data.key).toBe(SERVICE_ACCOUNT);

  // Changing the region moves the channel: the key must be typed again, even by root.
  await page.goto(`/channel/edit/${id}`);
  await expect(page.getByRole("heading", { name: `编辑渠道「${VERTEX}」` })).toBeVisible();
  await region.fill("europe-west4");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "修改部署地区（Region）时请重新填写渠道密钥！")).toBeVisible();
  await shot(page, "channel-editor-vertex-region-needs-key");
  await region.fill('{"default": "europe-west4", "gemini-1.5-pro-001": "evil.example#"}');
  await keyField(page).fill(SERVICE_ACCOUNT);
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "部署地区「evil.example#」不合法")).toBeVisible();
  expect((await findChannels(page, VERTEX))[0]?.other).toBe("us-central1");
  await region.fill('{"default": "europe-west4", "gemini-1.5-pro-001": "global"}');
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "渠道更新成功！")).toBeVisible();
  expect((await findChannels(page, VERTEX))[0]?.other).toBe('{"default": "europe-west4", "gemini-1.5-pro-001": "global"}');
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await openEditor(page);
    await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await pickType(page, "Vertex AI");
    await keyField(page).fill(SERVICE_ACCOUNT);
    await shot(page, "channel-editor-vertex-dark");
    await pickType(page, "AWS Claude");
    await keyField(page).fill("AKIAEXAMPLE|secret|us-east-1");
    await shot(page, "channel-editor-bedrock-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await openEditor(page);
    await pickType(page, "Vertex AI");
    await keyField(page).fill(SERVICE_ACCOUNT);
    await expectFits(page, 390);
    await shot(page, "channel-editor-vertex-narrow");
    await page.getByRole("textbox", { name: "名称", exact: true }).fill(`narrow${uid}`);
    await page.getByRole("textbox", { name: "部署地区（Region）", exact: true }).fill("attacker.example/x?");
    await page.getByRole("button", { name: "提交", exact: true }).click();
    await expect(toast(page, REGION_ERROR)).toBeVisible();
    await shot(page, "channel-editor-vertex-region-refused-narrow");
  });
});
