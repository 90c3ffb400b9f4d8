// What the console does with a third-party sign-in's answer (WeChat, Telegram), which is
// POST /api/user/login's: the user, or `require_2fa` when the account has two-factor on and the
// login page's code step must follow. Browser-only.
import { showSuccess } from "@/lib/client/notify";
import { writeUser } from "@/lib/client/storage";
import type { StoredUser } from "@/lib/client/types";

/** The login page's code step (the second factor after a first one elsewhere). */
export const SECOND_FACTOR_PATH = "/login?step=2fa";

export type SignInAnswer = StoredUser | { require_2fa: true };

/** Stores the signed-in user (and says so) and returns where to go: /token, or the code step. */
export function finishSignIn(answer: SignInAnswer): string {
  if ("require_2fa" in answer && answer.require_2fa === true) return SECOND_FACTOR_PATH;
  writeUser(answer as StoredUser);
  showSuccess("登录成功！");
  return "/token";
}
