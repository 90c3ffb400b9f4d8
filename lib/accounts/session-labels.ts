// How a session signed in, as personal settings name it (client-safe: no server imports).
import type { SignInMethod } from "@/lib/auth/sessions";

export const SIGN_IN_METHOD_LABEL: Record<SignInMethod, string> = {
  password: "密码",
  passkey: "通行密钥",
  github: "GitHub",
  linuxdo: "LinuxDO",
  oidc: "OIDC",
  wechat: "微信",
  telegram: "Telegram",
};

/** The label of a stored method; a value this build does not know is shown as stored. */
export const signInMethodLabel = (method: string): string => SIGN_IN_METHOD_LABEL[method as SignInMethod] ?? method;
