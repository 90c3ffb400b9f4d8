"use client";
// The operation tab (spec §2 Settings → operation), root only: general, drawing, logs (with the
// cleanup), data dashboard, monitoring, quota and chat settings, each saved by its own button.
// The sensitive-word and ratio sections are components of their own beside this file.
import { Stack } from "@mantine/core";
import { LogCleanup } from "@/components/settings/operation/log-cleanup";
import { type OptionField, OptionsCard } from "@/components/settings/operation/options-card";
import { RatioSettings } from "@/components/settings/operation/ratio-settings";
import { SensitiveSettings } from "@/components/settings/operation/sensitive-settings";
import type { OperationTabKey } from "@/lib/options/operation";

export type OperationTabProps = { options: Record<OperationTabKey, string> };

const GENERAL: OptionField[] = [
  {
    key: "TopUpLink",
    kind: "text",
    label: "充值链接",
    placeholder: "例如发卡网站的购买链接",
    description: "钱包页「获取兑换码」按钮打开的地址",
  },
  {
    key: "ChatLink",
    kind: "text",
    label: "默认聊天页面链接",
    placeholder: "例如 ChatGPT Next Web 的部署地址",
    description: "/chat2link 与令牌页聊天菜单的「默认聊天」打开此地址（附带令牌与服务器地址）",
  },
  {
    key: "ChatLink2",
    kind: "text",
    label: "聊天页面 2 链接",
    placeholder: "例如 ChatGPT Next Web 的部署地址",
    description: "令牌页聊天菜单的「聊天页面 2」打开此地址（附带令牌与服务器地址）",
  },
  { key: "QuotaPerUnit", kind: "number", label: "单位美元额度", min: 0, description: "一美元能兑换的额度，按次计费的模型据此计费" },
  { key: "RetryTimes", kind: "number", label: "失败重试次数", min: 0, step: 1 },
  { key: "DisplayInCurrencyEnabled", kind: "switch", label: "以货币形式显示额度" },
  {
    key: "DisplayTokenStatEnabled",
    kind: "switch",
    label: "额度查询接口返回令牌额度而非用户额度",
    description: "/v1/dashboard/billing 接口：有额度上限的令牌报告令牌自身的额度",
  },
  { key: "DefaultCollapseSidebar", kind: "switch", label: "默认折叠侧边栏" },
  {
    key: "SelfUseModeEnabled",
    kind: "switch",
    label: "自用模式",
    description: "未设置倍率或价格的模型默认被拒绝；开启后按默认倍率 37.5 计费并放行",
  },
];

const DRAWING: OptionField[] = [
  {
    key: "DrawingEnabled",
    kind: "switch",
    label: "启用绘图功能",
    description: "绘图页面尚未提供：开启后侧边栏暂不显示「绘图」，待绘图页面上线后生效",
  },
  { key: "MjNotifyEnabled", kind: "switch", label: "允许回调（会泄露服务器 IP 地址）" },
  { key: "MjAccountFilterEnabled", kind: "switch", label: "允许 AccountFilter 参数", unavailable: true },
  { key: "MjForwardUrlEnabled", kind: "switch", label: "开启之后将上游地址替换为服务器地址", unavailable: true },
  { key: "MjModeClearEnabled", kind: "switch", label: "开启之后会清除用户提示词中的 --fast、--relax 以及 --turbo 参数", unavailable: true },
  { key: "MjActionCheckSuccessEnabled", kind: "switch", label: "检测必须等待绘图成功才能进行放大等操作", unavailable: true },
];

const LOGS: OptionField[] = [{ key: "LogConsumeEnabled", kind: "switch", label: "启用额度消费日志记录" }];

const DASHBOARD: OptionField[] = [
  { key: "DataExportInterval", kind: "number", label: "数据看板更新间隔", min: 1, step: 1, suffix: " 分钟", description: "最小 1 分钟" },
  {
    key: "DataExportDefaultTime",
    kind: "select",
    label: "数据看板默认时间粒度",
    data: [
      { value: "hour", label: "小时" },
      { value: "day", label: "天" },
      { value: "week", label: "周" },
    ],
  },
  { key: "DataExportEnabled", kind: "switch", label: "启用数据看板", description: "关闭后侧边栏不显示「数据看板」" },
];

const MONITORING: OptionField[] = [
  {
    key: "ChannelDisableThreshold",
    kind: "number",
    label: "最长响应时间",
    min: 0,
    suffix: " 秒",
    description: "测试时慢于此时间的通道将被自动禁用，0 为不限",
  },
  { key: "QuotaRemindThreshold", kind: "number", label: "额度提醒阈值", min: 0, step: 1, description: "低于此额度时将发送邮件提醒用户" },
  {
    key: "ChannelTestInterval",
    kind: "number",
    label: "定时测试所有通道",
    min: 0,
    step: 1,
    suffix: " 分钟",
    description: "每隔多少分钟测试一次全部通道，0 为关闭",
  },
  { key: "AutomaticDisableChannelEnabled", kind: "switch", label: "失败时自动禁用通道" },
  { key: "AutomaticEnableChannelEnabled", kind: "switch", label: "成功时自动启用通道" },
];

const QUOTA: OptionField[] = [
  { key: "QuotaForNewUser", kind: "number", label: "新用户初始额度", min: 0, step: 1 },
  {
    key: "PreConsumedQuota",
    kind: "number",
    label: "请求预扣费额度",
    min: 0,
    step: 1,
    description: "请求未设置 max_tokens 时预留的补全 token 数",
  },
  { key: "QuotaForInviter", kind: "number", label: "邀请新用户奖励额度", min: 0, step: 1 },
  { key: "QuotaForInvitee", kind: "number", label: "新用户使用邀请码奖励额度", min: 0, step: 1 },
];

// new-api's wording for the same settings.
const RATE_LIMIT: OptionField[] = [
  {
    key: "ModelRequestRateLimitDurationMinutes",
    kind: "number",
    label: "限制周期",
    min: 1,
    step: 1,
    suffix: " 分钟",
    description: "频率限制的周期（分钟）",
  },
  {
    key: "ModelRequestRateLimitCount",
    kind: "number",
    label: "用户每周期最多请求次数",
    min: 0,
    step: 1,
    description: "包括失败请求的次数，0 代表不限制",
  },
  {
    key: "ModelRequestRateLimitSuccessCount",
    kind: "number",
    label: "用户每周期最多请求完成次数",
    min: 0,
    step: 1,
    description: "只包括请求成功的次数，0 代表不限制",
  },
  { key: "ModelRequestRateLimitEnabled", kind: "switch", label: "启用用户模型请求速率限制", description: "超出限制的请求返回 429" },
  {
    key: "ModelRequestRateLimitGroup",
    kind: "json",
    label: "分组速率限制",
    description:
      '{"组名": [最多请求次数, 最多请求完成次数]}，例如 {"default": [200, 100], "vip": [0, 1000]}；最多请求次数不小于 0（0 为不限），最多请求完成次数不小于 1。分组的配置优先于上面的全局限制，周期统一使用「限制周期」。',
  },
];

const CHATS: OptionField[] = [
  {
    key: "Chats",
    kind: "json",
    label: "聊天配置",
    description: '一个 JSON 数组，每一项形如 {"名称": "链接"}；链接中的 {key} 换成用户的令牌，{address} 换成服务器地址。',
  },
];

export function OperationTab({ options }: OperationTabProps) {
  return (
    <Stack gap="md">
      <OptionsCard title="通用设置" fields={GENERAL} initial={options} />
      <OptionsCard title="绘图设置" fields={DRAWING} initial={options} />
      <SensitiveSettings values={options} />
      <OptionsCard title="日志设置" fields={LOGS} initial={options}>
        <LogCleanup />
      </OptionsCard>
      <OptionsCard title="数据看板设置" fields={DASHBOARD} initial={options} />
      <OptionsCard title="监控设置" fields={MONITORING} initial={options} />
      <OptionsCard title="额度设置" fields={QUOTA} initial={options} />
      <OptionsCard
        title="速率限制设置"
        description="按用户限制模型请求（令牌的分组优先，否则用户的分组）；控制台操练场不受限制。"
        fields={RATE_LIMIT}
        initial={options}
      />
      <OptionsCard
        title="聊天设置"
        description="令牌页的「聊天」按钮、侧边栏的「聊天」菜单和聊天页面使用这些链接。"
        fields={CHATS}
        initial={options}
      />
      <RatioSettings values={options} />
    </Stack>
  );
}
