// Shapes the console keeps in local storage (spec §3): the logged-in user and the status object.

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
  email_verification?: boolean;
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

export type StoredUser = {
  id: number;
  username: string;
  display_name?: string;
  role: number;
  status?: number;
  group?: string;
  quota?: number;
  [key: string]: unknown;
};
