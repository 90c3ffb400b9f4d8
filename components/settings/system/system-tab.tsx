"use client";
// The super admin's system tab (spec §2 Settings → system): server address, the /metrics token, worker proxy,
// payment (EPay, Stripe), login and registration toggles, e-mail domain whitelist, SMTP, and the GitHub, LinuxDO,
// WeChat, Telegram, OIDC and Turnstile settings. The options come from GET /api/option/'s function
// (secrets only as set or not) and are read again through that call after every save. Each
// block's fields are its section of the option registry (lib/options/registry.ts).
import { Stack, Text } from "@mantine/core";
import { useCallback, useState } from "react";
import { LoginToggles } from "@/components/settings/system/login-toggles";
import { ExternalLink, OptionForm, type OptionValues, type SavedOptions } from "@/components/settings/system/option-form";
import type { OidcEndpoints } from "@/lib/accounts/oauth/oidc";
import { formError } from "@/lib/options/registry";
import { api } from "@/lib/client/api";
import type { ListedOption } from "@/lib/options";
import { PAYMENT_NEEDS_SERVER_ADDRESS } from "@/lib/options/messages";
import { STRIPE_WEBHOOK_EVENTS, STRIPE_WEBHOOK_PATH } from "@/lib/payments/stripe-events";

export function toSaved(list: readonly ListedOption[]): SavedOptions {
  return {
    values: Object.fromEntries(list.map((o) => [o.key, o.value])),
    secretsSet: new Set(list.filter((o) => "secret" in o && o.set).map((o) => o.key)),
  };
}

const OIDC_ENDPOINTS = ["oidc.authorization_endpoint", "oidc.token_endpoint", "oidc.user_info_endpoint"] as const;

/**
 * Before the OIDC block saves: a new well-known URL (or one with an endpoint left empty) is read
 * on the server and the three endpoints it names are filled in, as new-api's settings page does.
 */
async function fillOidcEndpoints(values: OptionValues, saved: OptionValues): Promise<Record<string, string> | null> {
  const wellKnown = (values["oidc.well_known"] ?? "").trim();
  const unchanged = wellKnown === (saved["oidc.well_known"] ?? "") && OIDC_ENDPOINTS.every((k) => (values[k] ?? "").trim() !== "");
  // A malformed address is left to the save, which says so beside the field.
  if (!wellKnown || unchanged || formError("oidc.well_known", wellKnown)) return {};
  const res = await api<OidcEndpoints>("GET", `/api/oauth/oidc/discovery?well_known=${encodeURIComponent(wellKnown)}`);
  if (!res.success) return null;
  return {
    "oidc.authorization_endpoint": res.data.authorization_endpoint,
    "oidc.token_endpoint": res.data.token_endpoint,
    "oidc.user_info_endpoint": res.data.user_info_endpoint,
  };
}

/** A URL or event name in a hint: it may break anywhere, so a phone's card does not overflow. */
const LongCode = ({ children }: { children: string }) => <code style={{ overflowWrap: "anywhere" }}>{children}</code>;

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
  // Where the gateways call back: the callback address when set, else the server address
  // (lib/payments/pay.ts callbackBase).
  const callback = (saved.values.CustomCallbackAddress || address).replace(/\/+$/, "");
  const form = { saved, reload };

  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        密钥类配置只写不读：已保存的显示为「已设置」，留空保存则保持原值。
      </Text>
      <OptionForm title="通用设置" section="server" saveLabel="更新服务器地址" {...form} />
      <OptionForm
        title="监控指标"
        description={
          <>
            Prometheus 从 <LongCode>{`${address.replace(/\/+$/, "")}/metrics`}</LongCode>{" "}
            抓取本实例的请求、用时、令牌、额度与渠道指标；设置令牌后开放，抓取时携带 <LongCode>Authorization: Bearer 令牌</LongCode>。
          </>
        }
        section="metrics"
        saveLabel="保存监控指标设置"
        {...form}
      />
      <OptionForm
        title="代理设置"
        description="用以支持用户提供的链接（图片、文件等）的下载：设置后由 Worker 代为请求，本服务不直接连接这些地址。不影响上游渠道的请求。"
        section="worker"
        saveLabel="更新 Worker 设置"
        {...form}
      />
      <OptionForm
        title="支付设置"
        description={
          <>
            用以支持通过易支付（支付宝、微信）在线充值。回调地址留空则使用上方服务器地址：异步通知地址为{" "}
            <LongCode>{`${callback}/api/user/epay/notify`}</LongCode>，支付完成后返回 <LongCode>{`${callback}/topup`}</LongCode>
            ；最低充值美元数量对 Stripe 同样适用。
          </>
        }
        section="payment"
        saveLabel="更新支付设置"
        check={paymentNeedsServerAddress}
        {...form}
      />
      <OptionForm
        title="配置 Stripe"
        description={
          <>
            用以支持通过 Stripe Checkout 在线充值，<ExternalLink href="https://dashboard.stripe.com/webhooks">点击此处</ExternalLink>在
            Stripe 中添加 Webhook 端点 <LongCode>{`${callback}${STRIPE_WEBHOOK_PATH}`}</LongCode>，监听事件{" "}
            {STRIPE_WEBHOOK_EVENTS.map((e, i) => (
              <span key={e}>
                {i > 0 && "、"}
                <LongCode>{e}</LongCode>
              </span>
            ))}
            ，并把它的签名密钥填入下方。商品价格决定收款币种（须为两位小数的币种，如 USD）与商品，实付金额为充值数量 × 充值价格 ×
            充值分组倍率。
          </>
        }
        section="stripe"
        saveLabel="保存 Stripe 设置"
        check={paymentNeedsServerAddress}
        {...form}
      />
      <LoginToggles {...form} />
      <OptionForm
        title="配置邮箱域名白名单"
        description="用以防止恶意用户利用临时邮箱批量注册"
        section="emailDomains"
        saveLabel="保存邮箱域名白名单设置"
        {...form}
      />
      <OptionForm title="配置 SMTP" description="用以支持系统的邮件发送" section="smtp" saveLabel="保存 SMTP 设置" {...form} />
      <OptionForm
        title="配置 GitHub OAuth App"
        description={
          <>
            用以支持通过 GitHub 进行登录注册，<ExternalLink href="https://github.com/settings/developers">点击此处</ExternalLink>管理你的
            GitHub OAuth App。Homepage URL 填 <code>{address}</code>，Authorization callback URL 填 <code>{address}/oauth/github</code>
          </>
        }
        section="github"
        saveLabel="保存 GitHub OAuth 设置"
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
        section="linuxdo"
        saveLabel="保存 LinuxDO OAuth 设置"
        {...form}
      />
      <OptionForm
        title="配置 WeChat Server"
        description={
          <>
            用以支持通过微信进行登录、注册（需要部署{" "}
            <ExternalLink href="https://github.com/songquanpeng/wechat-server">WeChat Server</ExternalLink>
            ），访问凭证即 WeChat Server 的令牌
          </>
        }
        section="wechat"
        saveLabel="保存 WeChat Server 设置"
        {...form}
      />
      <OptionForm
        title="配置 Telegram 登录"
        description={
          <>
            用以支持通过 Telegram 进行登录，Bot 名称不带 @；需先向 @BotFather 发送 /setdomain，把 <code>{address}</code> 的域名绑定到该 Bot
          </>
        }
        section="telegram"
        saveLabel="保存 Telegram 登录设置"
        {...form}
      />
      <OptionForm
        title="配置 OIDC"
        description={
          <>
            用以支持通过任意 OpenID Connect 提供商（Keycloak、Authentik、Google、Azure AD 等）登录注册。在提供商处创建客户端，回调地址填{" "}
            <code>{address}/oauth/oidc</code>；保存时从 Well-Known URL 读取三个端点。
          </>
        }
        section="oidc"
        saveLabel="保存 OIDC 设置"
        prepare={fillOidcEndpoints}
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
        section="turnstile"
        saveLabel="保存 Turnstile 设置"
        {...form}
      />
    </Stack>
  );
}
