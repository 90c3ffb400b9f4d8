// The public status object (`GET /api/status`, spec §3 "Login status object"): what the console
// needs before anyone logs in — branding, feature flags, enabled login methods and top-up setup.
import packageJson from "@/package.json";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { getOptions } from "@/lib/options";
import { isOnlineTopUpEnabled, isStripeTopUpEnabled, minTopUpAmount } from "@/lib/payments/amount";
import { rootUsesDefaultPassword } from "@/lib/users/root-account";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("status");

/** Process start, unix seconds. */
export const START_TIME = Math.floor(performance.timeOrigin / 1000);

export type SystemStatus = {
  version: string;
  start_time: number;
  system_name: string;
  logo: string;
  footer_html: string;
  quota_per_unit: number;
  display_in_currency: boolean;
  display_token_stat: boolean;
  enable_drawing: boolean;
  enable_task: boolean;
  enable_data_export: boolean;
  data_export_default_time: string;
  default_collapse_sidebar: boolean;
  mj_notify_enabled: boolean;
  chats: Array<Record<string, string>>;
  chat_link: string;
  chat_link2: string;
  turnstile_check: boolean;
  turnstile_site_key: string;
  github_oauth: boolean;
  github_client_id: string;
  linuxdo_oauth: boolean;
  linuxdo_client_id: string;
  wechat_login: boolean;
  wechat_qrcode: string;
  telegram_oauth: boolean;
  telegram_bot_name: string;
  /** Where the browser loads the Telegram Login Widget from (TELEGRAM_WIDGET_URL). */
  telegram_widget_url: string;
  email_verification: boolean;
  oidc_enabled: boolean;
  oidc_client_id: string;
  oidc_authorization_endpoint: string;
  /** The OIDC login button's label ("OIDC" unless the admin named it). */
  oidc_display_name: string;
  register_enabled: boolean;
  password_login_enabled: boolean;
  password_register_enabled: boolean;
  server_address: string;
  top_up_link: string;
  /** Top-up currency per US$1. */
  price: number;
  /** The smallest top-up a user may enter, in US$ while the console shows currency, else in quota units. */
  min_topup: number;
  enable_online_topup: boolean;
  /** Stripe Checkout is configured (new-api's field). */
  enable_stripe_topup: boolean;
  self_use_mode_enabled: boolean;
  demo_site_enabled: boolean;
  /** True while root still has the well-known default password; the console shows a warning. */
  root_default_password: boolean;
};

export async function getStatus(): Promise<SystemStatus> {
  const [o, rootDefault] = await Promise.all([getOptions(), rootHasDefaultPassword()]);
  return {
    version: packageJson.version,
    start_time: START_TIME,
    system_name: o.SystemName,
    logo: o.Logo,
    footer_html: o.Footer,
    quota_per_unit: o.QuotaPerUnit,
    display_in_currency: o.DisplayInCurrencyEnabled,
    display_token_stat: o.DisplayTokenStatEnabled,
    enable_drawing: o.DrawingEnabled,
    enable_task: o.TaskEnabled,
    enable_data_export: o.DataExportEnabled,
    data_export_default_time: o.DataExportDefaultTime,
    default_collapse_sidebar: o.DefaultCollapseSidebar,
    mj_notify_enabled: o.MjNotifyEnabled,
    chats: o.Chats,
    chat_link: o.ChatLink,
    chat_link2: o.ChatLink2,
    turnstile_check: o.TurnstileCheckEnabled,
    turnstile_site_key: o.TurnstileSiteKey,
    github_oauth: o.GitHubOAuthEnabled,
    github_client_id: o.GitHubClientId,
    linuxdo_oauth: o.LinuxDOOAuthEnabled,
    linuxdo_client_id: o.LinuxDOClientId,
    wechat_login: o.WeChatAuthEnabled,
    wechat_qrcode: o.WeChatAccountQRCodeImageURL,
    telegram_oauth: o.TelegramOAuthEnabled,
    telegram_bot_name: o.TelegramBotName,
    telegram_widget_url: env.TELEGRAM_WIDGET_URL,
    email_verification: o.EmailVerificationEnabled,
    // new-api's OIDC fields; the console's button goes through /api/oauth/oidc/authorize instead.
    oidc_enabled: o["oidc.enabled"],
    oidc_client_id: o["oidc.client_id"],
    oidc_authorization_endpoint: o["oidc.authorization_endpoint"],
    oidc_display_name: o["oidc.display_name"] || "OIDC",
    register_enabled: o.RegisterEnabled,
    password_login_enabled: o.PasswordLoginEnabled,
    password_register_enabled: o.PasswordRegisterEnabled,
    server_address: o.ServerAddress,
    top_up_link: o.TopUpLink,
    price: o.Price,
    min_topup: minTopUpAmount(o),
    enable_online_topup: isOnlineTopUpEnabled(o),
    enable_stripe_topup: isStripeTopUpEnabled(o),
    self_use_mode_enabled: o.SelfUseModeEnabled,
    demo_site_enabled: o.DemoSiteEnabled,
    root_default_password: rootDefault,
  };
}

// The default-password check is a bcrypt comparison (tens of ms), too slow for a public endpoint
// every page loads. Its answer is kept on globalThis (shared by Next's bundles and the custom
// server), re-checked in the background after SYNC_FREQUENCY seconds so a password changed on
// another instance shows up, and dropped at once by `invalidateRootDefaultPassword`.
type RootPasswordState = { value: boolean | null; checkedAt: number; pending: Promise<boolean> | null; generation: number };

function rootPasswordState(): RootPasswordState {
  return processSingleton<RootPasswordState>("rootDefaultPassword", () => ({ value: null, checkedAt: 0, pending: null, generation: 0 }));
}

function recheckRootPassword(state: RootPasswordState): Promise<boolean> {
  if (state.pending) return state.pending;
  const generation = state.generation;
  const pending = (async () => {
    const value = await rootUsesDefaultPassword(await getDb());
    // An invalidation during the check means the password changed under us: keep nothing.
    if (state.generation === generation) {
      state.value = value;
      state.checkedAt = Date.now();
    }
    return value;
  })().finally(() => {
    if (state.pending === pending) state.pending = null;
  });
  state.pending = pending;
  return pending;
}

/** Whether root still uses the default password (cached; see above). */
export async function rootHasDefaultPassword(): Promise<boolean> {
  const state = rootPasswordState();
  if (state.value === null) return recheckRootPassword(state);
  if (Date.now() - state.checkedAt > env.SYNC_FREQUENCY * 1000) {
    recheckRootPassword(state).catch((err) => log.error({ err }, "root password check failed"));
  }
  return state.value;
}

/** Call after any password change: the next status request re-checks root's password. */
export function invalidateRootDefaultPassword(): void {
  const state = rootPasswordState();
  state.value = null;
  state.generation++;
  state.pending = null;
}
