// The about page before the admin writes one (option About).
import { Anchor, Stack, Text, Title } from "@mantine/core";
import { PROJECT_REPOSITORY } from "@/lib/ui/brand";

export function DefaultAbout() {
  return (
    <Stack gap="sm" maw={800}>
      <Title order={2}>关于</Title>
      <Text>可在设置页面设置关于内容，支持 HTML & Markdown</Text>
      <Text>
        Qiao（桥）项目仓库地址：
        <Anchor href={PROJECT_REPOSITORY} target="_blank" rel="noopener noreferrer">
          {PROJECT_REPOSITORY}
        </Anchor>
      </Text>
      <Text c="dimmed" size="sm">
        Qiao 是一个自托管的 AI 模型接口网关，提供统一的 OpenAI 兼容接口、令牌与额度管理。
      </Text>
    </Stack>
  );
}
