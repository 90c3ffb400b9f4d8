"use client";
// The cards of the personal tab: profile, available models and current bindings (e-mail bindable).
import { Avatar, Badge, Button, DataList, Group, SimpleGrid, Stack, Text, Tooltip } from "@mantine/core";
import { useRouter } from "next/navigation";
import { EmailBindButton } from "@/components/auth/email-bind-button";
import { copyText } from "@/components/data/copy";
import { QuotaText } from "@/components/data/display";
import { SettingCard } from "@/components/settings/setting-card";
import { TelegramBindButton } from "@/components/settings/telegram-bind";
import { WeChatBindButton } from "@/components/settings/wechat-bind";
import { useSiteStatus } from "@/lib/client/hooks";
import { formatCompact } from "@/lib/ui/format";
import { roleLabel } from "@/lib/users/self-form";
import type { UserView } from "@/lib/users/view";

function Stat({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={2} miw={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} size="lg" style={{ overflowWrap: "anywhere" }}>
        {children}
      </Text>
    </Stack>
  );
}

export function ProfileCard({ self }: { self: UserView }) {
  const role = roleLabel(self.role);
  const name = self.display_name || self.username;
  return (
    <SettingCard title="个人信息" stretch>
      <Group gap="sm" wrap="nowrap">
        <Avatar color="blue" radius="xl" size="lg">
          {name.slice(0, 1).toUpperCase()}
        </Avatar>
        <Stack gap={2} miw={0}>
          <Group gap={6}>
            <Text fw={600} size="lg" style={{ overflowWrap: "anywhere" }}>
              {name}
            </Text>
            <Badge color={role.color} variant="light">
              {role.label}
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            ID {self.id}
          </Text>
        </Stack>
      </Group>
      <SimpleGrid cols={3} spacing="sm">
        <Stat label="当前余额">
          <QuotaText quota={self.quota} />
        </Stat>
        <Stat label="历史消耗">
          <QuotaText quota={self.used_quota} />
        </Stat>
        <Stat label="请求次数">{formatCompact(self.request_count)}</Stat>
      </SimpleGrid>
      <DataList size="sm" labelWidth="6em" aria-label="账户信息">
        <DataList.Item>
          <DataList.ItemLabel>用户名</DataList.ItemLabel>
          <DataList.ItemValue>{self.username}</DataList.ItemValue>
        </DataList.Item>
        <DataList.Item>
          <DataList.ItemLabel>显示名称</DataList.ItemLabel>
          <DataList.ItemValue>
            {self.display_name || (
              <Text span size="sm" c="dimmed">
                未设置
              </Text>
            )}
          </DataList.ItemValue>
        </DataList.Item>
        <DataList.Item>
          <DataList.ItemLabel>用户分组</DataList.ItemLabel>
          <DataList.ItemValue>{self.group}</DataList.ItemValue>
        </DataList.Item>
      </DataList>
    </SettingCard>
  );
}

export function ModelsCard({ models }: { models: string[] }) {
  return (
    <SettingCard
      title="可用模型"
      description="当前分组可以调用的模型，点击模型名即可复制。"
      extra={
        models.length > 0 && (
          <Button size="compact-sm" variant="light" onClick={() => copyText(models.join(","))}>
            复制全部
          </Button>
        )
      }
    >
      {models.length === 0 ? (
        <Text size="sm" c="dimmed">
          当前分组暂无可用模型
        </Text>
      ) : (
        <Group gap={6} aria-label="模型列表">
          {models.map((model) => (
            <Tooltip key={model} label="点击复制" withArrow openDelay={400}>
              <Badge
                component="button"
                type="button"
                variant="light"
                color="gray"
                size="lg"
                tt="none"
                fw={500}
                style={{ cursor: "pointer", maxWidth: "100%" }}
                onClick={() => copyText(model)}
              >
                {model}
              </Badge>
            </Tooltip>
          ))}
        </Group>
      )}
    </SettingCard>
  );
}

const BINDINGS: { key: keyof Pick<UserView, "email" | "wechat_id" | "github_id" | "telegram_id" | "linux_do_id">; label: string }[] = [
  { key: "email", label: "邮箱" },
  { key: "wechat_id", label: "微信" },
  { key: "github_id", label: "GitHub" },
  { key: "telegram_id", label: "Telegram" },
  { key: "linux_do_id", label: "LinuxDO" },
];

export function BindingsCard({ self }: { self: UserView }) {
  const router = useRouter();
  const status = useSiteStatus();
  return (
    <SettingCard title="账户绑定" description="邮箱、微信和 Telegram 可在这里绑定；其他账户的绑定与解绑暂未开放。">
      <DataList size="sm" labelWidth="6em" withDivider aria-label="绑定情况">
        {BINDINGS.map(({ key, label }) => {
          const value = self[key];
          return (
            <DataList.Item key={key}>
              <DataList.ItemLabel>{label}</DataList.ItemLabel>
              <DataList.ItemValue style={{ overflowWrap: "anywhere" }}>
                <Group gap="xs" justify="space-between">
                  {value ? (
                    <span>{value}</span>
                  ) : (
                    <Text span size="sm" c="dimmed">
                      未绑定
                    </Text>
                  )}
                  {key === "email" && <EmailBindButton bound={!!value} />}
                  {key === "wechat_id" && status?.wechat_login && <WeChatBindButton status={status} onBound={router.refresh} />}
                  {key === "telegram_id" && status?.telegram_oauth && <TelegramBindButton status={status} onBound={router.refresh} />}
                </Group>
              </DataList.ItemValue>
            </DataList.Item>
          );
        })}
      </DataList>
    </SettingCard>
  );
}
