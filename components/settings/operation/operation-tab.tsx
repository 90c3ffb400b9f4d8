"use client";
// The operation tab (spec §2 Settings → operation), root only: general, drawing, logs (with the
// cleanup), data dashboard, monitoring, quota and chat settings, each saved by its own button.
// Each section's fields come from the option registry (lib/options/registry.ts); the sensitive-word
// and ratio sections are components of their own beside this file.
import { Stack } from "@mantine/core";
import { LogCleanup } from "@/components/settings/operation/log-cleanup";
import { OptionsCard } from "@/components/settings/operation/options-card";
import { RatioSettings } from "@/components/settings/operation/ratio-settings";
import { SensitiveSettings } from "@/components/settings/operation/sensitive-settings";
import type { OptionKey } from "@/lib/options/registry";

export type OperationTabProps = { options: Partial<Record<OptionKey, string>> };

export function OperationTab({ options }: OperationTabProps) {
  return (
    <Stack gap="md">
      <OptionsCard title="通用设置" section="general" initial={options} />
      <OptionsCard title="绘图设置" section="drawing" initial={options} />
      <SensitiveSettings values={options} />
      <OptionsCard title="日志设置" section="logs" initial={options}>
        <LogCleanup />
      </OptionsCard>
      <OptionsCard title="数据看板设置" section="dashboard" initial={options} />
      <OptionsCard title="监控设置" section="monitoring" initial={options} />
      <OptionsCard
        title="路由与熔断设置"
        description="熔断对每个渠道（多密钥渠道则对每个密钥）分别计数；路由策略只在同一优先级的渠道之间选择。"
        section="routing"
        initial={options}
      />
      <OptionsCard title="额度设置" section="quota" initial={options} />
      <OptionsCard
        title="速率限制设置"
        description="按用户限制模型请求（令牌的分组优先，否则用户的分组）；控制台操练场不受限制。"
        section="rateLimit"
        initial={options}
      />
      <OptionsCard
        title="聊天设置"
        description="令牌页的「聊天」按钮、侧边栏的「聊天」菜单和聊天页面使用这些链接。"
        section="chats"
        initial={options}
      />
      <RatioSettings values={options} />
    </Stack>
  );
}
