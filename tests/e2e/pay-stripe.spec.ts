// Stripe Checkout through the real console against the mock Stripe API (tests/mocks/stripe.ts),
// which the e2e server reaches through STRIPE_API_BASE_URL (playwright.config.ts): root configures
// Stripe through the API; a user enters an amount, picks Stripe, sees the price in the Price's
// currency, pays on the (mock) checkout page, whose Pay button sends the signed webhook, and is
// back on /topup with the balance raised. Screenshots of the dialog and the result, light, dark
// and at 390 px.
import type { APIRequestContext } from "@playwright/test";
import { type MockStripe, startMockStripe } from "../mocks/stripe";
import { E2E_BASE_URL, E2E_STRIPE_PORT, ROOT_STATE } from "./env";
import { expect, expectFits, newUserSession, setOptions, shot, sideMenu, test } from "./support";

test.describe.configure({ mode: "serial" });

let root: APIRequestContext;
let stripe: MockStripe;
let restoreOptions: (() => Promise<void>) | undefined;

test.beforeAll(async ({ playwright }) => {
  stripe = await startMockStripe({ port: E2E_STRIPE_PORT, webhookUrl: `${E2E_BASE_URL}/api/stripe/webhook` });
  stripe.addPrice("price_e2e_usd", "usd");
  root = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  restoreOptions = await setOptions(root, {
    // Stripe sends the browser back to the address it was opened from (its session cookie).
    ServerAddress: E2E_BASE_URL,
    StripeApiSecret: stripe.secretKey,
    StripeWebhookSecret: stripe.webhookSecret,
    StripePriceId: "price_e2e_usd",
    StripeUnitPrice: "8",
  });
});

test.afterAll(async () => {
  await restoreOptions?.();
  await root?.dispose();
  await stripe?.close();
});

test("a user pays through Stripe Checkout and comes back credited", async ({ page }) => {
  await newUserSession(page, "stp");
  await page.goto("/topup");
  await expect(page.getByTestId("wallet-balance")).toHaveText("$0.00");
  await page.getByLabel(/充值数量/).fill("2");
  await page.getByRole("button", { name: "Stripe", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "确定要充值吗？" });
  await expect(dialog.getByTestId("topup-pay")).toHaveText("16.00 USD");
  await expect(page.locator(".mantine-Modal-content")).toHaveCSS("opacity", "1");
  await shot(page, "pay-stripe-dialog");

  await dialog.getByRole("button", { name: "确定支付" }).click();
  await expect(page).toHaveURL(new RegExp(`^${stripe.url}/pay/cs_test_`));
  await expect(page.getByTestId("amount")).toHaveText("16.00 USD");
  const session = [...stripe.sessions.values()].at(-1)!;
  expect(session).toMatchObject({ amount_total: 1600, currency: "usd" });

  await page.getByRole("button", { name: "Pay" }).click();
  await expect(page).toHaveURL(`${E2E_BASE_URL}/topup?trade_no=${session.client_reference_id}`);
  expect(stripe.deliveries.at(-1)).toMatchObject({ type: "checkout.session.completed", status: 200 });
  await expect(page.getByTestId("payment-result")).toContainText("充值成功");
  await expect(page.getByTestId("payment-result")).toContainText(String(session.client_reference_id));
  await expect(page.getByTestId("wallet-balance")).toHaveText("$2.00");
  await shot(page, "pay-stripe-paid");

  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "pay-stripe-paid-dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await expectFits(page, 390);
  // The side menu slides away as the layout turns narrow: shoot once it is off the screen.
  await expect
    .poll(async () => {
      const box = await sideMenu(page).boundingBox();
      return box ? box.x + box.width : 0;
    })
    .toBeLessThanOrEqual(0);
  await shot(page, "pay-stripe-paid-narrow");
});
