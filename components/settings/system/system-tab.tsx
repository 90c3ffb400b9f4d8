"use client";
// The super admin's system tab (spec §2 Settings → system): server address, worker proxy,
// payment, login and registration toggles, e-mail domain whitelist, SMTP, and the GitHub, LinuxDO,
// WeChat, Telegram and Turnstile settings. The options come from GET /api/option/'s function
// (secrets only as set or not) and are read again through that call after every save.
import { Stack, Text } from "@mantine/core";
import { useCallback, useState } from "react";
import { LoginToggles } from "@/components/settings/system/login-toggles";
import { ExternalLink, type FieldDef, OptionForm, type SavedOptions } from "@/components/settings/system/option-form";
import { api } from "@/lib/client/api";
import type { ListedOption } from "@/lib/options";
import { PAYMENT_NEEDS_SERVER_ADDRESS } from "@/lib/options/messages";

// The features of these blocks come with later issues (lib/options/unavailable.ts).
const PAYMENT_NOT_YET = "在线支付尚未开放，以下设置暂不可修改。";
const LOGIN_NOT_YET = "该登录方式尚未开放，以下设置暂不可修改。";

export function toSaved(list: readonly ListedOption[]): SavedOptions {
  return {
    values: Object.fromEntries(list.map((o) => [o.key, o.value])),
    secretsSet: new Set(list.filter((o) => "secret" in o && o.set).map((o) => o.key)),
  };
}

const SERVER: FieldDef[] = [
  {
    kind: "text",
    key: "ServerAddress",
    label: "服务器地址",
    placeholder: "例如：https://yourdomain.com",
    description: "用于支付回调、邀请链接、邮件中的链接与第三方登录的回调地址",
    wide: true,
  },
];

const WORKER: FieldDef[] = [
  { kind: "text", key: "WorkerUrl", label: "Worker 地址", placeholder: "例如：https://workername.yourdomain.workers.dev" },
  { kind: "secret", key: "WorkerValidKey", label: "Worker 密钥" },
];

const PAYMENT: FieldDef[] = [
  { kind: "text", key: "PayAddress", label: "支付地址", placeholder: "例如：https://yourdomain.com" },
  { kind: "text", key: "EpayId", label: "易支付商户 ID", placeholder: "例如：0001" },
  { kind: "secret", key: "EpayKey", label: "易支付商户密钥" },
  { kind: "text", key: "CustomCallbackAddress", label: "回调地址", placeholder: "留空则使用服务器地址" },
  { kind: "number", key: "Price", label: "充值价格（x 元/美金）", min: 0, decimal: true },
  { kind: "number", key: "MinTopUp", label: "最低充值美元数量", min: 1 },
];

const EMAIL_DOMAINS: FieldDef[] = [
  { kind: "tags", key: "EmailDomainWhitelist", label: "允许的邮箱域名", placeholder: "输入域名后回车", wide: true },
  { kind: "switch", key: "EmailDomainRestrictionEnabled", label: "启用邮箱域名白名单" },
  { kind: "switch", key: "EmailAliasRestrictionEnabled", label: "启用邮箱别名限制（例如：ab.cd@gmail.com）" },
];

const SMTP: FieldDef[] = [
  { kind: "text", key: "SMTPServer", label: "SMTP 服务器地址", placeholder: "例如：smtp.qq.com" },
  { kind: "number", key: "SMTPPort", label: "SMTP 端口", min: 1, max: 65535, description: "默认 587" },
  { kind: "text", key: "SMTPAccount", label: "SMTP 账户", placeholder: "通常是邮箱地址" },
  { kind: "text", key: "SMTPFrom", label: "SMTP 发送者邮箱", placeholder: "通常和邮箱地址保持一致" },
  { kind: "secret", key: "SMTPToken", label: "SMTP 访问凭证" },
  {
    kind: "switch",
    key: "SMTPSSLEnabled",
    label: "启用 SMTP SSL",
    forcedOn: (v) => (v.SMTPPort?.trim() === "465" ? "端口 465 必须使用 SSL" : null),
  },
];

const GITHUB: FieldDef[] = [
  { kind: "text", key: "GitHubClientId", label: "GitHub Client ID" },
  { kind: "secret", key: "GitHubClientSecret", label: "GitHub Client Secret" },
];

const LINUXDO: FieldDef[] = [
  { kind: "text", key: "LinuxDOClientId", label: "LinuxDO Client ID" },
  { kind: "secret", key: "LinuxDOClientSecret", label: "LinuxDO Client Secret" },
];

const WECHAT: FieldDef[] = [
  { kind: "text", key: "WeChatServerAddress", label: "WeChat Server 服务器地址", placeholder: "例如：https://yourdomain.com" },
  { kind: "secret", key: "WeChatServerToken", label: "WeChat Server 访问凭证" },
  { kind: "text", key: "WeChatAccountQRCodeImageURL", label: "微信公众号二维码图片链接", placeholder: "输入一个图片链接" },
];

const TELEGRAM: FieldDef[] = [
  { kind: "secret", key: "TelegramBotToken", label: "Telegram Bot Token" },
  { kind: "text", key: "TelegramBotName", label: "Telegram Bot 名称" },
];

const TURNSTILE: FieldDef[] = [
  { kind: "text", key: "TurnstileSiteKey", label: "Turnstile Site Key" },
  { kind: "secret", key: "TurnstileSecretKey", label: "Turnstile Secret Key" },
];

const paymentNeedsServerAddress = (saved: SavedOptions) =>
  (saved.values.ServerAddress ?? "").trim() === "" ? PAYMENT_NEEDS_SERVER_ADDRESS : null;

export function SystemTab({ options }: { options: ListedOption[] }) {
  const [saved, setSaved] = useState(() => toSaved(options));
  const reload = useCallback(async () => {
    const res = await api<ListedOption[]>("GET", "/api/option/");
    if (!res.success) return null;
    const next = toSaved(res.data);
    setSaved(next);
    return next;
  }, []);
  const address = saved.values.ServerAddress || "{服务器地址}";
  const form = { saved, reload };

  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        密钥类配置只写不读：已保存的显示为「已设置」，留空保存则保持原值。
      </Text>
      <OptionForm title="通用设置" fields={SERVER} saveLabel="更新服务器地址" {...form} />
      <OptionForm
        title="代理设置"
        description="用以支持用户提供的链接（图片、文件等）的下载：设置后由 Worker 代为请求，本服务不直接连接这些地址。不影响上游渠道的请求。"
        fields={WORKER}
        saveLabel="更新 Worker 设置"
        {...form}
      />
      <OptionForm
        title="支付设置"
        description="当前仅支持易支付接口，默认使用上方服务器地址作为回调地址！"
        fields={PAYMENT}
        saveLabel="更新支付设置"
        check={paymentNeedsServerAddress}
        unavailable={PAYMENT_NOT_YET}
        {...form}
      />
      <LoginToggles {...form} />
      <OptionForm
        title="配置邮箱域名白名单"
        description="用以防止恶意用户利用临时邮箱批量注册"
        fields={EMAIL_DOMAINS}
        saveLabel="保存邮箱域名白名单设置"
        {...form}
      />
      <OptionForm title="配置 SMTP" description="用以支持系统的邮件发送" fields={SMTP} saveLabel="保存 SMTP 设置" {...form} />
      <OptionForm
        title="配置 GitHub OAuth App"
        description={
          <>
            用以支持通过 GitHub 进行登录注册，<ExternalLink href="https://github.com/settings/developers">点击此处</ExternalLink>管理你的
            GitHub OAuth App。Homepage URL 填 <code>{address}</code>，Authorization callback URL 填 <code>{address}/oauth/github</code>
          </>
        }
        fields={GITHUB}
        saveLabel="保存 GitHub OAuth 设置"
        unavailable={LOGIN_NOT_YET}
        {...form}
      />
      <OptionForm
        title="配置 LinuxDO OAuth"
        description={
          <>
            用以支持通过 LinuxDO 进行登录注册，<ExternalLink href="https://connect.linux.do/">点击此处</ExternalLink>管理你的 LinuxDO OAuth
            应用。回调地址填 <code>{address}/oauth/linuxdo</code>
          </>
        }
        fields={LINUXDO}
        saveLabel="保存 LinuxDO OAuth 设置"
        unavailable={LOGIN_NOT_YET}
        {...form}
      />
      <OptionForm
        title="配置 WeChat Server"
        description="用以支持通过微信进行登录、注册（需要部署 WeChat Server）"
        fields={WECHAT}
        saveLabel="保存 WeChat Server 设置"
        unavailable={LOGIN_NOT_YET}
        {...form}
      />
      <OptionForm
        title="配置 Telegram 登录"
        description="用以支持通过 Telegram 进行登录，Bot 名称不带 @"
        fields={TELEGRAM}
        saveLabel="保存 Telegram 登录设置"
        unavailable={LOGIN_NOT_YET}
        {...form}
      />
      <OptionForm
        title="配置 Turnstile"
        description={
          <>
            用以支持用户校验，<ExternalLink href="https://dash.cloudflare.com/">点击此处</ExternalLink>管理你的 Turnstile Sites，推荐选择
            Invisible Widget Type
          </>
        }
        fields={TURNSTILE}
        saveLabel="保存 Turnstile 设置"
        {...form}
      />
    </Stack>
  );
}
