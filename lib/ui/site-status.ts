// The status object /api/status answers (spec §3), as the console keeps it in local storage.

/** One configured chat link: `{ "<display name>": "<url template>" }`. */
export type ChatLink = Record<string, string>;

export type SiteStatus = {
  system_name?: string;
  logo?: string;
  footer_html?: string;
  quota_per_unit?: number;
  display_in_currency?: boolean;
  enable_drawing?: boolean;
  enable_task?: boolean;
  enable_data_export?: boolean;
  chats?: ChatLink[] | string;
  data_export_default_time?: string;
  default_collapse_sidebar?: boolean;
  mj_notify_enabled?: boolean;
  chat_link?: string;
  chat_link2?: string;
  turnstile_check?: boolean;
  turnstile_site_key?: string;
  github_oauth?: boolean;
  github_client_id?: string;
  linuxdo_oauth?: boolean;
  linuxdo_client_id?: string;
  wechat_login?: boolean;
  wechat_qrcode?: string;
  telegram_oauth?: boolean;
  telegram_bot_name?: string;
  telegram_widget_url?: string;
  email_verification?: boolean;
  oidc_enabled?: boolean;
  oidc_client_id?: string;
  oidc_authorization_endpoint?: string;
  oidc_display_name?: string;
  server_address?: string;
  top_up_link?: string;
  min_topup?: number;
  enable_online_topup?: boolean;
  version?: string;
  start_time?: number;
  register_enabled?: boolean;
  password_login_enabled?: boolean;
  password_register_enabled?: boolean;
  root_default_password?: boolean;
};
