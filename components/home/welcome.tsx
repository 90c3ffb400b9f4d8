"use client";
// The home page when no HomePageContent is configured: what the gateway is, where to start, and
// the API base address to put into OpenAI-compatible clients.
import { Anchor, Button, Card, Code, CopyButton, Group, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import Link from "next/link";
import { useHydrated, useSiteStatus, useStoredUser } from "@/lib/client/hooks";
import { DEFAULT_SYSTEM_NAME, PROJECT_REPOSITORY } from "@/lib/ui/brand";

function formatTime(seconds: number | undefined): string {
  if (!seconds) return "未知";
  return new Date(seconds * 1000).toLocaleString("zh-CN", { hour12: false });
}

export function Welcome() {
  const status = useSiteStatus();
  const user = useStoredUser();
  const hydrated = useHydrated();
  const name = status?.system_name || DEFAULT_SYSTEM_NAME;
  const base = (status?.server_address || (hydrated ? window.location.origin : "")).replace(/\/+$/, "");
  const enabled = (on: boolean | undefined) => (on ? "已启用" : "未启用");

  return (
    <Stack gap="lg" maw={960} mx="auto" py="md">
      <Stack gap="xs">
        <Title order={1}>欢迎使用 {name}</Title>
        <Text c="dimmed" size="lg">
          {
            "一个自托管的 AI 模型接口网关：把 OpenAI、Claude、Gemini 等众多上游模型服务汇聚为统一的 OpenAI 兼容接口，并提供令牌分发、额度计费、用量日志与渠道管理。"
          }
        </Text>
      </Stack>

      <Card withBorder padding="lg">
        <Text fw={600} mb={6}>
          接口地址
        </Text>
        <Text size="sm" c="dimmed" mb="xs">
          在客户端中把 https://api.openai.com 替换为下面的地址，再填入你在「令牌」页面创建的密钥即可。
        </Text>
        <Group gap="xs" wrap="nowrap">
          <Code fz="md" style={{ overflowWrap: "anywhere" }} data-testid="api-base">
            {base ? `${base}/v1` : "…"}
          </Code>
          {base && (
            <CopyButton value={`${base}/v1`}>
              {({ copied, copy }) => (
                <Button size="compact-sm" variant="light" onClick={copy}>
                  {copied ? "已复制" : "复制"}
                </Button>
              )}
            </CopyButton>
          )}
        </Group>
      </Card>

      <Group gap="sm">
        <Button component={Link} href={user ? "/token" : "/login"}>
          {user ? "管理令牌" : "登录后获取令牌"}
        </Button>
        <Button component={Link} href="/pricing" variant="default">
          模型价格
        </Button>
        <Button component={Link} href="/about" variant="default">
          关于
        </Button>
      </Group>

      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Card withBorder padding="lg">
          <Text fw={600} mb="xs">
            系统信息
          </Text>
          <Stack gap={4}>
            <Text size="sm">名称：{name}</Text>
            <Text size="sm">版本：{status?.version || "unknown"}</Text>
            <Text size="sm">
              源码：
              <Anchor href={PROJECT_REPOSITORY} target="_blank" rel="noopener noreferrer" size="sm">
                {PROJECT_REPOSITORY}
              </Anchor>
            </Text>
            <Text size="sm">启动时间：{hydrated ? formatTime(status?.start_time) : ""}</Text>
          </Stack>
        </Card>
        <Card withBorder padding="lg">
          <Text fw={600} mb="xs">
            系统配置
          </Text>
          <Stack gap={4}>
            <Text size="sm">邮箱验证：{enabled(status?.email_verification)}</Text>
            <Text size="sm">GitHub 身份验证：{enabled(status?.github_oauth)}</Text>
            <Text size="sm">微信身份验证：{enabled(status?.wechat_login)}</Text>
            <Text size="sm">Turnstile 用户校验：{enabled(status?.turnstile_check)}</Text>
            <Text size="sm">Telegram 身份验证：{enabled(status?.telegram_oauth)}</Text>
          </Stack>
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
