// The OAuth sign-in providers (GitHub, LinuxDO, OpenID Connect): their switch, the users column
// their account id is bound in, the prefix of the accounts they sign up, and the messages every
// step of their flow answers with. The flow itself is lib/accounts/oauth/flow.ts.
import { ApiError, forbidden } from "@/lib/errors";
import type { OptionValues } from "@/lib/options";
import type { BindingColumn } from "@/lib/users/create";

export const OAUTH_PROVIDERS = ["github", "linuxdo", "oidc"] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

/** What a provider's verified answer says about the account that signed in there. */
export type ProviderIdentity = {
  /** The stable id stored in the binding column (GitHub's numeric id, LinuxDO's id, OIDC's `sub`). */
  id: string;
  /** An older id the same account may still be bound by: GitHub's login, which new-api stored before its numeric id. */
  legacyId?: string;
  /** The name a new account starts with. */
  displayName: string;
};

type ProviderInfo = {
  /** How messages name it. */
  name: (o: OptionValues) => string;
  enabled: (o: OptionValues) => boolean;
  column: BindingColumn;
  /** New accounts are named `<prefix>_<random>`. */
  prefix: string;
};

export const PROVIDER_INFO: Record<OAuthProvider, ProviderInfo> = {
  github: { name: () => "GitHub", enabled: (o) => o.GitHubOAuthEnabled, column: "github_id", prefix: "github" },
  linuxdo: { name: () => "LinuxDO", enabled: (o) => o.LinuxDOOAuthEnabled, column: "linux_do_id", prefix: "linuxdo" },
  oidc: {
    name: (o) => o["oidc.display_name"] || "OIDC",
    enabled: (o) => o["oidc.enabled"],
    column: "oidc_id",
    prefix: "oidc",
  },
};

export const OAUTH_MSG = {
  /** A state that is missing, unknown, used, expired or from another browser: one answer for all. */
  stateInvalid: "state 参数为空、已使用或已过期，请重新发起授权",
  notEnabled: (name: string) => `管理员未开启通过 ${name} 登录以及注册`,
  missingCode: "无效的授权码",
  cancelled: "已取消授权",
  providerError: (code: string) => `授权失败（${code}）`,
  connectFailed: (name: string) => `无法连接至 ${name} 服务器，请稍后重试`,
  tokenFailed: (name: string) => `${name} 获取 Token 失败，请检查设置`,
  userInfoFailed: (name: string) => `${name} 获取用户信息失败，请检查设置`,
  idTokenInvalid: (name: string) => `${name} 身份令牌校验失败，请重新登录`,
  notSecure: (name: string) => `${name} 的地址必须使用 https://`,
  alreadyBound: (name: string) => `该 ${name} 账户已被其他用户绑定`,
  sessionChanged: "登录状态已变化，请重新发起绑定",
  userDeleted: "用户已注销",
  /** The message a successful bind answers (spec §4 Session and OAuth: the console goes to /setting). */
  bound: "bind",
} as const;

/** The provider's switch is off. */
export const notEnabled = (name: string) => forbidden(OAUTH_MSG.notEnabled(name));

/** An error answer of the provider's authorize page (`?error=`), in words; the code only when it is a plain token. */
export function providerErrorMessage(code: string, name: string): string {
  if (code === "access_denied") return OAUTH_MSG.cancelled;
  if (code === "temporarily_unavailable") return OAUTH_MSG.connectFailed(name);
  return OAUTH_MSG.providerError(/^[a-z_]{1,40}$/.test(code) ? code : "unknown_error");
}

/** The provider could not be reached (network, timeout). */
export const connectFailed = (name: string) => new ApiError(OAUTH_MSG.connectFailed(name), 502);
/** The provider refused the code or answered without a token. */
export const tokenFailed = (name: string) => new ApiError(OAUTH_MSG.tokenFailed(name), 400);
/** The provider's user endpoint failed or answered without an id. */
export const userInfoFailed = (name: string) => new ApiError(OAUTH_MSG.userInfoFailed(name), 502);

/**
 * The callback address registered at the provider: the console page `/oauth/<provider>` under
 * ServerAddress, or under the address the request came to when none is configured.
 */
export function redirectUri(o: Pick<OptionValues, "ServerAddress">, req: Request, provider: OAuthProvider): string {
  const base = (o.ServerAddress || new URL(req.url).origin).replace(/\/+$/, "");
  return `${base}/oauth/${provider}`;
}

/** How long a provider call may take before the sign-in gives up. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** `promise`, or connectFailed after PROVIDER_TIMEOUT_MS (for calls that take no abort signal). */
export function withinTimeout<T>(promise: Promise<T>, name: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(connectFailed(name)), PROVIDER_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
