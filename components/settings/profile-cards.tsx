"use client";
// The cards of the personal tab: profile and available models (bindings: bindings-card.tsx).
import { Avatar, Badge, Button, DataList, Group, SimpleGrid, Stack, Text, Tooltip } from "@mantine/core";
import { copyText } from "@/components/data/copy";
import { QuotaText } from "@/components/data/display";
import { SettingCard } from "@/components/settings/setting-card";
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
