// Logs in as root through the UI once; the other specs reuse the stored session.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test as setup, loginViaUi } from "./support";
import { ROOT_STATE } from "./env";

setup("log in as root", async ({ page }) => {
  await loginViaUi(page, "root", "123456");
  mkdirSync(path.dirname(ROOT_STATE), { recursive: true });
  await page.context().storageState({ path: ROOT_STATE });
});
